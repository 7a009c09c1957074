/** Telemetry: tracing setup, hop/HTTP/reconcile spans, redaction, logs, metrics (runtime-spec §2.8, §9.1). */
export {
  setupTracing,
  shutdownTracing,
  tracingEnabled,
  activeTracer,
  batchQueueSize,
  BATCH_DELAY_MS,
  BATCH_MAX_EXPORT,
  type TracingOptions,
  type TracingHandle,
} from "./tracing.ts";
export { createOtlpExporter, tracingResource } from "./sdk.ts";
export {
  resolveTracingConfig,
  parseOtlpHeaders,
  OtelConfigError,
  type TracingConfig,
  type TracingOn,
  type TracingOff,
  type OtlpProtocol,
  type Env,
} from "./config.ts";
export { parseOtlpDsn, OtlpDsnError, OTLP_DSN_DEFAULT_PORT, type OtlpDsn } from "./dsn.ts";
export { startHttpServerSpan, type HttpServerSpan } from "./http.ts";
export { reconcileSpan } from "./reconcile.ts";
export { redactValue, redactedPayload, credentialKeysOfSchema, SECRET_VALUE, CREDENTIAL_KEY, REDACTED, type RedactOptions } from "./redact.ts";
export { logger, loggerOptions, traceFields, LOG_REDACT_PATHS, type Logger } from "./log.ts";
export { TimeOrderedIdGenerator, uuidV1 } from "./ids.ts";
