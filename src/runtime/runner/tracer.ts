/**
 * Tracing hooks of the runner (runtime-spec §2.8): an input span per delivered hop, an output span
 * per emit whose context is active while the emit is sent — so the downstream hop (in-process, or
 * across NATS/gRPC, whose transports inject the active context) becomes its child.
 *
 * {@link otelTracer} records through the tracer {@link setupTracing} installed and hands out the
 * allocation-free {@link noopSpan} while tracing is off; {@link noopTracer} never records.
 */
import { context, SpanStatusCode, trace, type Attributes, type AttributeValue, type Context, type Span } from "@opentelemetry/api";
import { noopTrace, type HopTrace } from "../../core/context.ts";
import type { NodeIdentity } from "../../core/node.ts";
import { ERROR_PORT } from "../../core/ports.ts";
import { uuidV1 } from "../../telemetry/ids.ts";
import { redactedPayload } from "../../telemetry/redact.ts";
import { maskSecretValues } from "../../telemetry/secret-values.ts";
import { USAGE_ATTR_PREFIX } from "../../core/usage.ts";
import { activeTracer } from "../../telemetry/tracing.ts";
import type { Msg } from "../../core/hop.ts";

/** The node a span belongs to (a Runner). */
export interface HopSite {
  /** Node name. */
  readonly name: string;
  /** Flow/project labels → `flowID`/`projectID` attributes. */
  readonly identity: NodeIdentity;
  /** Keys masked in `port`'s payloads whatever their value (runtime-spec §2.8 redaction rules 1–2). */
  credentialKeys(port: string): ReadonlySet<string>;
}

/** A span for one input or output hop. */
export interface HopSpan extends HopTrace {
  /** False for the no-op span: callers skip work that only feeds the span. */
  readonly recording: boolean;
  /** Adds the `data` event with the redacted JSON of `value` as `payload` (runtime-spec §2.8). */
  data(value: unknown): void;
  /** Runs `fn` with this span as the active context (its awaits keep it, via AsyncLocalStorage). */
  run<T>(fn: () => T): T;
  /** Writes what the hop metered (unit → total) as `tiny.usage.<unit>` attributes (Go runner `addSpanUsage`). */
  usage(totals: ReadonlyMap<string, number>): void;
  /** Ends the span, recording `error` (status Error) unless it is a cancellation (Go skips context.Canceled). */
  end(error?: Error): void;
}

/** Opens spans for hops (runtime-spec §2.8). */
export interface Tracer {
  /** Span for `msg` arriving on `site`'s `port`; parent = the active context (remote or in-process caller). */
  input(site: HopSite, port: string, msg: Msg): HopSpan;
  /** Span for `site` emitting `data` on `port`; parent = the active context (the hop being handled). */
  output(site: HopSite, port: string, data: unknown): HopSpan;
  /** Trace hook that adds events to whichever span is active (lifecycle hooks get this). */
  readonly active: HopTrace;
}

/** The span that records nothing; `run` is a plain call. */
export const noopSpan: HopSpan = Object.freeze({
  recording: false,
  event: noopTrace.event,
  data() {},
  usage() {},
  run<T>(fn: () => T): T {
    return fn();
  },
  end() {},
});

/** A tracer that records nothing. */
export const noopTracer: Tracer = Object.freeze({
  input: () => noopSpan,
  output: () => noopSpan,
  active: noopTrace,
});

function attributeValue(v: unknown): AttributeValue {
  if (typeof v === "string" || typeof v === "number" || typeof v === "boolean") return v;
  if (v instanceof Error) return v.message;
  try {
    return JSON.stringify(v) ?? String(v);
  } catch {
    return String(v);
  }
}

function toAttributes(attrs: Record<string, unknown> | undefined): Attributes | undefined {
  if (!attrs) return undefined;
  const out: Attributes = {};
  for (const [k, v] of Object.entries(attrs)) if (v !== undefined && v !== null) out[k] = attributeValue(v);
  return out;
}

function isCancellation(err: Error): boolean {
  return (err as { code?: unknown }).code === "CANCELLED" || err.name === "AbortError";
}

class OtelHopSpan implements HopSpan {
  readonly recording = true;
  readonly #span: Span;
  readonly #ctx: Context;
  readonly #site: HopSite;
  readonly #port: string;

  constructor(span: Span, parent: Context, site: HopSite, port: string) {
    this.#span = span;
    this.#ctx = trace.setSpan(parent, span);
    this.#site = site;
    this.#port = port;
  }
  event(name: string, attributes?: Record<string, unknown>): void {
    this.#span.addEvent(name, toAttributes(attributes));
  }
  data(value: unknown): void {
    this.#span.addEvent("data", { payload: redactedPayload(value, { keys: this.#site.credentialKeys(this.#port) }) });
  }
  run<T>(fn: () => T): T {
    return context.with(this.#ctx, fn);
  }
  usage(totals: ReadonlyMap<string, number>): void {
    for (const [unit, amount] of totals) this.#span.setAttribute(USAGE_ATTR_PREFIX + unit, amount);
  }
  end(error?: Error): void {
    if (error && !isCancellation(error)) {
      const message = maskSecretValues(error.message);
      this.#span.recordException(
        message === error.message ? error : { name: error.name, message, ...(error.stack ? { stack: maskSecretValues(error.stack) } : {}) },
      );
      this.#span.setStatus({ code: SpanStatusCode.ERROR, message });
    }
    this.#span.end();
  }
}

/** Adds events to the active span, if any. */
const activeTrace: HopTrace = Object.freeze({
  event(name: string, attributes?: Record<string, unknown>): void {
    trace.getActiveSpan()?.addEvent(name, toAttributes(attributes));
  },
});

/** `message` of an `error`-port emit (runtime-spec §2.8): the payload's `error` field, else a fixed text. */
function errorPortMessage(data: unknown): string {
  const e = data !== null && typeof data === "object" ? (data as Record<string, unknown>).error : undefined;
  return typeof e === "string" && e !== "" ? e : "component emitted on its error port";
}

/**
 * The OpenTelemetry hop tracer (runtime-spec §2.8). Span names are UUID v1 strings as in Go; input
 * attributes `to`, `from`, `edgeID`, `flowID`, `projectID`; output attributes `port`, `flowID`,
 * `projectID`; both carry a `data` event with the redacted payload (input: added by the runner once
 * the typed input exists); an emit on `error` adds an `error` event marked `handled: true`.
 */
export const otelTracer: Tracer = Object.freeze({
  input(site: HopSite, port: string, msg: Msg): HopSpan {
    const tracer = activeTracer();
    if (!tracer) return noopSpan;
    const parent = context.active();
    const span = tracer.startSpan(
      uuidV1(),
      {
        attributes: {
          to: msg.to,
          from: msg.from,
          edgeID: msg.edgeId,
          flowID: site.identity.flowName,
          projectID: site.identity.projectName,
        },
      },
      parent,
    );
    return new OtelHopSpan(span, parent, site, port);
  },
  output(site: HopSite, port: string, data: unknown): HopSpan {
    const tracer = activeTracer();
    if (!tracer) return noopSpan;
    const parent = context.active();
    const span = tracer.startSpan(
      uuidV1(),
      { attributes: { port: `${site.name}:${port}`, flowID: site.identity.flowName, projectID: site.identity.projectName } },
      parent,
    );
    const hop = new OtelHopSpan(span, parent, site, port);
    hop.data(data);
    if (port === ERROR_PORT) {
      span.addEvent("error", { "exception.message": errorPortMessage(data), port: `${site.name}:${port}`, handled: true });
    }
    return hop;
  },
  active: activeTrace,
});
