/**
 * Structured JSON logging for the whole host (pino).
 *
 * One root logger; subsystems take a child with `logger.child({ component: "k8s" })` so every
 * line names where it came from. Level from `TINYHOST_LOG_LEVEL` (default `info`).
 *
 * Every line logged while a span is active carries `trace_id` and `span_id` (a pino mixin), so
 * logs join traces; hop loggers add `node` and `port`. Credential-looking values are masked with
 * the span-payload rules (runtime-spec §2.8) before a line is written; cookie headers, which no key
 * rule catches, by pino's `redact` paths.
 */
import { trace } from "@opentelemetry/api";
import pino from "pino";
import { logLevelFrom } from "./log-level.ts";
import { REDACTED, redactValue } from "./redact.ts";
import { maskedError, maskSecretValues, noSecretValues } from "./secret-values.ts";

/** The pino logger type used across tinyhost. */
export type Logger = pino.Logger;

/**
 * `{ trace_id, span_id }` of the active span (W3C hex ids), or `{}` when there is none — always a
 * fresh object, since pino merges the line's fields into it. Near-free when tracing is off (the
 * no-op context manager has no active span).
 */
export function traceFields(): { trace_id?: string; span_id?: string } {
  const span = trace.getActiveSpan();
  if (!span) return {};
  const c = span.spanContext();
  return { trace_id: c.traceId, span_id: c.spanId };
}

/** Header paths masked by pino's `redact` (cookies: their key matches no credential rule). */
export const LOG_REDACT_PATHS: readonly string[] = ["headers.cookie", 'headers["set-cookie"]', "*.headers.cookie", '*.headers["set-cookie"]'];

/**
 * pino options shared by the root logger and tests that build a logger on their own stream:
 * trace-id mixin, `LOG_REDACT_PATHS`, and the §2.8 redaction of every line's fields.
 */
export function loggerOptions(level: string): pino.LoggerOptions {
  return {
    level,
    base: { app: "tinyhost" },
    timestamp: pino.stdTimeFunctions.isoTime,
    mixin: traceFields,
    redact: { paths: [...LOG_REDACT_PATHS], censor: REDACTED },
    formatters: { log: (obj) => redactValue(obj) as Record<string, unknown> },
    // An Error reaches the line through its serializer, after the formatter: redact its text there.
    // A non-Error `err` (a message string) is kept as it is: spreading a string gives one key per character.
    serializers: { err: (e: unknown) => (e instanceof Error ? redactValue({ ...pino.stdSerializers.err(e) }) : redactValue(e)) },
    // Message strings too, for resolved secret values only (the other rules read fields).
    hooks: {
      logMethod(args, method) {
        if (!noSecretValues())
          for (let i = 0; i < args.length; i++) {
            const a: unknown = args[i];
            if (typeof a === "string") args[i] = maskSecretValues(a);
            else if (a instanceof Error) (args as unknown[])[i] = maskedError(a); // pino takes msg from it
          }
        method.apply(this, args);
      },
    },
  };
}

/**
 * The root logger. JSON to stdout; level from `TINYHOST_LOG_LEVEL` (trace|debug|info|warn|error|fatal|silent).
 * Tests set `TINYHOST_LOG_LEVEL=silent` to keep output readable.
 * @throws LogLevelError (./log-level.ts) at import for another value; the CLI checks it first.
 */
export const logger: Logger = pino(loggerOptions(logLevelFrom(process.env)));
