/**
 * The OpenTelemetry SDK side of tracing: resource, OTLP exporters, and the classes
 * {@link setupTracing} (./tracing.ts) builds a provider from. Loaded only when tracing is
 * configured, so a run without OTLP never loads the SDK, the exporters or grpc-js.
 */
import { OTLPTraceExporter as OtlpGrpcTraceExporter } from "@opentelemetry/exporter-trace-otlp-grpc";
import { OTLPTraceExporter as OtlpHttpTraceExporter } from "@opentelemetry/exporter-trace-otlp-http";
import { resourceFromAttributes, type Resource } from "@opentelemetry/resources";
import type { SpanExporter } from "@opentelemetry/sdk-trace";
import { credentials, Metadata } from "@grpc/grpc-js";
import { OtelConfigError, type Env, type TracingOn } from "./config.ts";

export { AlwaysOnSampler, BatchSpanProcessor, TracerProvider } from "@opentelemetry/sdk-trace";
export { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
export { CompositePropagator, W3CBaggagePropagator, W3CTraceContextPropagator } from "@opentelemetry/core";
export { TimeOrderedIdGenerator } from "./ids.ts";

/**
 * `OTEL_RESOURCE_ATTRIBUTES` (`k=v,…`, percent-encoded values) then `OTEL_SERVICE_NAME` over the
 * defaults `service.name` / `service.version` (OTel SDK environment spec; Go `resource.WithFromEnv`).
 * @throws OtelConfigError for an entry without `=`.
 */
export function tracingResource(serviceName: string, serviceVersion: string | undefined, env: Env): Resource {
  const attrs: Record<string, string> = { "service.name": serviceName };
  if (serviceVersion) attrs["service.version"] = serviceVersion;
  const raw = env.OTEL_RESOURCE_ATTRIBUTES;
  if (raw) {
    for (const part of raw.split(",")) {
      if (part.trim() === "") continue;
      const i = part.indexOf("=");
      if (i <= 0) throw new OtelConfigError("OTEL_RESOURCE_ATTRIBUTES", raw, `entry ${JSON.stringify(part.trim())} is not key=value`);
      let v: string;
      try {
        v = decodeURIComponent(part.slice(i + 1).trim());
      } catch {
        v = part.slice(i + 1).trim();
      }
      attrs[part.slice(0, i).trim()] = v;
    }
  }
  if (env.OTEL_SERVICE_NAME) attrs["service.name"] = env.OTEL_SERVICE_NAME;
  return resourceFromAttributes(attrs);
}

type GrpcExporterConfig = NonNullable<ConstructorParameters<typeof OtlpGrpcTraceExporter>[0]>;
type HttpExporterConfig = NonNullable<ConstructorParameters<typeof OtlpHttpTraceExporter>[0]>;

/**
 * The OTLP exporter for `config`: OTLP/gRPC (Go's transport; `@grpc/grpc-js`, measured working
 * under Bun) or OTLP/HTTP with JSON bodies.
 */
export function createOtlpExporter(config: TracingOn): SpanExporter {
  if (config.protocol === "grpc") {
    const metadata = new Metadata();
    for (const [k, v] of Object.entries(config.headers)) metadata.set(k, v);
    const opts: GrpcExporterConfig = {
      url: config.url,
      metadata,
      credentials: config.tls ? credentials.createSsl() : credentials.createInsecure(),
    };
    if (config.gzip) opts.compression = "gzip" as GrpcExporterConfig["compression"];
    return new OtlpGrpcTraceExporter(opts);
  }
  const opts: HttpExporterConfig = { url: config.url, headers: { ...config.headers } };
  if (config.gzip) opts.compression = "gzip" as HttpExporterConfig["compression"];
  return new OtlpHttpTraceExporter(opts);
}
