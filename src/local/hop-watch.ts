/**
 * Local mode's view of hops, through the scheduler's {@link Tracer} (the runner opens an input span
 * per delivered hop and an output span per emit, runtime-spec §2.8): which hops failed and where,
 * which mapping expressions failed on a payload (the runner adds an `expression_error` event to the
 * input span), which ports components emit on, and — for the hops a watcher asks for — a
 * {@link HopRecord} of the whole hop (payload, result, duration) for the console and the debug
 * lines. Every span is still recorded by the inner tracer.
 */
import type { HopSite, HopSpan, Tracer } from "../runtime/runner/tracer.ts";
import type { HopMiddleware } from "../runtime/scheduler/middleware.ts";
import { toResult, type Result } from "../core/result.ts";
import { redactedPayload } from "../telemetry/redact.ts";
import { maskedError } from "../telemetry/secret-values.ts";
import type { Msg } from "../core/hop.ts";

/** Longest payload or result text a {@link HopRecord} keeps, characters (longer ones are cut, marked `…`). */
export const HOP_TEXT_CHARS = 4096;

/**
 * One delivered hop, as it ended. Texts are redacted JSON (runtime-spec §2.8 rules, the port's
 * schema-marked keys included), cut at {@link HOP_TEXT_CHARS}: taken when the runner decoded the
 * payload, so a component that mutates its input later does not change what was recorded.
 */
export interface HopRecord {
  /** Receiving node. */
  node: string;
  /** Receiving port. */
  port: string;
  /** Sender: `node:port`, `"signal"` (an outside send) or `""` (the runtime, e.g. a settings delivery). */
  from: string;
  /** Edge id (`""` for direct sends). */
  edgeId: string;
  /** The port data as the component received it (after the edge mapping and decoding); undefined when the hop failed before. */
  data: string | undefined;
  /**
   * The handler's result: `ok` with its value's text, `empty`, or `fail`; undefined when the
   * handler did not run (the hop failed before it, or the runner dropped it: settings re-delivered
   * unchanged by a reconcile, runtime-spec §2.2 step 6).
   */
  result: { kind: "ok"; value: string } | { kind: "empty" } | { kind: "fail" } | undefined;
  /** The error the hop ended with (its own, or one returned from further down the chain). */
  error: Error | undefined;
  /** Mapping expressions that failed on this payload (the field became null, runtime-spec §2.11). */
  expressionErrors: string[];
  /** Wall-clock start, ms since the epoch. */
  startedAt: number;
  /** Time from delivery to the end of the handler (its downstream chain included), ms. */
  durationMs: number;
}

/** `value` as redacted JSON text of at most {@link HOP_TEXT_CHARS} characters. */
export function hopText(value: unknown, keys?: ReadonlySet<string>): string {
  const text = redactedPayload(value, keys ? { keys } : undefined);
  return text.length > HOP_TEXT_CHARS ? `${text.slice(0, HOP_TEXT_CHARS)}…` : text;
}

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
  /** True when {@link hop} should hear of hops into `node`'s `port` (costs a JSON text of payload and result per hop). */
  wantsHop?(node: string, port: string): boolean;
  /** A hop {@link wantsHop} asked for ended. */
  hop?(record: HopRecord): void;
}

/** Name of the span event the runner adds when an expression fails (src/runtime/runner/runner.ts `#input`). */
export const EXPRESSION_ERROR_EVENT = "expression_error";

class WatchedInput implements HopSpan {
  /** The record being filled; undefined when the watcher did not ask for this hop. */
  readonly #record: HopRecord | undefined;
  readonly #t0: number;

  constructor(
    readonly inner: HopSpan,
    readonly watcher: HopWatcher,
    readonly site: HopSite,
    readonly port: string,
    readonly msg: Msg,
  ) {
    const node = site.name;
    this.#t0 = performance.now();
    this.#record = watcher.wantsHop?.(node, port)
      ? {
          node,
          port,
          from: msg.from,
          edgeId: msg.edgeId,
          data: undefined,
          result: undefined,
          error: undefined,
          expressionErrors: [],
          startedAt: Date.now(),
          durationMs: 0,
        }
      : undefined;
  }
  /** True for the inner span's recording, and for a watched hop (the runner then hands over the decoded payload). */
  get recording(): boolean {
    return this.#record !== undefined || this.inner.recording;
  }
  event(name: string, attributes?: Record<string, unknown>): void {
    if (name === EXPRESSION_ERROR_EVENT) {
      const message = String(attributes?.error ?? "expression failed");
      this.#record?.expressionErrors.push(message);
      this.watcher.expressionFailed(this.site.name, this.port, this.msg.from, message);
    }
    this.inner.event(name, attributes);
  }
  data(value: unknown): void {
    if (this.#record) this.#record.data = hopText(value, this.site.credentialKeys(this.port));
    if (this.inner.recording) this.inner.data(value);
  }
  run<T>(fn: () => T): T {
    const out = this.inner.run(fn);
    const record = this.#record;
    if (!record) return out;
    // The runner runs the handler inside the input span and awaits what it returns; this reaction
    // is registered first, so the result is known when the runner ends the span.
    if (out instanceof Promise)
      void out.then(
        (v: unknown) => (record.result = resultOf(v)),
        () => {},
      );
    else record.result = resultOf(out);
    return out;
  }
  usage(totals: ReadonlyMap<string, number>): void {
    this.inner.usage(totals);
  }
  end(failure?: Error): void {
    const error = failure && maskedError(failure); // the terminal and console never show a resolved secret
    if (error) this.watcher.inputFailed(this.site.name, this.port, this.msg.from, error);
    this.inner.end(failure);
    const record = this.#record;
    if (!record) return;
    record.error = error;
    record.durationMs = performance.now() - this.#t0;
    this.watcher.hop?.(record);
  }
}

function resultOf(v: unknown): HopRecord["result"] {
  const r = toResult(v);
  return r.kind === "ok" ? { kind: "ok", value: hopText(r.value) } : { kind: r.kind };
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
  usage(totals: ReadonlyMap<string, number>): void {
    this.inner.usage(totals);
  }
  end(failure?: Error): void {
    const error = failure && maskedError(failure);
    if (error) this.watcher.outputFailed(this.node, this.port, error);
    this.inner.end(failure);
  }
}

/**
 * Wraps `inner` so `watcher` hears about every hop: input failures and expression errors per input
 * span, emits and their failures per output span, and a {@link HopRecord} of each hop it asks for.
 * Costs one small object per hop and, per emit, the `.then` the runner adds for a recording output
 * span — local mode only (the developer loop).
 */
export function hopWatchingTracer(inner: Tracer, watcher: HopWatcher): Tracer {
  return {
    input(site: HopSite, port: string, msg: Msg): HopSpan {
      return new WatchedInput(inner.input(site, port, msg), watcher, site, port, msg);
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

/** {@link hopWatchingTracer} as hop middleware for the scheduler (src/runtime/scheduler/middleware.ts). */
export function hopWatching(watcher: HopWatcher): HopMiddleware {
  return { tracer: (next) => hopWatchingTracer(next, watcher) };
}
