/**
 * The one timer of the codebase. JavaScript timers keep their delay in 32 bits and replace anything
 * above 2^31−1 ms (≈ 24.8 days) with 1 ms (HTML "timer initialisation steps"; Node and Bun alike),
 * while Go's `time.Sleep`, `time.NewTimer` and context deadlines take any `time.Duration`. Every
 * delay a user or a message can set goes through here: a longer wait is chained in chunks against a
 * monotonic clock, so a 30-day `delay` waits 30 days. test/unit/sdk/timer-lint.test.ts fails on a
 * `setTimeout`/`setInterval` elsewhere whose delay is not a constant.
 */

/** Longest single host timer, ms: `setTimeout` turns anything above 2^31−1 ms into 1 ms. */
export const MAX_TIMER_MS = 2 ** 31 - 1;

/** Opaque handle of one host timer. */
export type HostHandle = unknown;

/**
 * The host's timers and monotonic clock. Tests pass a fake one that advances virtual time (and may
 * clamp long delays as real JavaScript does) to check a 30-day wait without waiting.
 */
export interface TimerHost {
  /** Monotonic time, ms. */
  now(): number;
  /** Calls `fn` once after `ms` (0 ≤ ms ≤ {@link MAX_TIMER_MS}). */
  set(fn: () => void, ms: number): HostHandle;
  /** Cancels a handle from {@link TimerHost.set}; a no-op for one that fired. */
  clear(handle: HostHandle): void;
  /** Lets the process exit while this timer is pending (Node's `unref`); optional. */
  unref?(handle: HostHandle): void;
}

/** The real host: `setTimeout` and `performance.now()` (Go's timers run on the monotonic clock too). */
export const hostTimers: TimerHost = Object.freeze({
  now: () => performance.now(),
  set: (fn: () => void, ms: number) => setTimeout(fn, ms),
  clear: (h: HostHandle) => clearTimeout(h as ReturnType<typeof setTimeout>),
  unref: (h: HostHandle) => (h as { unref?: () => void }).unref?.(),
});

/** Options of {@link startTimer} and {@link startInterval}. */
export interface TimerOptions {
  /** Host timers; default {@link hostTimers}. */
  host?: TimerHost;
  /** Do not keep the process alive for this timer (Node's `unref`). */
  unref?: boolean;
}

/** A started timer or interval. */
export interface Timer {
  /** Stops it; idempotent, a no-op once a one-shot timer fired. */
  cancel(): void;
}

/**
 * A delay as the timer takes it, ms: NaN and anything ≤ 0 are 0 (the next macrotask, as
 * `setTimeout` and Go's `time.Sleep(≤0)` do); `+Infinity` never fires.
 */
export function timerDelay(ms: number): number {
  return ms > 0 ? ms : 0; // NaN > 0 is false
}

/**
 * Calls `fn` once after `ms` milliseconds, however long: waits above {@link MAX_TIMER_MS} are
 * chained, and a chunk that wakes early waits again for the rest (measured on the host's monotonic
 * clock from the moment this was called).
 * @param ms delay, ms; see {@link timerDelay} for NaN, ≤ 0 and `Infinity`.
 * @param fn called at most once; a throw in it reaches the host's uncaught-error handler, as a bare
 *   `setTimeout` callback's would (components use `nodeTimeout`, which reports it as the node's fault).
 */
export function startTimer(ms: number, fn: () => void, options: TimerOptions = {}): Timer {
  const host = options.host ?? hostTimers;
  const delay = timerDelay(ms);
  let handle: HostHandle;
  let done = false;
  if (delay === Infinity) return { cancel: () => void (done = true) };
  const deadline = host.now() + delay;
  const arm = (left: number) => {
    handle = host.set(fire, Math.min(left, MAX_TIMER_MS));
    if (options.unref) host.unref?.(handle);
  };
  const fire = () => {
    if (done) return;
    const left = deadline - host.now();
    if (left > 0 && delay > 0) return arm(left);
    done = true;
    fn();
  };
  arm(delay);
  return {
    cancel() {
      if (done) return;
      done = true;
      host.clear(handle);
    },
  };
}

/**
 * Calls `fn` every `ms` milliseconds until cancelled, however long the period. Each period is
 * counted from the previous scheduled tick (no drift); a tick that ran late is not repeated to
 * catch up (Go's `time.Ticker` drops ticks for a slow reader too).
 * @param ms period, ms; at least 1 (a 0 period would starve the event loop).
 * @param fn called on each tick; a throw stops nothing (the next tick still comes) and reaches
 *   the host's uncaught-error handler.
 */
export function startInterval(ms: number, fn: () => void, options: TimerOptions = {}): Timer {
  const host = options.host ?? hostTimers;
  const period = Math.max(1, timerDelay(ms));
  let current: Timer | undefined;
  let stopped = false;
  let due = host.now() + period;
  const next = () => {
    if (stopped) return;
    current = startTimer(due - host.now(), tick, options);
  };
  const tick = () => {
    const now = host.now();
    due += period;
    if (due <= now) due = now + period;
    next();
    fn();
  };
  next();
  return {
    cancel() {
      stopped = true;
      current?.cancel();
    },
  };
}

/**
 * A signal that aborts with a `TimeoutError` DOMException after `ms` (as `AbortSignal.timeout`,
 * which throws above 2^53−1 ms), however long; `Infinity` never aborts.
 * @param ms delay, ms; see {@link timerDelay}.
 */
export function timeoutSignal(ms: number, options: TimerOptions = {}): AbortSignal {
  const ctl = new AbortController();
  startTimer(ms, () => ctl.abort(new DOMException("The operation timed out.", "TimeoutError")), { unref: true, ...options });
  return ctl.signal;
}

/**
 * Waits `ms` milliseconds, however long.
 * @param ms delay, ms; see {@link timerDelay}.
 */
export function sleep(ms: number, options: TimerOptions = {}): Promise<void> {
  return new Promise<void>((resolve) => void startTimer(ms, resolve, options));
}

/**
 * Races `p` against a deadline: `p`'s outcome when it settles within `ms`, else what `onTimeout`
 * returns (or throws), called once when the time runs out. The timer is cancelled either way; `p`
 * itself goes on (cancel it through its own signal, e.g. from `onTimeout`).
 * @param ms deadline, ms; see {@link timerDelay}.
 */
export async function withDeadline<T, U>(p: Promise<T>, ms: number, onTimeout: () => U, options: TimerOptions = {}): Promise<T | U> {
  let timer: Timer | undefined;
  const late = new Promise<U>((resolve, reject) => {
    timer = startTimer(
      ms,
      () => {
        try {
          resolve(onTimeout());
        } catch (err) {
          reject(err);
        }
      },
      options,
    );
  });
  try {
    return await Promise.race([p, late]);
  } finally {
    timer?.cancel();
  }
}

/** Resolves when `p` settles (fulfilled or rejected, its outcome dropped) or after `ms`, whichever comes first. */
export async function bounded(p: Promise<unknown>, ms: number): Promise<void> {
  await withDeadline(
    p.then(
      () => {},
      () => {},
    ),
    ms,
    () => {},
  );
}
