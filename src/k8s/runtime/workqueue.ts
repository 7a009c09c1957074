/**
 * Stage 3 of the pipeline: the rate-limited work queue of client-go `util/workqueue` as
 * controller-runtime uses it. Keys, not objects, are queued, so many changes to one object collapse
 * into one reconcile. Rules (client-go `queue.go`): a key is queued at most once (`dirty`); a key
 * being processed is never handed to a second worker — if it is added meanwhile it is queued again
 * when {@link WorkQueue.done} is called; delayed adds keep the earliest due time.
 */
import { systemClock, type Clock } from "./clock.ts";
import { defaultControllerRateLimiter, type RateLimiter } from "./ratelimiter.ts";

/** Parameters of a {@link WorkQueue}. */
export interface WorkQueueOptions {
  /** Retry delays for {@link WorkQueue.addRateLimited}. Default {@link defaultControllerRateLimiter}. */
  rateLimiter?: RateLimiter;
  /** Time source for delayed adds. Default {@link systemClock}. */
  clock?: Clock;
}

/** Counters of a work queue, for /metrics (names follow controller-runtime's `workqueue_*`). */
export interface WorkQueueStats {
  /** Keys accepted by `add` (duplicates of a queued key not counted). */
  adds: number;
  /** Calls of `addRateLimited` (controller-runtime `workqueue_retries_total`). */
  retries: number;
}

/** A de-duplicating, rate-limited queue of keys. */
export class WorkQueue {
  /** Live counters. */
  readonly stats: WorkQueueStats = { adds: 0, retries: 0 };
  readonly #queue: string[] = [];
  readonly #dirty = new Set<string>();
  readonly #processing = new Set<string>();
  readonly #waiting = new Map<string, { due: number; cancel: AbortController }>();
  readonly #getters: ((key: string | undefined) => void)[] = [];
  readonly #idle: (() => void)[] = [];
  readonly #limiter: RateLimiter;
  readonly #clock: Clock;
  #shuttingDown = false;

  /** @param opts - see {@link WorkQueueOptions}. */
  constructor(opts: WorkQueueOptions = {}) {
    this.#clock = opts.clock ?? systemClock;
    this.#limiter = opts.rateLimiter ?? defaultControllerRateLimiter(this.#clock);
  }

  /** Queues `key` now unless it is already queued; ignored after {@link shutDown}. */
  add(key: string): void {
    if (this.#shuttingDown || this.#dirty.has(key)) return;
    this.stats.adds++;
    this.#dirty.add(key);
    if (this.#processing.has(key)) return; // re-queued by done()
    const getter = this.#getters.shift();
    if (getter) {
      this.#dirty.delete(key);
      this.#processing.add(key);
      getter(key);
    } else {
      this.#queue.push(key);
    }
  }

  /** Queues `key` after `delayMs` (≤ 0: now). An earlier pending due time for the key wins. */
  addAfter(key: string, delayMs: number): void {
    if (this.#shuttingDown) return;
    if (delayMs <= 0) return this.add(key);
    const due = this.#clock.now() + delayMs;
    const pending = this.#waiting.get(key);
    if (pending && pending.due <= due) return;
    pending?.cancel.abort();
    const cancel = new AbortController();
    this.#waiting.set(key, { due, cancel });
    void this.#clock.sleep(delayMs, cancel.signal).then(() => {
      if (cancel.signal.aborted) return;
      this.#waiting.delete(key);
      this.add(key);
    });
  }

  /** Queues `key` after its rate-limited retry delay (one more failure recorded). */
  addRateLimited(key: string): void {
    if (this.#shuttingDown) return;
    this.stats.retries++;
    this.addAfter(key, this.#limiter.when(key));
  }

  /** Clears `key`'s failure count so its next retry starts from the base delay. */
  forget(key: string): void {
    this.#limiter.forget(key);
  }

  /** Failures recorded for `key` since it was last forgotten. */
  numRequeues(key: string): number {
    return this.#limiter.retries(key);
  }

  /**
   * Takes the next key and marks it processing; the caller must call {@link done} with it.
   * Waits while the queue is empty. Resolves `undefined` once the queue is shut down.
   */
  get(): Promise<string | undefined> {
    if (this.#shuttingDown) return Promise.resolve(undefined);
    const key = this.#queue.shift();
    if (key !== undefined) {
      this.#dirty.delete(key);
      this.#processing.add(key);
      return Promise.resolve(key);
    }
    return new Promise((resolve) => this.#getters.push(resolve));
  }

  /** Marks `key` finished; if it was added while processing, it is queued again. */
  done(key: string): void {
    this.#processing.delete(key);
    if (this.#dirty.has(key) && !this.#shuttingDown) {
      this.#dirty.delete(key);
      this.add(key);
    }
    if (this.#processing.size === 0) for (const wake of this.#idle.splice(0)) wake();
  }

  /**
   * Stops taking work: later adds are ignored, pending delayed adds are dropped, waiting and
   * future {@link get} calls resolve `undefined`. Keys already being processed finish normally.
   */
  shutDown(): void {
    this.#shuttingDown = true;
    for (const { cancel } of this.#waiting.values()) cancel.abort();
    this.#waiting.clear();
    for (const getter of this.#getters.splice(0)) getter(undefined);
  }

  /** Resolves when no key is being processed (immediately if none is). */
  whenIdle(): Promise<void> {
    if (this.#processing.size === 0) return Promise.resolve();
    return new Promise((resolve) => this.#idle.push(resolve));
  }

  /** Keys waiting to be processed now (controller-runtime `workqueue_depth`). */
  get depth(): number {
    return this.#queue.length;
  }

  /** Keys being processed. */
  get processing(): number {
    return this.#processing.size;
  }

  /** Keys waiting for a delayed add (requeue-after or retry backoff). */
  get delayed(): number {
    return this.#waiting.size;
  }

  /** True after {@link shutDown}. */
  get shuttingDown(): boolean {
    return this.#shuttingDown;
  }
}
