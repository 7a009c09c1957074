/**
 * The scheduler of local mode: the runtime's {@link Scheduler}, except that a hop to a node no
 * manifest declares, or to a port its running node does not declare while no reconcile is pending,
 * fails at once. A cluster scheduler waits (runtime-spec §3.2: up to 30 s in Go,
 * `DEFAULT_READY_TIMEOUT_MS`, 5 s, here) because the node may simply not be reconciled yet; local
 * mode reads every manifest before it runs anything, and ports change only on reconcile (settings),
 * so neither will appear — each request would only wait and then fail. Hops to declared nodes that
 * are starting, or during a reconcile, keep the wait.
 * An unknown component is reported naming the components there are, which local mode can list.
 */
import { Scheduler, type SchedulerOptions } from "../runtime/scheduler/scheduler.ts";
import { PermanentError, TinyError } from "../sdk/errors.ts";
import type { TinyNode, TinyNodeStatus } from "../sdk/node.ts";
import type { HopScope } from "../runtime/runner/scope.ts";
import { fail, type Result } from "../sdk/result.ts";
import { parsePortAddress, type Msg } from "../transport/types.ts";
import { UndeclaredNodeError, UndeclaredPortError } from "./errors.ts";

/** A {@link Scheduler} that fails hops to undeclared nodes with {@link UndeclaredNodeError}. */
export class LocalScheduler extends Scheduler {
  /**
   * @param options as for {@link Scheduler}.
   * @param declared true when a manifest declares node `name` (read live: manifests change).
   * @param settled true when no reconcile is queued or running (ports cannot change until one runs).
   * @param known the registered component names, for the unknown-component status (`a, b` or `none`).
   */
  constructor(
    options: SchedulerOptions,
    readonly declared: (name: string) => boolean,
    readonly settled: () => boolean = () => false,
    readonly known: () => string = () => "none",
  ) {
    super(options);
  }

  /**
   * {@link Scheduler.update}; an unknown component fails with `component "x" is not registered
   * (known: …)`, and a runner a reconcile left behind while the component went is stopped too.
   * @throws PermanentError wrapping code `COMPONENT_NOT_REGISTERED` for an unknown component.
   */
  override async update(node: TinyNode): Promise<TinyNodeStatus> {
    const component = node.spec.component;
    if (this.installed(component)) return super.update(node);
    if (this.runner(node.metadata.name)) await this.uninstall(component);
    throw new PermanentError(new TinyError("COMPONENT_NOT_REGISTERED", `component ${JSON.stringify(component)} is not registered (known: ${this.known()})`));
  }

  /** {@link Scheduler.dispatch}, failing at once when the destination node or port cannot appear. */
  override dispatch(msg: Msg, scope: HopScope): Promise<Result> {
    const [node, port] = parsePortAddress(msg.to);
    const runner = this.runner(node);
    if (runner === undefined) {
      if (node !== "" && !this.declared(node)) return Promise.resolve(fail(new UndeclaredNodeError(node, port)));
    } else if (port !== "" && !runner.hasPort(port) && this.settled()) {
      const known = runner.ports().map((p) => p.name);
      return Promise.resolve(fail(new UndeclaredPortError(node, runner.instance.definition.info.name, port, known)));
    }
    return super.dispatch(msg, scope);
  }
}
