/**
 * W3C trace context over gRPC metadata: the OpenTelemetry propagator reads and writes
 * `traceparent`/`baggage` entries. With no propagator configured (OTLP off) the global one is a
 * no-op, as in Go (runtime-spec §4.2, §16 item 25).
 */
import type { Metadata } from "@grpc/grpc-js";
import { context, propagation, type Context, type TextMapGetter, type TextMapSetter } from "@opentelemetry/api";

const getter: TextMapGetter<Metadata> = {
  keys: (md) => Object.keys(md.getMap()),
  get: (md, key) => {
    const vals = md.get(key).filter((v): v is string => typeof v === "string");
    return vals.length === 0 ? undefined : vals.length === 1 ? vals[0] : vals;
  },
};

const setter: TextMapSetter<Metadata> = {
  set: (md, key, value) => md.set(key, value),
};

/** Writes the active trace context into outgoing call metadata (client side). */
export function injectTrace(md: Metadata): void {
  propagation.inject(context.active(), md, setter);
}

/** The context of the caller's trace, read from incoming call metadata (server side). */
export function extractTrace(md: Metadata): Context {
  return propagation.extract(context.active(), md, getter);
}
