/**
 * A {@link Logger} whose real logger is made on first use. The logging module costs ~8 ms to
 * evaluate in the compiled binary (pino and its redaction; bench/start-imports.ts measures the runtime it belongs to);
 * the cluster start's first stage (src/operator/early.ts) hands a logger to parts that only log
 * from callbacks, after their first response, so it gets this one and sends its requests first.
 */
import type { Logger } from "./log.ts";

/**
 * A Logger forwarding every property to `load()`'s result, called once, on the first access
 * (methods are bound to the real logger; `child()` returns a real child).
 * @param load - makes the real logger, synchronously (e.g. a `require` of ./log.ts).
 */
export function lazyLogger(load: () => Logger): Logger {
  let target: Logger | undefined;
  const real = () => (target ??= load());
  return new Proxy({} as Logger, {
    get(_, prop) {
      const t = real();
      const v: unknown = Reflect.get(t, prop, t);
      return typeof v === "function" ? (v as (...a: unknown[]) => unknown).bind(t) : v;
    },
    has: (_, prop) => Reflect.has(real(), prop),
  });
}

/**
 * A child of ./log.ts's root logger with `bindings`, made on first use ({@link lazyLogger}); the
 * module is loaded then, synchronously.
 */
export function lazyChildLogger(bindings: Record<string, unknown>): Logger {
  // require, not import: a log line may come before anything awaited the module (Bun loads an
  // ES module with require when it has no top-level await, in source runs and in the binary alike).
  return lazyLogger(() => (require("./log.ts") as typeof import("./log.ts")).logger.child(bindings));
}
