/**
 * Time as the runtime stages see it: a monotonic clock for every duration (lease expiry, backoff,
 * watchdog, requeue-after) and the wall clock only for timestamps written to the API. Injected so
 * unit tests drive time by hand instead of sleeping.
 */
import { startTimer } from "../../core/timer.ts";

/** A source of time and delays. */
export interface Clock {
  /** Monotonic milliseconds since an arbitrary origin; never goes backwards (not wall time). */
  now(): number;
  /** Wall-clock time, only for timestamps written to objects (e.g. Lease `renewTime`). */
  wallNow(): Date;
  /**
   * Resolves after `ms` milliseconds, or as soon as `signal` aborts (it resolves, never rejects;
   * callers check `signal.aborted`).
   */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

/** The process clock: `performance.now()` for durations, `Date` for timestamps, src/core/timer.ts for delays. */
export const systemClock: Clock = {
  now: () => performance.now(),
  wallNow: () => new Date(),
  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    if (signal?.aborted) return Promise.resolve();
    return new Promise((resolve) => {
      const done = () => {
        timer.cancel();
        signal?.removeEventListener("abort", done);
        resolve();
      };
      const timer = startTimer(ms, done);
      signal?.addEventListener("abort", done, { once: true });
    });
  },
};
