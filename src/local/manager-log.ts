/**
 * The log of local mode's manager of runnables. A runnable that fails to start (the console on a
 * taken `--console` port, a lock, a components directory) fails {@link LocalHost.start}, whose
 * error the command prints as one clean line; the manager's own `start failed` record would be a
 * raw JSON line right above it saying the same. So, unless the user chose a level
 * (`TINYHOST_LOG_LEVEL`), that one record is dropped; the rest passes through.
 */
import type { Logger } from "../telemetry/log.ts";

/** Prefix of the manager's record of a runnable that failed to start (src/manager/manager.ts). */
const START_FAILED = "start failed: ";

/**
 * `log` without the manager's `start failed: …` error records (the caller reports the error).
 * @returns a logger that forwards everything else to `log`.
 */
export function withoutStartFailures(log: Logger): Logger {
  return new Proxy(log, {
    get(target, key, receiver) {
      const value = Reflect.get(target, key, receiver) as unknown;
      if (key === "error") {
        return (obj: unknown, msg?: unknown, ...rest: unknown[]) => {
          if (typeof msg === "string" && msg.startsWith(START_FAILED)) return;
          (target.error as (...a: unknown[]) => void).call(target, obj, msg, ...rest);
        };
      }
      return typeof value === "function" ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
}
