/**
 * The memory cap of script calls (docs/security.md "Limits"). Bun 1.4.4 ignores a Worker's
 * `resourceLimits` and cannot report a busy worker's heap (measured: `getHeapStatistics()` waits
 * for the worker to be idle), so the cap is on the PROCESS: while calls run, the resident set is
 * sampled every {@link SAMPLE_MS} ms; when it grew past the cap since the first running call
 * began, the running calls are stopped (their workers terminated, which frees their heaps).
 *
 * With one call running the attribution is exact; with several, all of them are stopped, because
 * the process cannot tell whose allocation it was (a documented limit: docs/security.md).
 */

/** Sampling period while calls run, ms. */
export const SAMPLE_MS = 10;

/** One running call as the watchdog sees it. */
export interface WatchedCall {
  /**
   * How much the process may grow while this call runs, bytes; default the cap. A sandbox passes
   * the cap less what its worker already holds, so the cap bounds each worker, not each call.
   */
  limitBytes?: number;
  /** Stops the call: its sandbox is terminated and the call fails with `grewBytes` in the message. */
  stop(grewBytes: number, capBytes: number): void;
}

/** Process-wide sampler; one per process ({@link memoryWatchdog}). */
export class MemoryWatchdog {
  readonly #active = new Set<WatchedCall>();
  #baseline = 0;
  #timer: ReturnType<typeof setInterval> | undefined;
  /** Times the cap was hit (for tests and /metrics). */
  trips = 0;

  constructor(
    readonly capBytes: number,
    readonly rss: () => number = () => process.memoryUsage.rss(),
  ) {}

  /** Starts watching `call`; returns the function that stops watching it (call it when the call ends). */
  watch(call: WatchedCall): () => void {
    if (this.#active.size === 0) {
      this.#baseline = this.rss();
      this.#timer = setInterval(() => this.sample(), SAMPLE_MS);
      this.#timer.unref?.();
    }
    this.#active.add(call);
    return () => {
      this.#active.delete(call);
      if (this.#active.size === 0 && this.#timer !== undefined) {
        clearInterval(this.#timer);
        this.#timer = undefined;
      }
    };
  }

  /** One sample (the timer calls it; tests may too). */
  sample(): void {
    const now = this.rss();
    if (now < this.#baseline) this.#baseline = now; // the process shrank: measure growth from here
    const grew = now - this.#baseline;
    const stopped = [...this.#active].filter((c) => grew > (c.limitBytes ?? this.capBytes));
    if (stopped.length === 0) return;
    this.trips++;
    for (const c of stopped) this.#active.delete(c);
    if (this.#active.size === 0 && this.#timer !== undefined) {
      clearInterval(this.#timer);
      this.#timer = undefined;
    }
    for (const c of stopped) c.stop(grew, this.capBytes);
  }
}

let shared: MemoryWatchdog | undefined;

/** The process's watchdog, created with `capBytes` on first use. */
export function memoryWatchdog(capBytes: number): MemoryWatchdog {
  shared ??= new MemoryWatchdog(capBytes);
  return shared;
}
