/**
 * Exponential backoff with jitter that forgets past failures after a healthy period, the shape of
 * kube-rs `watcher::DefaultBackoff` (`utils/stream_backoff.rs` + `ResetTimerBackoff`): each failure
 * doubles the delay up to a cap; a failure that comes long after the previous one starts again
 * from the initial delay.
 */
import { systemClock, type Clock } from "./clock.ts";
import { TinyError } from "../../core/errors.ts";

/** Parameters of a {@link Backoff}. All durations in milliseconds. */
export interface BackoffOptions {
  /** Delay before the first retry. Default 1000 ms (as @kubernetes/client-node ListWatch, landscape §B.4: 1 s → 30 s). */
  initialMs?: number;
  /** Largest delay ever returned. Default 30000 ms. */
  maxMs?: number;
  /** Growth per consecutive failure. Default 2. */
  factor?: number;
  /**
   * Fraction of each delay that is random, 0..1: the delay is drawn uniformly from
   * `[d·(1−jitter), d]`, so it never exceeds `maxMs` and callers never retry in lock-step.
   * Default 0.5.
   */
  jitter?: number;
  /**
   * A failure more than this long after the previous one counts as the first again (the stream was
   * healthy in between). Default 120000 ms (kube-rs resets after 120 s).
   */
  resetAfterMs?: number;
  /** Clock for the reset rule. Default {@link systemClock}. */
  clock?: Clock;
  /** Uniform random in [0, 1). Default `Math.random`. */
  random?: () => number;
}

/** Bad backoff parameter. */
export class BackoffOptionsError extends TinyError<"BACKOFF_OPTIONS"> {
  /** @param field - option name. @param value - the rejected value. @param rule - what it must be. */
  constructor(field: string, value: unknown, rule: string) {
    super("BACKOFF_OPTIONS", `backoff option ${field} = ${String(value)} must be ${rule}`);
    this.name = "BackoffOptionsError";
  }
}

/** Jittered exponential delays; one instance per retried stream. */
export class Backoff {
  readonly #initialMs: number;
  readonly #maxMs: number;
  readonly #factor: number;
  readonly #jitter: number;
  readonly #resetAfterMs: number;
  readonly #clock: Clock;
  readonly #random: () => number;
  #attempt = 0;
  #lastFailureAt: number | undefined;

  /** @throws BackoffOptionsError when a duration is negative, `factor` < 1 or `jitter` outside 0..1. */
  constructor(opts: BackoffOptions = {}) {
    this.#initialMs = opts.initialMs ?? 1000;
    this.#maxMs = opts.maxMs ?? 30_000;
    this.#factor = opts.factor ?? 2;
    this.#jitter = opts.jitter ?? 0.5;
    this.#resetAfterMs = opts.resetAfterMs ?? 120_000;
    this.#clock = opts.clock ?? systemClock;
    this.#random = opts.random ?? Math.random;
    if (!(this.#initialMs >= 0)) throw new BackoffOptionsError("initialMs", this.#initialMs, ">= 0");
    if (!(this.#maxMs >= this.#initialMs)) throw new BackoffOptionsError("maxMs", this.#maxMs, ">= initialMs");
    if (!(this.#factor >= 1)) throw new BackoffOptionsError("factor", this.#factor, ">= 1");
    if (!(this.#jitter >= 0 && this.#jitter <= 1)) throw new BackoffOptionsError("jitter", this.#jitter, "within 0..1");
    if (!(this.#resetAfterMs >= 0)) throw new BackoffOptionsError("resetAfterMs", this.#resetAfterMs, ">= 0");
  }

  /** Records a failure and returns how long to wait before the next attempt, in ms. */
  next(): number {
    const now = this.#clock.now();
    if (this.#lastFailureAt !== undefined && now - this.#lastFailureAt > this.#resetAfterMs) this.#attempt = 0;
    this.#lastFailureAt = now;
    const base = Math.min(this.#maxMs, this.#initialMs * this.#factor ** this.#attempt);
    if (base < this.#maxMs) this.#attempt++;
    return base * (1 - this.#jitter * this.#random());
  }

  /** Forgets all failures: the next delay is the initial one again. */
  reset(): void {
    this.#attempt = 0;
    this.#lastFailureAt = undefined;
  }

  /** Consecutive failures counted so far (stops growing once the cap is reached). */
  get attempts(): number {
    return this.#attempt;
  }
}
