/**
 * Bounds how often the human log repeats itself: a failure that happens on every request of a load
 * test is printed once, then summarised once per window as `(repeated N more times in the last 5 s)`.
 *
 * Lines are grouped (one group per node and port): in each window a group prints the first
 * occurrence of up to {@link DISTINCT_PER_WINDOW} different messages; more repeats of a printed
 * message are counted, and further different messages (say, one per request id) are counted
 * together, so a group prints at most a handful of lines per window however busy it is. A group
 * whose window passed without repeats is closed: its next occurrence prints at once again.
 */

/** Runs `fn` after `ms` milliseconds; returns a function that cancels it. */
export type Schedule = (fn: () => void, ms: number) => () => void;

/** Default window, ms: a repeated line is summarised at most once per window. */
export const DEFAULT_REPEAT_WINDOW_MS = 5000;

/** Different messages a group prints in full per window; more are only counted. */
export const DISTINCT_PER_WINDOW = 3;

/** {@link Schedule} on `setTimeout`, unref'd so a pending summary never keeps the process alive. */
export const timerSchedule: Schedule = (fn, ms) => {
  const t = setTimeout(fn, ms);
  t.unref?.();
  return () => clearTimeout(t);
};

interface Group {
  /** Line prefix, e.g. `error: node X port in`. */
  readonly prefix: string;
  /** Printed messages of this window → repeats counted since. */
  readonly shown: Map<string, number>;
  /** Messages not printed because {@link DISTINCT_PER_WINDOW} were already shown. */
  others: number;
  lastOther: string;
  cancel: () => void;
}

/** Prints `prefix: message` lines through `out`, rate-limited per group (see the module comment). */
export class RepeatLimiter {
  readonly #groups = new Map<string, Group>();

  /**
   * @param out receives each line.
   * @param windowMs the window, ms (default {@link DEFAULT_REPEAT_WINDOW_MS}).
   * @param schedule timer (default {@link timerSchedule}; tests pass a manual one).
   */
  constructor(
    readonly out: (line: string) => void,
    readonly windowMs = DEFAULT_REPEAT_WINDOW_MS,
    readonly schedule: Schedule = timerSchedule,
  ) {}

  /**
   * One occurrence of `message` in `group`: printed as `prefix: message` when it is the group's
   * first in this window (or one of its first {@link DISTINCT_PER_WINDOW} different ones), else counted.
   * @param group key of the group (e.g. node and port).
   * @param prefix start of the line; the group's first prefix is kept for its summaries.
   */
  line(group: string, prefix: string, message: string): void {
    let g = this.#groups.get(group);
    if (!g) {
      g = { prefix, shown: new Map(), others: 0, lastOther: "", cancel: () => {} };
      this.#groups.set(group, g);
      this.#arm(group, g);
    }
    const repeats = g.shown.get(message);
    if (repeats !== undefined) {
      g.shown.set(message, repeats + 1);
    } else if (g.shown.size < DISTINCT_PER_WINDOW) {
      g.shown.set(message, 0);
      this.out(`${prefix}: ${message}`);
    } else {
      g.others++;
      g.lastOther = message;
    }
  }

  /** Prints every pending summary now (without a time span: the window was cut short) and closes all groups (on stop). */
  flush(): void {
    for (const [key, g] of this.#groups) {
      g.cancel();
      this.#summarise(g, "");
      this.#groups.delete(key);
    }
  }

  #arm(key: string, g: Group): void {
    g.cancel = this.schedule(() => {
      if (this.#summarise(g, ` in the last ${Math.round(this.windowMs / 100) / 10} s`)) {
        for (const m of g.shown.keys()) g.shown.set(m, 0);
        g.others = 0;
        this.#arm(key, g); // still busy: keep counting into the next window
      } else {
        this.#groups.delete(key);
      }
    }, this.windowMs);
  }

  /**
   * Prints the window's summaries of `g`; true when there was anything to summarise.
   * @param span e.g. ` in the last 5 s`, or `""`.
   */
  #summarise(g: Group, span: string): boolean {
    let busy = false;
    for (const [message, n] of g.shown) {
      if (n === 0) continue;
      busy = true;
      this.out(`${g.prefix}: ${message} (repeated ${n} more time${n === 1 ? "" : "s"}${span})`);
    }
    if (g.others > 0) {
      busy = true;
      this.out(`${g.prefix}: ${g.others} more with other messages${span}; the last: ${g.lastOther}`);
    }
    return busy;
  }
}
