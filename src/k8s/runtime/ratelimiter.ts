/**
 * How long a failed reconcile waits before it runs again. The default is controller-runtime's
 * (client-go `workqueue.DefaultTypedControllerRateLimiter`): per key 5 ms × 2^failures capped at
 * 1000 s, and overall at most 10 retries/s with a burst of 100, whichever waits longer. We keep its
 * numbers so a Go operator and tinyhost retry a failing object at the same pace.
 */
import { systemClock, type Clock } from "./clock.ts";

/** Decides retry delays per key. */
export interface RateLimiter {
  /** Records one more failure of `key` and returns the delay before its retry, in ms. */
  when(key: string): number;
  /** Forgets `key`'s failures (after a success). */
  forget(key: string): void;
  /** Failures of `key` since it was last forgotten. */
  retries(key: string): number;
}

/** Per-key exponential delay: `baseMs · 2^failures`, capped at `maxMs` (client-go `ItemExponentialFailureRateLimiter`). */
export class ItemExponentialRateLimiter implements RateLimiter {
  readonly #failures = new Map<string, number>();
  /** @param baseMs - first delay, default 5 ms. @param maxMs - cap, default 1 000 000 ms (1000 s). */
  constructor(
    readonly baseMs = 5,
    readonly maxMs = 1_000_000,
  ) {}

  /** @inheritdoc */
  when(key: string): number {
    const n = this.#failures.get(key) ?? 0;
    this.#failures.set(key, n + 1);
    return Math.min(this.maxMs, this.baseMs * 2 ** n);
  }

  /** @inheritdoc */
  forget(key: string): void {
    this.#failures.delete(key);
  }

  /** @inheritdoc */
  retries(key: string): number {
    return this.#failures.get(key) ?? 0;
  }
}

/**
 * Overall token bucket: `qps` retries per second after an initial `burst` (client-go
 * `BucketRateLimiter`, golang.org/x/time/rate reservations). Each call reserves a token; when the
 * bucket is empty the delay is when that token will exist.
 */
export class BucketRateLimiter implements RateLimiter {
  #tokens: number;
  #at: number;
  readonly #clock: Clock;
  /** @param qps - refill rate per second, default 10. @param burst - bucket size, default 100. */
  constructor(
    readonly qps = 10,
    readonly burst = 100,
    clock: Clock = systemClock,
  ) {
    this.#clock = clock;
    this.#tokens = burst;
    this.#at = clock.now();
  }

  /** @inheritdoc */
  when(_key: string): number {
    const now = this.#clock.now();
    this.#tokens = Math.min(this.burst, this.#tokens + ((now - this.#at) / 1000) * this.qps);
    this.#at = now;
    this.#tokens -= 1;
    return this.#tokens >= 0 ? 0 : (-this.#tokens / this.qps) * 1000;
  }

  /** @inheritdoc */
  forget(_key: string): void {}

  /** @inheritdoc */
  retries(_key: string): number {
    return 0;
  }
}

/** The longest delay of several limiters (client-go `MaxOfRateLimiter`). */
export class MaxOfRateLimiter implements RateLimiter {
  readonly #limiters: RateLimiter[];
  /** @param limiters - consulted on every call. */
  constructor(...limiters: RateLimiter[]) {
    this.#limiters = limiters;
  }

  /** @inheritdoc */
  when(key: string): number {
    return Math.max(0, ...this.#limiters.map((l) => l.when(key)));
  }

  /** @inheritdoc */
  forget(key: string): void {
    for (const l of this.#limiters) l.forget(key);
  }

  /** @inheritdoc */
  retries(key: string): number {
    return Math.max(0, ...this.#limiters.map((l) => l.retries(key)));
  }
}

/** controller-runtime's default: per-key 5 ms → 1000 s, max-of 10 qps / burst 100. */
export function defaultControllerRateLimiter(clock: Clock = systemClock): RateLimiter {
  return new MaxOfRateLimiter(new ItemExponentialRateLimiter(5, 1_000_000), new BucketRateLimiter(10, 100, clock));
}
