/**
 * A virtual {@link TimerHost} for unit tests: time moves only when the test calls `advance`, and a
 * delay above 2^31−1 ms is turned into 1 ms, exactly as real JavaScript timers do — so a test proves
 * that src/core/timer.ts never hands the host a delay it would clamp, without waiting 30 days.
 */
import type { HostHandle, TimerHost } from "../../src/core/timer.ts";

interface Pending {
  id: number;
  at: number;
  fn: () => void;
}

/** Virtual time, ms; timers fire in deadline order during {@link VirtualTimers.advance}. */
export class VirtualTimers implements TimerHost {
  #now = 0;
  #next = 1;
  readonly #pending = new Map<number, Pending>();
  /** Delays above 2^31−1 ms handed to `set` (JavaScript would have fired them after 1 ms). */
  readonly clamped: number[] = [];
  /** Every delay handed to `set`. */
  readonly armed: number[] = [];

  now(): number {
    return this.#now;
  }

  set(fn: () => void, ms: number): HostHandle {
    this.armed.push(ms);
    let delay = ms;
    if (!(delay >= 1 && delay <= 2 ** 31 - 1)) {
      if (delay > 2 ** 31 - 1) this.clamped.push(delay);
      delay = delay > 0 && delay < 1 ? delay : 1; // the HTML timer steps: out of range → 1
    }
    const id = this.#next++;
    this.#pending.set(id, { id, at: this.#now + delay, fn });
    return id;
  }

  clear(handle: HostHandle): void {
    this.#pending.delete(handle as number);
  }

  /** Host timers still pending. */
  get pendingCount(): number {
    return this.#pending.size;
  }

  /** Moves time forward by `ms`, firing every timer due on the way (and those they arm). */
  advance(ms: number): void {
    const end = this.#now + ms;
    for (;;) {
      let first: Pending | undefined;
      for (const p of this.#pending.values()) if (p.at <= end && (!first || p.at < first.at || (p.at === first.at && p.id < first.id))) first = p;
      if (!first) break;
      this.#pending.delete(first.id);
      this.#now = Math.max(this.#now, first.at);
      first.fn();
    }
    this.#now = end;
  }
}
