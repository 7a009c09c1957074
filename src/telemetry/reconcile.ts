/**
 * A span per reconcile (controllers: TinyNode, TinyModule, TinyComponent). Each reconcile is the
 * root of its own trace — it is caused by a watch event, not by a request — and the hops it causes
 * (settings delivery, `_reconcile` emits) become its children.
 */
import { context, ROOT_CONTEXT, SpanStatusCode, trace, type Attributes } from "@opentelemetry/api";
import { activeTracer } from "./tracing.ts";

/**
 * Runs `fn` inside a span named `reconcile <name>` (e.g. `reconcileSpan("TinyNode ns/name", …)`),
 * with `attributes` on it; a throw or rejection is recorded (status Error) and re-thrown unchanged.
 * When tracing is off, `fn()` is called as is.
 * @returns what `fn` returns.
 */
export async function reconcileSpan<T>(name: string, fn: () => T | Promise<T>, attributes?: Attributes): Promise<T> {
  const tracer = activeTracer();
  if (!tracer) return fn();
  const span = tracer.startSpan(`reconcile ${name}`, { root: true, ...(attributes ? { attributes } : {}) }, ROOT_CONTEXT);
  try {
    return await context.with(trace.setSpan(ROOT_CONTEXT, span), fn);
  } catch (err) {
    const e = err instanceof Error ? err : new Error(String(err));
    span.recordException(e);
    span.setStatus({ code: SpanStatusCode.ERROR, message: e.message });
    throw err;
  } finally {
    span.end();
  }
}
