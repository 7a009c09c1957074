/**
 * The fault guard: every call the runtime makes into component code — handle,
 * every hook, `ports()`, `_reconcile` updaters, and the SDK's timer/task/background-loop helpers —
 * goes through a {@link NodeGuard}, so a throw becomes that node's fault: an error naming node,
 * component and site, one structured log line with the node name, and a count in
 * {@link componentFaults} (the `tinyhost_component_faults_total{site}` series). Nothing a component
 * throws reaches the process; the process-level handlers (src/cli/last-resort.ts) are only for code
 * that bypassed these helpers. docs/operations.md "Component faults" lists the sites.
 */
import type { ComponentLogger } from "../../core/context.ts";
import { TinyError } from "../../core/errors.ts";
import { toError } from "../../core/result.ts";
import { statusText } from "../../k8s/status-text.ts";

/**
 * Where component code threw. `state()` is the per-node state factory (a new runner); hook names
 * are the SDK's (runtime-spec §1.5); `ports()` is a re-read of
 * the port list (§2.6); `_reconcile updater` a function emitted on `_reconcile` (§2.4); `timer`,
 * `task`, `background loop` the SDK helpers of src/sdk/node-timers.ts and background-loop.ts.
 */
export type FaultSite =
  | "state()"
  | "handle"
  | "onSettings"
  | "onControl"
  | "onIdentity"
  | "onClient"
  | "onNats"
  | "onState"
  | "onEmitter"
  | "onReconcile"
  | "onDestroy"
  | "ports()"
  | "_reconcile updater"
  | "timer"
  | "task"
  | "background loop";

/**
 * A component threw (or rejected) at `site` of node `node`. code `"COMPONENT_FAULT"`; `cause` is
 * what it threw. The message is what the node's `status.status` shows.
 */
export class ComponentFaultError extends TinyError<"COMPONENT_FAULT"> {
  /**
   * @param node - TinyNode name. @param component - component name (`info.name`).
   * @param site - where it threw. @param cause - the thrown value.
   */
  constructor(
    readonly node: string,
    readonly component: string,
    readonly site: FaultSite,
    cause: unknown,
  ) {
    // The cause keeps the whole text; the message (status, log lines) is bounded (status-text.ts).
    super("COMPONENT_FAULT", `node ${node} (component ${component}) failed in ${site}: ${statusText(toError(cause).message)}`, { cause });
  }
}

/**
 * Process-wide fault counts (one module per process, so one set of series): per site, and the
 * errors only the process-level last resort caught (`tinyhost_uncaught_errors_total`).
 */
export const componentFaults: { bySite: Partial<Record<FaultSite, number>>; uncaught: number } = { bySite: {}, uncaught: 0 };

/** Sites whose throw answers a hop: the hop's caller gets the error (runtime-spec §2.2), the log line is debug. */
const HOP_SITES: ReadonlySet<FaultSite> = new Set(["handle", "onControl"]);

/** What a guard reports to: the node it belongs to. */
export interface GuardTarget {
  /** TinyNode name. */
  readonly node: string;
  /** Component name. */
  readonly component: string;
  /** The node's logger; it binds `node` (the scheduler's child logger per node), the guard's lines rely on that. */
  readonly log: ComponentLogger;
  /** The node's lifetime signal: the SDK helpers find this guard through it ({@link guardOf}). */
  readonly lifetime: AbortSignal;
  /** Called for a fault the node's status must show (timers, tasks, loops, ports(), updaters). */
  onFault(err: ComponentFaultError): void;
}

const byLifetime = new WeakMap<AbortSignal, NodeGuard>();

/**
 * Counts and logs a throw at `site` of `who` and wraps it — {@link NodeGuard.record}, also used
 * before a node has a runner (its `state()` factory threw).
 * @returns the {@link ComponentFaultError} naming node, component and site.
 */
export function recordFault(who: Pick<GuardTarget, "node" | "component" | "log">, site: FaultSite, err: unknown): ComponentFaultError {
  const fault = err instanceof ComponentFaultError ? err : new ComponentFaultError(who.node, who.component, site, err);
  componentFaults.bySite[site] = (componentFaults.bySite[site] ?? 0) + 1;
  // The message leaves the error text to `err` (the local terminal prints both). The node's logger
  // already binds `node`, and `component` names the subsystem in every log line: repeating either
  // key here gave lines with duplicate JSON keys, so the component goes as `componentName`.
  const line = { componentName: who.component, site, err: statusText(toError(err).message) };
  const msg = `component ${who.component} failed in ${site}`;
  if (HOP_SITES.has(site)) who.log.debug(line, msg);
  else who.log.error(line, msg);
  return fault;
}

/** The guard of the node whose lifetime signal is `signal` (`ctx.nodeSignal`), if a runner owns it. */
export function guardOf(signal: AbortSignal): NodeGuard | undefined {
  return byLifetime.get(signal);
}

/**
 * One node's guard, owned by its runner: {@link record} for throws the caller answers with
 * (hooks of a reconcile, hops), {@link fault} for throws only the status can show, {@link call} and
 * {@link hook} to run component code inside it. Registered under the node's lifetime signal so the
 * SDK helpers find it ({@link guardOf}).
 */
export class NodeGuard {
  constructor(readonly target: GuardTarget) {
    byLifetime.set(target.lifetime, this);
  }

  /**
   * Counts and logs a throw at `site` and wraps it. Does not touch the status: callers that answer
   * (hooks in a reconcile, hops) carry the returned error themselves.
   * @returns the {@link ComponentFaultError} naming node, component and site.
   */
  record(site: FaultSite, err: unknown): ComponentFaultError {
    return recordFault(this.target, site, err);
  }

  /** {@link record}, then the node's status shows the fault until its spec changes. */
  fault(site: FaultSite, err: unknown): ComponentFaultError {
    const fault = this.record(site, err);
    this.target.onFault(fault);
    return fault;
  }

  /**
   * Runs synchronous component code; a throw becomes a status fault and `fallback` is returned.
   * @returns `fn()`'s value, or `fallback` after a throw.
   */
  call<T>(site: FaultSite, fn: () => T, fallback: T): T {
    try {
      return fn();
    } catch (err) {
      this.fault(site, err);
      return fallback;
    }
  }

  /**
   * Runs a hook (sync or async) inside a reconcile or a stop.
   * @throws ComponentFaultError (already counted and logged) when it throws or rejects.
   */
  async hook(site: FaultSite, fn: () => unknown): Promise<void> {
    try {
      await fn();
    } catch (err) {
      throw this.record(site, err);
    }
  }
}
