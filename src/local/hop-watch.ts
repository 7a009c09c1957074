/**
 * Local mode's view of hops, through the scheduler's {@link Tracer} (the runner opens an input span
 * per delivered hop and an output span per emit, runtime-spec §2.8): which hops failed and where,
 * which mapping expressions failed on a payload (the runner adds an `expression_error` event to the
 * input span), and which ports components emit on. Every span is still recorded by the inner tracer.
 */
import type { HopSite, HopSpan, Tracer } from "../runtime/runner/tracer.ts";
import type { Result } from "../sdk/result.ts";
import type { Msg } from "../transport/types.ts";

/** What local mode is told about hops. */
export interface HopWatcher {
  /** A hop into `node`'s `port` (sent by `from`, a `node:port`, `""` or `"signal"`) ended with `error`. */
  inputFailed(node: string, port: string, from: string, error: Error): void;
  /** A mapping expression of the hop into `node`'s `port` failed; `message` names the expression and field. */
  expressionFailed(node: string, port: string, from: string, message: string): void;
  /** `node` emits on `port` (a data port or a `node:port` address; `_control`/`_reconcile` never reach here). */
  emitted(node: string, port: string): void;
  /** An emit of `node` on `port` resolved to a failure (its own, or one from further down the chain). */
  outputFailed(node: string, port: string, error: Error): void;
  /** True when {@link emitResult} should hear how `node`'s emits on `port` resolve (costs a `.then` per such emit). */
  wantsResult?(node: string, port: string): boolean;
  /** How an emit {@link wantsResult} asked for resolved (any kind: a success may carry a bad value). */
  emitResult?(node: string, port: string, result: Result): void;
}

/** Name of the span event the runner adds when an expression fails (src/runtime/runner/runner.ts `#input`). */
export const EXPRESSION_ERROR_EVENT = "expression_error";

class WatchedInput implements HopSpan {
  constructor(
    readonly inner: HopSpan,
    readonly watcher: HopWatcher,
    readonly node: string,
    readonly port: string,
    readonly from: string,
  ) {}
  get recording(): boolean {
    return this.inner.recording;
  }
  event(name: string, attributes?: Record<string, unknown>): void {
    if (name === EXPRESSION_ERROR_EVENT) this.watcher.expressionFailed(this.node, this.port, this.from, String(attributes?.error ?? "expression failed"));
    this.inner.event(name, attributes);
  }
  data(value: unknown): void {
    this.inner.data(value);
  }
  run<T>(fn: () => T): T {
    return this.inner.run(fn);
  }
  end(error?: Error): void {
    if (error) this.watcher.inputFailed(this.node, this.port, this.from, error);
    this.inner.end(error);
  }
}

class WatchedOutput implements HopSpan {
  /** Always true: the runner reports an emit's result through `end` only for a recording span. */
  readonly recording = true;
  constructor(
    readonly inner: HopSpan,
    readonly watcher: HopWatcher,
    readonly node: string,
    readonly port: string,
  ) {}
  event(name: string, attributes?: Record<string, unknown>): void {
    this.inner.event(name, attributes);
  }
  data(value: unknown): void {
    if (this.inner.recording) this.inner.data(value);
  }
  run<T>(fn: () => T): T {
    const out = this.inner.run(fn);
    // The runner runs the emit (a Promise<Result>) inside the output span.
    if (out instanceof Promise && this.watcher.emitResult && this.watcher.wantsResult?.(this.node, this.port)) {
      void out.then((r: Result) => this.watcher.emitResult!(this.node, this.port, r));
    }
    return out;
  }
  end(error?: Error): void {
    if (error) this.watcher.outputFailed(this.node, this.port, error);
    this.inner.end(error);
  }
}

/**
 * Wraps `inner` so `watcher` hears about every hop: input failures and expression errors per input
 * span, emits and their failures per output span. Costs one small object per hop and, per emit, the
 * `.then` the runner adds for a recording output span — local mode only (the developer loop).
 */
export function hopWatchingTracer(inner: Tracer, watcher: HopWatcher): Tracer {
  return {
    input(site: HopSite, port: string, msg: Msg): HopSpan {
      return new WatchedInput(inner.input(site, port, msg), watcher, site.name, port, msg.from);
    },
    output(site: HopSite, port: string, data: unknown): HopSpan {
      watcher.emitted(site.name, port);
      return new WatchedOutput(inner.output(site, port, data), watcher, site.name, port);
    },
    get active() {
      return inner.active;
    },
  };
}
