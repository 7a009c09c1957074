/**
 * A server span per incoming HTTP request on a component's HTTP server (http_server): the request
 * continues the caller's W3C `traceparent` when it sends one, else starts its own trace. Running the
 * flow inside {@link HttpServerSpan.run} makes the emitted hop a child of the request span.
 *
 * The caller's context is extracted onto the ROOT context, never onto whatever is active where the
 * server was started (AsyncLocalStorage would otherwise hand every request the context that was
 * active at `Bun.serve` time and join unrelated requests into one trace).
 */
import { context, propagation, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, type Context, type Span, type TextMapGetter } from "@opentelemetry/api";
import { activeTracer } from "./tracing.ts";

/** The span of one HTTP request. */
export interface HttpServerSpan {
  /** False when tracing is off (then every method is a no-op and `run` a plain call). */
  readonly recording: boolean;
  /** W3C trace id (32 hex chars), or `""` when not recording. */
  readonly traceId: string;
  /** Runs `fn` with the request span active (the flow the request triggers belongs to its trace). */
  run<T>(fn: () => T): T;
  /**
   * Ends the span with the response status (`http.response.status_code`; ≥ 500 marks it Error) or
   * the error that prevented a response. Call once.
   */
  end(status: number | Error): void;
}

const headerGetter: TextMapGetter<Headers> = {
  keys: (h) => [...h.keys()],
  get: (h, key) => h.get(key) ?? undefined,
};

const notRecording: HttpServerSpan = Object.freeze({
  recording: false,
  traceId: "",
  run<T>(fn: () => T): T {
    return fn();
  },
  end() {},
});

class RequestSpan implements HttpServerSpan {
  readonly recording = true;
  readonly #span: Span;
  readonly #ctx: Context;
  constructor(span: Span, parent: Context) {
    this.#span = span;
    this.#ctx = trace.setSpan(parent, span);
  }
  get traceId(): string {
    return this.#span.spanContext().traceId;
  }
  run<T>(fn: () => T): T {
    return context.with(this.#ctx, fn);
  }
  end(status: number | Error): void {
    if (typeof status === "number") {
      this.#span.setAttribute("http.response.status_code", status);
      if (status >= 500) this.#span.setStatus({ code: SpanStatusCode.ERROR });
    } else {
      this.#span.recordException(status);
      this.#span.setStatus({ code: SpanStatusCode.ERROR, message: status.message });
    }
    this.#span.end();
  }
}

/**
 * Starts the server span of `request` (OTel HTTP semantic conventions: name `"<METHOD>"`, kind
 * SERVER, `http.request.method`, `url.path`, `url.scheme`, `server.address`). Parent = the
 * request's `traceparent`/`baggage` (W3C Trace Context), if any; else a new trace.
 * Near-free when tracing is off.
 */
export function startHttpServerSpan(request: Request): HttpServerSpan {
  const tracer = activeTracer();
  if (!tracer) return notRecording;
  const parent = request.headers.has("traceparent") ? propagation.extract(ROOT_CONTEXT, request.headers, headerGetter) : ROOT_CONTEXT;
  let path = "";
  let scheme = "";
  let host = "";
  try {
    const u = new URL(request.url);
    path = u.pathname;
    scheme = u.protocol.replace(/:$/, "");
    host = u.hostname;
  } catch {
    // a relative URL (tests): leave the URL attributes empty
  }
  const span = tracer.startSpan(
    request.method,
    { kind: SpanKind.SERVER, attributes: { "http.request.method": request.method, "url.path": path, "url.scheme": scheme, "server.address": host } },
    parent,
  );
  return new RequestSpan(span, parent);
}
