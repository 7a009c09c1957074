/**
 * Structured JSON logging for the whole host (pino).
 *
 * One root logger; subsystems take a child with `logger.child({ component: "k8s" })` so every
 * line names where it came from. Level from `TINYHOST_LOG_LEVEL` (default `info`).
 */
import pino from "pino";

/** The pino logger type used across tinyhost. */
export type Logger = pino.Logger;

/**
 * The root logger. JSON to stdout; level from `TINYHOST_LOG_LEVEL` (trace|debug|info|warn|error|fatal|silent).
 * Tests set `TINYHOST_LOG_LEVEL=silent` to keep output readable.
 */
export const logger: Logger = pino({
  level: process.env.TINYHOST_LOG_LEVEL ?? "info",
  base: { app: "tinyhost" },
  timestamp: pino.stdTimeFunctions.isoTime,
});
