/**
 * W3C trace context across the NATS wire (runtime-spec §4.2: `traceparent`/`tracestate`/`baggage`,
 * written as `Traceparent`/… by the codec, runtime-spec §17). Uses the global OpenTelemetry
 * propagator, which is a no-op until telemetry installs one — so, as in Go, nothing is injected
 * when tracing is off (runtime-spec §16 item 25).
 */
import { context, propagation } from "@opentelemetry/api";
import type { TraceCarrier } from "./wire.ts";

/** The trace headers of the active context (empty object when no propagator is configured). */
export function injectTrace(): TraceCarrier {
  const carrier: Record<string, string> = {};
  propagation.inject(context.active(), carrier);
  return carrier;
}

/** Runs `fn` with the remote parent carried by `carrier` as the active context (plain call when empty). */
export function withRemoteTrace<T>(carrier: TraceCarrier, fn: () => T): T {
  if (!carrier.traceparent && !carrier.tracestate && !carrier.baggage) return fn();
  return context.with(propagation.extract(context.active(), carrier), fn);
}
