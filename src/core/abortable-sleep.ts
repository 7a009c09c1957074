/**
 * A timer that gives up when a signal aborts — the wait behind `delay`, `ticker` and `cron`
 * (components.md §1.3, §1.15, §1.16: "aborting … if the request is cancelled"), the runner's retry
 * backoff (runtime-spec §2.5) and the NATS supervisor's re-check pause. Exported from "tinyhost"
 * for components that wait (docs/authoring.md "Waiting and background loops").
 */
import { TinyError } from "./errors.ts";
import { startTimer, type TimerOptions } from "./timer.ts";

/**
 * A wait was cut short because the hop was cancelled (caller gave up, node stopped) — components.md
 * §1.3 "aborting with the context's error". code `"CANCELLED"`; `cause` is the abort reason.
 */
export class WaitCancelledError extends TinyError<"CANCELLED"> {
  /** @param what - what was waiting, e.g. `delay`. @param reason - the signal's abort reason. */
  constructor(what: string, reason: unknown) {
    const detail = reason instanceof Error ? reason.message : reason === undefined ? "" : String(reason);
    super("CANCELLED", `${what} cancelled${detail ? `: ${detail}` : ""}`, { cause: reason });
  }
}

/**
 * Waits `ms` milliseconds unless `signal` aborts first.
 * @param ms wait in ms, any length (src/core/timer.ts chains waits past 2^31−1 ms); `≤ 0` still
 *   yields once to the event loop (a zero-delay ticker must not starve other work).
 * @param signal cancels the wait; an already-aborted signal resolves at once.
 * @param options host timers (tests pass a virtual clock).
 * @returns `true` when the full wait elapsed, `false` when `signal` aborted it. Never rejects.
 */
export function sleepUnlessAborted(ms: number, signal: AbortSignal, options?: TimerOptions): Promise<boolean> {
  if (signal.aborted) return Promise.resolve(false);
  return new Promise<boolean>((resolve) => {
    const onAbort = () => {
      timer.cancel();
      resolve(false);
    };
    const timer = startTimer(
      ms,
      () => {
        signal.removeEventListener("abort", onAbort);
        resolve(true);
      },
      options,
    );
    signal.addEventListener("abort", onAbort, { once: true });
  });
}
