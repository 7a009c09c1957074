/**
 * A tap on the runner's spans (runtime-spec §2.8) for whoever reads a run the way the platform
 * reads its traces — `tinyhost eval` (./evals): every input span (key `to`, the full `node:port`)
 * and output span (key `port`, full) with the `data` payload it records (redacted JSON, the same
 * text an OTLP export carries) and the error an input span ends with. While nothing listens the
 * spans pass through untouched.
 */
import type { HopSite, HopSpan, Tracer } from "../runtime/runner/tracer.ts";
import type { HopMiddleware } from "../runtime/scheduler/middleware.ts";
import { redactedPayload } from "../telemetry/redact.ts";
import type { Msg } from "../core/hop.ts";

/** One span as it ended. */
export interface TappedSpan {
  /** `input` (a hop delivered to a port) or `output` (an emit). */
  kind: "input" | "output";
  /** The full port, `node:port`: Go's `to` attribute of an input span, `port` of an output span. */
  key: string;
  /** The `data` event's payload (redacted JSON); undefined when none was recorded (a hop that failed before decoding). */
  payload: string | undefined;
  /** The error an input span ended with (Go records it, unless a cancellation); output spans record none, as in Go. */
  error: Error | undefined;
  /** What the hop metered, unit → total (its `tiny.usage.<unit>` attributes); undefined when nothing. */
  usage?: ReadonlyMap<string, number>;
}

/** What a tap is told. */
export interface SpanListener {
  /** A span opened (in-flight work: a run is not settled while one is open). */
  opened(kind: TappedSpan["kind"], key: string): void;
  /** A span ended. */
  ended(span: TappedSpan): void;
}

/** The tap (a hop middleware around the runners' tracer, src/runtime/scheduler/middleware.ts) and its listeners. */
export class SpanTap implements HopMiddleware {
  readonly #listeners = new Set<SpanListener>();

  /** Adds `listener` until the returned function is called. */
  listen(listener: SpanListener): () => void {
    this.#listeners.add(listener);
    return () => void this.#listeners.delete(listener);
  }

  /** `inner`, with every span also reported to the listeners while there are any. */
  tracer(inner: Tracer): Tracer {
    const listeners = this.#listeners;
    return {
      input(site: HopSite, port: string, msg: Msg): HopSpan {
        const span = inner.input(site, port, msg);
        return listeners.size === 0 ? span : new TappedSpanImpl(span, [...listeners], "input", `${site.name}:${port}`, undefined, site.credentialKeys(port));
      },
      output(site: HopSite, port: string, data: unknown): HopSpan {
        const span = inner.output(site, port, data);
        if (listeners.size === 0) return span;
        const key = port.includes(":") ? port : `${site.name}:${port}`;
        return new TappedSpanImpl(span, [...listeners], "output", key, redactedPayload(data, { keys: site.credentialKeys(port) }), undefined);
      },
      get active() {
        return inner.active;
      },
    };
  }
}

class TappedSpanImpl implements HopSpan {
  readonly recording = true;
  #payload: string | undefined;
  constructor(
    readonly inner: HopSpan,
    /** The listeners when the span opened: one added later never hears of its end. */
    readonly listeners: readonly SpanListener[],
    readonly kind: TappedSpan["kind"],
    readonly key: string,
    payload: string | undefined,
    readonly keys: ReadonlySet<string> | undefined,
  ) {
    this.#payload = payload;
    for (const l of listeners) l.opened(kind, key);
  }
  event(name: string, attributes?: Record<string, unknown>): void {
    this.inner.event(name, attributes);
  }
  data(value: unknown): void {
    if (this.kind === "input") this.#payload = redactedPayload(value, this.keys ? { keys: this.keys } : undefined);
    if (this.inner.recording) this.inner.data(value);
  }
  run<T>(fn: () => T): T {
    return this.inner.run(fn);
  }
  #usage: ReadonlyMap<string, number> | undefined;
  usage(totals: ReadonlyMap<string, number>): void {
    this.#usage = new Map(totals);
    this.inner.usage(totals);
  }
  end(error?: Error): void {
    this.inner.end(error);
    const recorded = this.kind === "input" && error !== undefined && !isCancellation(error) ? error : undefined;
    for (const l of this.listeners)
      l.ended({ kind: this.kind, key: this.key, payload: this.#payload, error: recorded, ...(this.#usage ? { usage: this.#usage } : {}) });
  }
}

/** Go does not record `context.Canceled` on a span (runtime-spec §2.8). */
function isCancellation(err: Error): boolean {
  return (err as { code?: unknown }).code === "CANCELLED" || err.name === "AbortError";
}
