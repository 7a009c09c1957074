/**
 * The scheduler of local mode: the runtime's {@link Scheduler}, except that a hop to a node no
 * manifest declares fails at once. A cluster scheduler waits (runtime-spec §3.2: up to 30 s in Go,
 * `DEFAULT_READY_TIMEOUT_MS`, 5 s, here) because the node may simply not be reconciled yet; local
 * mode reads every manifest before it runs anything, so an undeclared node will not appear — each
 * request would only wait and then fail. Declared nodes keep the wait (they may be starting).
 */
import { Scheduler, type SchedulerOptions } from "../runtime/scheduler/scheduler.ts";
import type { HopScope } from "../runtime/runner/scope.ts";
import { fail, type Result } from "../sdk/result.ts";
import { parsePortAddress, type Msg } from "../transport/types.ts";
import { UndeclaredNodeError } from "./errors.ts";

/** A {@link Scheduler} that fails hops to undeclared nodes with {@link UndeclaredNodeError}. */
export class LocalScheduler extends Scheduler {
  /**
   * @param options as for {@link Scheduler}.
   * @param declared true when a manifest declares node `name` (read live: manifests change).
   */
  constructor(
    options: SchedulerOptions,
    readonly declared: (name: string) => boolean,
  ) {
    super(options);
  }

  /** {@link Scheduler.dispatch}, failing at once when the destination node is not declared. */
  override dispatch(msg: Msg, scope: HopScope): Promise<Result> {
    const [node, port] = parsePortAddress(msg.to);
    if (node !== "" && this.runner(node) === undefined && !this.declared(node)) return Promise.resolve(fail(new UndeclaredNodeError(node, port)));
    return super.dispatch(msg, scope);
  }
}
