/**
 * What the runtime hands a component on every call: the per-node context, the output function and
 * the long-lived emitter.
 */
import type { Result } from "./result.ts";
import type { NodeIdentity } from "./node.ts";
import type { Cancellation, LazyAbort } from "./lazy-abort.ts";

/** The logging surface components get (a pino child logger satisfies it). */
export interface ComponentLogger {
  debug(obj: object | string, msg?: string): void;
  info(obj: object | string, msg?: string): void;
  warn(obj: object | string, msg?: string): void;
  error(obj: object | string, msg?: string): void;
}

/** Trace hook for the current hop (runtime-spec §2.8). A no-op until telemetry lands. */
export interface HopTrace {
  /** Records a span event, e.g. `trace.event("cache_miss", { key })`. */
  event(name: string, attributes?: Record<string, unknown>): void;
}

/** The no-op {@link HopTrace}. */
export const noopTrace: HopTrace = Object.freeze({ event() {} });

/**
 * Context of one call into a component (handle, or a lifecycle hook).
 * `S` is the component's per-node instance state.
 */
export interface ComponentContext<S> {
  /** Per-node instance state created by the definition's `state()` factory. */
  readonly self: S;
  /** Identity of this node (runtime-spec §1.4). */
  readonly node: NodeIdentity;
  /** True while this pod holds the module's Lease (runtime-spec §6). Live value. */
  readonly isLeader: boolean;
  /**
   * Aborts when this call should stop: the node stops, or the caller (an upstream hop, an HTTP
   * client) gave up. For lifecycle hooks it is the node's lifetime signal.
   */
  readonly signal: AbortSignal;
  /** Aborts only when the node stops (or is deleted). Use it for background loops. */
  readonly nodeSignal: AbortSignal;
  /** Node part of the incoming hop's `from` (`""` for signals, hooks and emits without a source). */
  readonly sourceNode: string;
  /** Logger bound to this node. */
  readonly log: ComponentLogger;
  /** Trace hook of this hop (no-op for now). */
  readonly trace: HopTrace;
}

/**
 * Sends `data` on `port` (a source port of this node, a system port `_control`/`_reconcile`, or a
 * full `"node:port"` address) and resolves to the downstream Result — a blocking caller gets its
 * response this way (runtime-spec §1.2, §2.4). Never rejects: failures arrive as `fail` results.
 */
export type OutputFn = (port: string, data?: unknown) => Promise<Result>;

/**
 * A long-lived {@link OutputFn} for background work (timers, servers), handed to `onEmitter`
 * (runtime-spec §1.5). Hops it sends start at depth 0; `signal` (an AbortSignal, or a
 * {@link LazyAbort} whose signal is built only if something down the chain needs one) cancels the
 * downstream chain.
 */
export type Emitter = (port: string, data?: unknown, signal?: Cancellation) => Promise<Result>;
