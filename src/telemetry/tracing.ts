/**
 * OpenTelemetry setup (runtime-spec §9.1; landscape §D.6: no sdk-node, manual spans, context in
 * AsyncLocalStorage). With an exporter configured ({@link resolveTracingConfig}) this installs, as
 * globals: a tracer provider with a batch span processor (500 ms, batch 10, queue
 * clamp(cores/2 × 1000, 1000..16000) — Go's run.go values) and AlwaysOn sampling, the W3C
 * TraceContext + Baggage propagator, and an AsyncLocalStorage context manager.
 *
 * Without configuration nothing is installed: the API stays no-op, the transports inject no
 * `traceparent` (as Go, runtime-spec §16 item 25) and hop spans cost one boolean check.
 */
import { availableParallelism } from "node:os";
import { context, propagation, trace, type Tracer } from "@opentelemetry/api";
// The SDK, the exporters and grpc-js load only when tracing is configured (./sdk.ts, imported in
// setupTracing): they are ~1,000 modules, half of a cold start, for a feature most runs leave off.
import type { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import type { SpanExporter, TracerProvider } from "@opentelemetry/sdk-trace";
import { resolveTracingConfig, type Env, type TracingConfig } from "./config.ts";
import { logger as rootLogger, type Logger } from "./log.ts";

/** Go's batch processor overrides (runtime-spec §9.1, §13.1): export every 500 ms or 10 spans. */
export const BATCH_DELAY_MS = 500;
/** Max spans per export request (runtime-spec §13.1). */
export const BATCH_MAX_EXPORT = 10;

/** Go `queueSize()`: (cores / 2) × 1000 spans, clamped to 1000..16000. */
export function batchQueueSize(cores: number = availableParallelism()): number {
  return Math.min(16_000, Math.max(1_000, Math.floor(cores / 2) * 1_000));
}

/** Options of {@link setupTracing}. */
export interface TracingOptions {
  /** `service.name` default and the tracer name — the module name (Go: `--name`). */
  serviceName: string;
  /** `service.version`, if known. */
  serviceVersion?: string;
  /** Environment to read; default `process.env`. */
  env?: Env;
  /** Export spans here instead of the configured OTLP endpoint (tests); enables tracing by itself. */
  exporter?: SpanExporter;
  /** Logger for the one startup line; default the root logger. */
  log?: Logger;
}

/** What {@link setupTracing} installed. */
export interface TracingHandle {
  /** The resolved configuration (`enabled: false` → nothing installed). */
  readonly config: TracingConfig;
  /** Exports what is buffered (no-op when disabled). */
  flush(): Promise<void>;
  /** Flushes, then removes the provider, propagator and context manager (no-op when disabled). */
  shutdown(): Promise<void>;
}

interface Installed {
  provider: TracerProvider;
  tracer: Tracer;
  contextManager: AsyncLocalStorageContextManager;
}

let installed: Installed | undefined;

/** True when a tracer provider is installed: hop spans are recorded and trace context propagates. */
export function tracingEnabled(): boolean {
  return installed !== undefined;
}

/** The module's tracer, or undefined when tracing is off (callers then skip span work entirely). */
export function activeTracer(): Tracer | undefined {
  return installed?.tracer;
}

const disabledHandle = (config: TracingConfig): TracingHandle => ({
  config,
  flush: () => Promise.resolve(),
  shutdown: () => Promise.resolve(),
});

/**
 * Installs tracing when the environment asks for it (runtime-spec §9.1). Call once at startup,
 * before transports send anything; a second call replaces the first installation.
 * @throws OtlpDsnError for a rejected `OTLP_DSN`; OtelConfigError for a malformed standard variable —
 *   a misconfigured collector is a startup error, as in Go (exit 1).
 */
export async function setupTracing(options: TracingOptions): Promise<TracingHandle> {
  const env = options.env ?? process.env;
  const log = options.log ?? rootLogger;
  const config: TracingConfig = options.exporter
    ? { enabled: true, source: "OTEL_EXPORTER_OTLP_ENDPOINT", protocol: "http/json", url: "", tls: false, headers: {}, gzip: false }
    : resolveTracingConfig(env);
  if (installed) await shutdownTracing();
  if (!config.enabled) {
    log.info(config.reason);
    return disabledHandle(config);
  }
  const sdk = await import("./sdk.ts");
  const {
    AlwaysOnSampler,
    BatchSpanProcessor,
    TracerProvider,
    AsyncLocalStorageContextManager,
    CompositePropagator,
    W3CBaggagePropagator,
    W3CTraceContextPropagator,
    TimeOrderedIdGenerator,
  } = sdk;
  const exporter = options.exporter ?? sdk.createOtlpExporter(config);
  const provider = new TracerProvider({
    resource: sdk.tracingResource(options.serviceName, options.serviceVersion, env),
    sampler: new AlwaysOnSampler(), // Go: sdktrace.AlwaysSample (not parent-based)
    idGenerator: new TimeOrderedIdGenerator(),
    spanProcessors: [
      new BatchSpanProcessor({
        exporter,
        scheduledDelayMillis: BATCH_DELAY_MS,
        maxExportBatchSize: BATCH_MAX_EXPORT,
        maxQueueSize: batchQueueSize(),
        exportTimeoutMillis: 10_000,
      }),
    ],
  });
  const contextManager = new AsyncLocalStorageContextManager().enable();
  context.setGlobalContextManager(contextManager);
  propagation.setGlobalPropagator(new CompositePropagator({ propagators: [new W3CTraceContextPropagator(), new W3CBaggagePropagator()] }));
  trace.setGlobalTracerProvider(provider);
  const mine: Installed = { provider, tracer: provider.getTracer(options.serviceName, options.serviceVersion), contextManager };
  installed = mine;
  if (!options.exporter) log.info({ source: config.source, protocol: config.protocol, url: config.url }, "tracing enabled");
  return {
    config,
    flush: () => (installed === mine ? provider.forceFlush() : Promise.resolve()),
    shutdown: () => (installed === mine ? shutdownTracing() : Promise.resolve()),
  };
}

/**
 * Flushes buffered spans and uninstalls tracing (pod shutdown, tests): the API returns to no-op
 * and the transports stop sending `traceparent`. Safe to call when nothing is installed.
 */
export async function shutdownTracing(): Promise<void> {
  const cur = installed;
  if (!cur) return;
  installed = undefined;
  try {
    await cur.provider.shutdown();
  } finally {
    trace.disable();
    propagation.disable();
    context.disable();
  }
}
