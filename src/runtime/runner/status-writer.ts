/**
 * A node's status writer (runtime-spec §2.9): requests coalesce into at most ONE write in flight and
 * at most one armed window per node, and the write reads what to send when it starts.
 *
 * Why not a plain debouncer: a debouncer arms its next window as soon as a write STARTS, so when the
 * apiserver takes longer than the window to answer, every node under traffic starts a new write each
 * window while the earlier ones still wait (GET, PATCH, 409, re-read…): a queue of pending writes
 * without bound (bench/RESULTS.md "One write in flight per node"). Go's
 * runner has the same shape as this writer: one flush at a time, the status computed when it runs.
 *
 * Rules: the first {@link request} arms a window of `intervalMs` (non-sliding: later requests inside
 * it only mark the node dirty). When the window ends the write runs, unless one is still in flight;
 * a write that ends with the node dirty again arms the next window. So writes of one node are
 * serial and at least `intervalMs` apart (start to start), whatever the request rate.
 *
 * A write that fails (rejects) is retried (Go logs and drops it): the node stays dirty and
 * the next window is the backoff delay — `retry.initialMs × 2^(n-1)`, capped at `retry.maxMs`, n =
 * failures in a row — instead of `intervalMs`. A retry is the same single write, so the rules above
 * hold during an outage too; what it sends is read when it starts (coalesced, bounded by the keys).
 * A write that answers `"gone"` (the node was deleted) ends the writer: nothing is retried forever.
 */
import { startTimer, type Timer } from "../../core/timer.ts";

/** What one write reports: nothing = written; `"gone"` = the node no longer exists (stop writing). A failure rejects. */
export type WriteOutcome = void | "gone";

/** Retry delays of a failing writer, ms (defaults: the edge retry defaults of runtime-spec §13.1, 1 s ×2 capped at 30 s). */
export interface WriteRetry {
  /** Delay before the first retry, ms. */
  initialMs: number;
  /** Cap on one delay, ms. */
  maxMs: number;
}

/** {@link WriteRetry} defaults (runtime-spec §13.1 backoff: 1 s, ×2, ≤ 30 s). */
export const DEFAULT_WRITE_RETRY: WriteRetry = Object.freeze({ initialMs: 1000, maxMs: 30_000 });

/** How a {@link StatusWriter.flush} ended. */
export type FlushOutcome = "written" | "gone" | "failed";

/** Waits `ms` unless `signal` aborts first. */
function pause(ms: number, signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      t.cancel();
      signal.removeEventListener("abort", done);
      resolve();
    };
    const t = startTimer(ms, done);
    signal.addEventListener("abort", done, { once: true });
  });
}

/** Waits for `p` unless `signal` aborts first (no timer; the listener is removed either way). */
async function untilSettledOrAborted(p: Promise<void>, signal: AbortSignal): Promise<void> {
  if (signal.aborted) return;
  let onAbort: (() => void) | undefined;
  await Promise.race([p, new Promise<void>((resolve) => signal.addEventListener("abort", (onAbort = () => resolve()), { once: true }))]);
  if (onAbort) signal.removeEventListener("abort", onAbort);
}

/**
 * Failed node status writes in this process, every runner together (each is retried;
 * `/metrics` `tinyhost_node_status_write_failures_total`, docs/operations.md §12).
 */
export const statusWriteFailures = { count: 0 };

/** One node's status writer (see the file comment). */
export class StatusWriter {
  #timer: Timer | undefined;
  #inFlight: Promise<void> | undefined;
  #dirty = false;
  #stopped = false;
  #gone = false;
  /** Failed writes in a row (0 after a success). */
  #failures = 0;
  #lastError: unknown;
  /** Writes started (for tests and counters). */
  writes = 0;

  /**
   * @param intervalMs - window length in ms (1000 in the Go runtime, runtime-spec §2.9).
   * @param write - performs one write; reads the state to send when called. Rejects when the write
   *   failed (the caller logs it; the writer retries), resolves `"gone"` when the node no longer exists.
   * @param retry - backoff of failed writes, ms.
   */
  constructor(
    readonly intervalMs: number,
    readonly write: () => Promise<WriteOutcome>,
    readonly retry: WriteRetry = DEFAULT_WRITE_RETRY,
  ) {}

  /** True when a write is wanted and has not started yet. */
  get dirty(): boolean {
    return this.#dirty;
  }

  /** True while a write runs (never more than one). */
  get inFlight(): boolean {
    return this.#inFlight !== undefined;
  }

  /** Failed writes in a row; 0 once one succeeds. */
  get failures(): number {
    return this.#failures;
  }

  /** The error of the last failed write while {@link failures} > 0. */
  get lastError(): unknown {
    return this.#failures > 0 ? this.#lastError : undefined;
  }

  /** True once a write answered `"gone"`. */
  get gone(): boolean {
    return this.#gone;
  }

  /** Delay before retry number `n` (1-based), ms. */
  retryDelayMs(n: number): number {
    return Math.min(this.retry.initialMs * 2 ** (n - 1), this.retry.maxMs);
  }

  /** Asks for a write; returns true when it merged into an already-armed window or running write. */
  request(): boolean {
    if (this.#stopped) return false;
    const merged = this.#dirty || this.#timer !== undefined || this.#inFlight !== undefined;
    this.#dirty = true;
    this.#arm();
    return merged;
  }

  /**
   * A stopping node: waits for the running write, then writes what is pending now, retrying a
   * failure with the backoff until it is written, the node is gone, or `signal` aborts (the
   * shutdown budget) — also while a write hangs, and while requests keep coming (each is written
   * until then). `"failed"` = something is still unwritten.
   */
  async flush(signal: AbortSignal): Promise<FlushOutcome> {
    for (;;) {
      this.#disarm();
      if (this.#inFlight) await untilSettledOrAborted(this.#inFlight, signal);
      if (this.#inFlight) return "failed"; // the deadline came while a write still hangs
      this.#disarm(); // the write that just ended may have re-armed
      if (this.#gone) return "gone";
      if (!this.#dirty) return this.#failures > 0 ? "failed" : "written";
      if (signal.aborted) return "failed";
      if (this.#failures > 0) {
        await pause(this.retryDelayMs(this.#failures), signal);
        if (signal.aborted) return "failed";
        if (this.#inFlight) continue;
      }
      void this.#start(); // awaited at the top of the loop, against the deadline
    }
  }

  /** Drops any pending write and refuses new requests; a running write finishes on its own. */
  stop(): void {
    this.#stopped = true;
    this.#disarm();
    this.#dirty = false;
  }

  #disarm(): void {
    this.#timer?.cancel();
    this.#timer = undefined;
  }

  #arm(): void {
    if (this.#timer !== undefined || this.#inFlight !== undefined || this.#stopped) return;
    const delay = this.#failures > 0 ? Math.max(this.intervalMs, this.retryDelayMs(this.#failures)) : this.intervalMs;
    this.#timer = startTimer(delay, () => {
      this.#timer = undefined;
      if (this.#dirty) void this.#start();
    });
  }

  #start(): Promise<void> {
    this.#dirty = false;
    this.writes++;
    const run = (async () => {
      try {
        const outcome = await this.write();
        this.#failures = 0;
        if (outcome === "gone") {
          this.#gone = true;
          this.stop();
        }
      } catch (err) {
        // The write logs its own failure; what it carried is pending again, so the node is dirty.
        statusWriteFailures.count++;
        this.#failures++;
        this.#lastError = err;
        this.#dirty = true;
      }
    })();
    const done = run.then(() => {
      this.#inFlight = undefined;
      if (this.#dirty) this.#arm();
    });
    this.#inFlight = done;
    return done;
  }
}
