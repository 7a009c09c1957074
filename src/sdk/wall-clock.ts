/**
 * The clock a scheduled loop reads and waits on (cron, components.md §1.16). A component keeps one
 * in its instance state so unit tests can run schedules in virtual time (a fake clock that jumps
 * to each deadline) instead of waiting for real minutes.
 */
import { sleepUnlessAborted } from "../core/abortable-sleep.ts";
import type { CronZone } from "./cron-schedule.ts";
import { MAX_TIMER_MS } from "../core/timer.ts";

export { MAX_TIMER_MS };

/** Time source and waiting for a scheduled loop. */
export interface WallClock {
  /** Which wall clock cron fields are read in. */
  readonly zone: CronZone;
  /** The current instant. */
  now(): Date;
  /**
   * Waits until `deadline` (an instant) or until `signal` aborts; an invalid Date (a deadline past
   * Date's range) is never reached.
   * @returns `true` at/after the deadline, `false` when aborted. Never rejects.
   */
  sleepUntil(deadline: Date, signal: AbortSignal): Promise<boolean>;
}

/**
 * The real clock in the process's local zone (as Go's `time.Now()`); waits beyond
 * {@link MAX_TIMER_MS} are chained, and an early timer wake-up waits again for the rest.
 */
export const systemClock: WallClock = Object.freeze({
  zone: "local" as const,
  now: () => new Date(),
  async sleepUntil(deadline: Date, signal: AbortSignal): Promise<boolean> {
    for (;;) {
      if (signal.aborted) return false;
      // An invalid Date (NaN) is a deadline past Date's range (≈ year 275760): never reached.
      const left = Number.isNaN(deadline.getTime()) ? Infinity : deadline.getTime() - Date.now();
      if (left <= 0) return true;
      if (!(await sleepUnlessAborted(Math.min(left, MAX_TIMER_MS), signal))) return false;
    }
  },
});
