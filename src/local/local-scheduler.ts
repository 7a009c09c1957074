/**
 * The scheduler of local mode: the runtime's {@link Scheduler}, except that a hop to a node no
 * manifest declares, or to a port its running node does not declare while no reconcile is pending,
 * fails at once. A cluster scheduler waits (runtime-spec §3.2: up to 30 s in Go,
 * `DEFAULT_READY_TIMEOUT_MS`, 5 s, here) because the node may simply not be reconciled yet; local
 * mode reads every manifest before it runs anything, and ports change only on reconcile (settings),
 * so neither will appear — each request would only wait and then fail. Hops to declared nodes that
 * are starting, or during a reconcile, keep the wait.
 * A node that cannot run here — an unknown component, one its platform module does not have, a
 * module tinyhost has no component of (./modules.ts) — fails its reconcile with the reason, and a
 * hop to it fails at once with the same reason instead of waiting for a runner that never comes.
 */
import { Scheduler, type SchedulerOptions } from "../runtime/scheduler/scheduler.ts";
import { PermanentError, TinyError } from "../core/errors.ts";
import type { TinyNode, TinyNodeStatus } from "../core/node.ts";
import type { HopScope } from "../runtime/runner/scope.ts";
import { fail, type Result } from "../core/result.ts";
import { parsePortAddress, type Msg } from "../core/hop.ts";
import { UndeclaredNodeError, UndeclaredPortError } from "./errors.ts";

/** A hop to a node local mode cannot run (its reason is the message). code `"NODE_NOT_RUNNABLE"`. */
export class NotRunnableError extends TinyError {
  /** @param node the node's name; @param reason why it cannot run (./modules.ts `refusal`). */
  constructor(node: string, reason: string) {
    super("NODE_NOT_RUNNABLE", `node ${node} cannot run here: ${reason}`);
  }
}

/** A {@link Scheduler} that fails hops to undeclared nodes with {@link UndeclaredNodeError}. */
export class LocalScheduler extends Scheduler {
  /**
   * @param options as for {@link Scheduler}.
   * @param declared true when a manifest declares node `name` (read live: manifests change).
   * @param settled true when no reconcile is queued or running (ports cannot change until one runs).
   * @param known the registered component names, for the unknown-component status (`a, b` or `none`).
   * @param refusal why node `name` of component `component` cannot run, or undefined when it can
   *   (default: the component is not registered).
   */
  constructor(
    options: SchedulerOptions,
    readonly declared: (name: string) => boolean,
    readonly settled: () => boolean = () => false,
    readonly known: () => string = () => "none",
    refusal?: (name: string, component: string) => string | undefined,
  ) {
    super(options);
    this.refusal =
      refusal ??
      ((_name, component) => (this.installed(component) ? undefined : `component ${JSON.stringify(component)} is not registered (known: ${this.known()})`));
  }

  /** Why node `name` of component `component` cannot run here, or undefined when it can. */
  readonly refusal: (name: string, component: string) => string | undefined;

  /** Nodes whose last reconcile was refused, with the reason (a hop to one fails at once). */
  readonly #refused = new Map<string, string>();

  /**
   * {@link Scheduler.update}; a node that cannot run (an unknown component: `component "x" is not
   * registered (known: …)`, see {@link refusal}) fails, and a runner a reconcile left behind while
   * the component went is stopped too.
   * @throws PermanentError wrapping code `COMPONENT_NOT_REGISTERED` with the reason.
   */
  override async update(node: TinyNode): Promise<TinyNodeStatus> {
    const name = node.metadata.name;
    const component = node.spec.component;
    const reason = this.refusal(name, component);
    if (reason === undefined) {
      this.#refused.delete(name);
      return super.update(node);
    }
    if (this.runner(name)) {
      if (!this.installed(component)) await this.uninstall(component);
      else await this.destroy(name); // its spec moved to a component it may not run
    }
    this.#refused.set(name, reason);
    throw new PermanentError(new TinyError("COMPONENT_NOT_REGISTERED", reason));
  }

  /** {@link Scheduler.destroy}, forgetting a refusal. */
  override async destroy(name: string): Promise<void> {
    this.#refused.delete(name);
    await super.destroy(name);
  }

  /** {@link Scheduler.dispatch}, failing at once when the destination node or port cannot appear. */
  override dispatch(msg: Msg, scope: HopScope): Promise<Result> {
    const [node, port] = parsePortAddress(msg.to);
    const runner = this.runner(node);
    if (runner === undefined) {
      if (node !== "" && !this.declared(node)) return Promise.resolve(fail(new UndeclaredNodeError(node, port)));
      const reason = this.#refused.get(node);
      if (reason !== undefined) return Promise.resolve(fail(new NotRunnableError(node, reason)));
    } else if (port !== "" && !runner.hasPort(port) && this.settled()) {
      const known = runner.ports().map((p) => p.name);
      return Promise.resolve(fail(new UndeclaredPortError(node, runner.instance.definition.info.name, port, known)));
    }
    return super.dispatch(msg, scope);
  }
}
