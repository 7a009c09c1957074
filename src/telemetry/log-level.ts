/**
 * `TINYHOST_LOG_LEVEL`, checked before anything loads the logger: pino refuses an unknown level
 * with "default level:<x> must be included in custom levels" and a stack from inside its own
 * module, which names neither the variable nor what it accepts. Its own file so the CLI checks it
 * without loading pino (src/cli/cli.ts).
 */
import { TinyError } from "../core/errors.ts";

/** The levels the logger accepts (pino's defaults, plus `silent`), most verbose first. */
export const LOG_LEVELS = ["trace", "debug", "info", "warn", "error", "fatal", "silent"] as const;

/** A log level. */
export type LogLevel = (typeof LOG_LEVELS)[number];

/** `TINYHOST_LOG_LEVEL` names no level. code `"BAD_LOG_LEVEL"`. */
export class LogLevelError extends TinyError {
  constructor(value: string) {
    super("BAD_LOG_LEVEL", `TINYHOST_LOG_LEVEL=${JSON.stringify(value)}: expected one of ${LOG_LEVELS.join(", ")}`);
  }
}

/**
 * The level `TINYHOST_LOG_LEVEL` asks for; unset or empty → `info`.
 * @throws LogLevelError for any other value (case matters, as in pino).
 */
export function logLevelFrom(env: Record<string, string | undefined>): LogLevel {
  const v = env.TINYHOST_LOG_LEVEL;
  if (v === undefined || v === "") return "info";
  if ((LOG_LEVELS as readonly string[]).includes(v)) return v as LogLevel;
  throw new LogLevelError(v);
}
