/**
 * The per-module bound on hops the transport receivers run at once: a counting
 * semaphore with a bounded FIFO queue. Only hops admitted from a wire take a slot; hops the
 * scheduler routes in-process (a handler calling a node of its own module) never do, so a handler
 * waiting on its own module cannot deadlock on the limit (Go `TestNestedRequestNoDeadlock`).
 *
 * - JetStream pulls only as many messages as it has {@link HopSlots.reserve reserved} slots for:
 *   what waits beyond the limit stays in the stream, where any replica may take it.
 * - Core NATS and gRPC have no pull: a message or call beyond the limit
 *   {@link HopSlots.acquire waits} in the queue (at most `queueLimit` of them, each at most
 *   `queueWaitMs`), else it is refused with the retryable {@link BusyError}. docs/operations.md §10
 *   says why.
 */
import { retryable, type RetryableError } from "../core/errors.ts";
import { HopRefusedError } from "./refusal.ts";
import { startTimer, type Timer } from "../core/timer.ts";

/**
 * Default concurrent transport hops per module process (`TINYHOST_MAX_CONCURRENT_HOPS`): the
 * hop-depth guard (256, runtime-spec §3.2). One chain of blocking requests, however it cycles
 * between modules, holds at most that many slots in one module before the guard stops it, so a
 * single cycle is never refused by the limit (Go peer test "a cycle across both modules is stopped
 * by the hop-depth guard"); several deep cycles at once can be, and unwind with `BUSY`.
 */
export const DEFAULT_MAX_CONCURRENT_HOPS = 256;
/** Default longest wait of a core NATS hop or gRPC call for a slot, ms (`TINYHOST_HOP_QUEUE_WAIT_MS`). */
export const DEFAULT_HOP_QUEUE_WAIT_MS = 2_000;

/**
 * A hop refused because the module runs its limit of hops and its queue is full or the wait ran
 * out. code `"BUSY"`; a refusal (src/transport/refusal.ts): the NATS reply or gRPC trailer says so
 * and a tinyhost sender retries it.
 */
export class BusyError extends HopRefusedError {
  /** @param to - the hop's destination. @param limit - the concurrency limit. @param why - "queue full" or the wait. */
  constructor(to: string, limit: number, why: string) {
    super("BUSY", new Error(`module busy: ${limit} hops running, hop to ${JSON.stringify(to)} refused (${why}); retry`));
  }
}

/** Live counters of a {@link HopSlots} (read by /metrics). */
export interface HopSlotStats {
  /** The limit. */
  readonly limit: number;
  /** Slots taken now (running hops plus JetStream reservations). */
  readonly taken: number;
  /** Core NATS hops and gRPC calls waiting for a slot now. */
  readonly queued: number;
  /** Hops refused with {@link BusyError} so far. */
  readonly busy: number;
}

/** Options of {@link HopSlots}. */
export interface HopSlotsOptions {
  /** Slots (≥ 1). */
  limit: number;
  /** Most waiters in the queue; default `limit`. 0 = refuse at once. */
  queueLimit?: number;
}

interface Waiter {
  resolve(ok: boolean): void;
  timer: Timer;
}

/** Counting semaphore with a bounded queue. Single-threaded (JS event loop): no locks. */
export class HopSlots implements HopSlotStats {
  readonly limit: number;
  readonly queueLimit: number;
  #taken = 0;
  #busy = 0;
  readonly #queue: Waiter[] = [];
  #freeWaiters: (() => void)[] = [];

  /** @throws RangeError naming `limit` / `queueLimit` when not a non-negative integer (limit ≥ 1). */
  constructor(o: HopSlotsOptions) {
    if (!Number.isInteger(o.limit) || o.limit < 1) throw new RangeError(`hop slots: limit = ${o.limit} must be an integer ≥ 1`);
    const q = o.queueLimit ?? o.limit;
    if (!Number.isInteger(q) || q < 0) throw new RangeError(`hop slots: queueLimit = ${q} must be an integer ≥ 0`);
    this.limit = o.limit;
    this.queueLimit = q;
  }

  get taken(): number {
    return this.#taken;
  }
  get queued(): number {
    return this.#queue.length;
  }
  get busy(): number {
    return this.#busy;
  }
  /** Slots free now. */
  get free(): number {
    return this.limit - this.#taken;
  }

  #pullers = 0;

  /**
   * Registers a JetStream pull loop drawing on these slots (one per served module name's business
   * consumer); returns its unregister function. Pull loops sharing the slots reserve only
   * {@link pullShare} each, so one loop's open pull cannot hold every slot while another's stream waits.
   */
  addPuller(): () => void {
    this.#pullers++;
    let done = false;
    return () => {
      if (done) return;
      done = true;
      this.#pullers--;
    };
  }

  /** The most slots one pull may reserve: `limit` split evenly among the registered pull loops (at least 1). */
  get pullShare(): number {
    return Math.max(1, Math.ceil(this.limit / Math.max(1, this.#pullers)));
  }

  /** Takes a slot if one is free and nobody queues ahead. */
  tryAcquire(): boolean {
    if (this.#taken >= this.limit || this.#queue.length > 0) return false;
    this.#taken++;
    return true;
  }

  /**
   * Takes a slot, waiting in the queue at most `waitMs`. Resolves false (and counts a refusal) when
   * the queue is full or the wait ran out; the caller refuses the hop with {@link BusyError}.
   * When `signal` aborts first (the caller went away, the receiver stops) the waiter leaves the
   * queue and it resolves false without counting a refusal: the caller says what happened.
   */
  acquire(waitMs: number, signal?: AbortSignal): Promise<boolean> {
    if (signal?.aborted) return Promise.resolve(false);
    if (this.tryAcquire()) return Promise.resolve(true);
    if (this.#queue.length >= this.queueLimit || waitMs <= 0) {
      this.#busy++;
      return Promise.resolve(false);
    }
    return new Promise<boolean>((resolve) => {
      const leave = () => {
        const i = this.#queue.indexOf(w);
        if (i >= 0) this.#queue.splice(i, 1);
      };
      const onAbort = () => {
        w.timer.cancel();
        leave();
        resolve(false);
      };
      const w: Waiter = {
        resolve: (ok) => {
          signal?.removeEventListener("abort", onAbort);
          resolve(ok);
        },
        timer: startTimer(waitMs, () => {
          signal?.removeEventListener("abort", onAbort);
          leave();
          this.#busy++;
          resolve(false);
        }),
      };
      this.#queue.push(w);
      signal?.addEventListener("abort", onAbort, { once: true });
    });
  }

  /** Takes up to `max` free slots at once (a JetStream pull batch); returns how many were taken. */
  reserve(max: number): number {
    if (this.#queue.length > 0) return 0;
    const n = Math.max(0, Math.min(max, this.limit - this.#taken));
    this.#taken += n;
    return n;
  }

  /**
   * The retryable {@link BusyError} for a hop to `to` that {@link acquire} refused after waiting at
   * most `waitMs`: it says whether the queue was full or the wait ran out.
   */
  busyRefusal(to: string, waitMs: number): RetryableError {
    const why = this.#queue.length >= this.queueLimit ? `queue of ${this.queueLimit} full` : `no slot within ${waitMs} ms`;
    return retryable(new BusyError(to, this.limit, why));
  }

  /** Counts a refusal decided by the caller (e.g. a message arriving while the receivers stop). */
  countBusy(): void {
    this.#busy++;
  }

  /** Gives `n` slots back: the first queued waiters get them, then pull loops waiting are woken. */
  release(n = 1): void {
    for (let i = 0; i < n; i++) {
      if (this.#taken <= 0) throw new Error("hop slots: release without a taken slot");
      const w = this.#queue.shift();
      if (w) {
        w.timer.cancel();
        w.resolve(true); // the slot passes to the waiter: taken stays
      } else this.#taken--;
    }
    if (this.free > 0 && this.#freeWaiters.length > 0) for (const wake of this.#freeWaiters.splice(0)) wake();
  }

  /**
   * Resolves once at least `min` slots are free, or at least one is free and `maxWaitMs` passed
   * (so a pull batches under load without starving when hops are long), or `signal` aborted.
   */
  async whenFree(min: number, maxWaitMs: number, signal: AbortSignal): Promise<void> {
    const want = Math.max(1, Math.min(min, this.limit));
    const started = Date.now();
    while (!signal.aborted) {
      const free = this.#queue.length > 0 ? 0 : this.free;
      if (free >= want || (free > 0 && Date.now() - started >= maxWaitMs)) return;
      const left = maxWaitMs - (Date.now() - started);
      await new Promise<void>((resolve) => {
        const done = () => {
          timer.cancel();
          signal.removeEventListener("abort", done);
          resolve();
        };
        // When one is already free we wait only for the batching window; else for a release.
        const timer = startTimer(free > 0 ? Math.max(1, left) : 60_000, done);
        this.#freeWaiters.push(done);
        signal.addEventListener("abort", done, { once: true });
      });
    }
  }
}
