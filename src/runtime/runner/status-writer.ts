/**
 * A node's status writer (runtime-spec §2.9): requests coalesce into at most ONE write in flight and
 * at most one armed window per node, and the write reads what to send when it starts.
 *
 * Why not a plain debouncer: a debouncer arms its next window as soon as a write STARTS, so when the
 * apiserver takes longer than the window to answer, every node under traffic starts a new write each
 * window while the earlier ones still wait (GET, PATCH, 409, re-read…). Measured with 1,000 nodes and
 * 16 request/replies in flight (bench/_leak-probe.ts): ~250 nodes writing, 3,000 apiserver requests
 * in flight after 18 s and the heap growing ~3 MiB/s — a queue of pending writes without bound. Go's
 * runner has the same shape as this writer: one flush at a time, the status computed when it runs.
 *
 * Rules: the first {@link request} arms a window of `intervalMs` (non-sliding: later requests inside
 * it only mark the node dirty). When the window ends the write runs, unless one is still in flight;
 * a write that ends with the node dirty again arms the next window. So writes of one node are
 * serial and at least `intervalMs` apart (start to start), whatever the request rate.
 */
export class StatusWriter {
  #timer: ReturnType<typeof setTimeout> | undefined;
  #inFlight: Promise<void> | undefined;
  #dirty = false;
  #stopped = false;
  /** Writes started (for tests and counters). */
  writes = 0;

  /**
   * @param intervalMs - window length in ms (1000 in the Go runtime, runtime-spec §2.9).
   * @param write - performs one write; reads the state to send when called. A rejection is the
   *   caller's to log: it is swallowed here so the writer keeps working.
   */
  constructor(
    readonly intervalMs: number,
    readonly write: () => Promise<void>,
  ) {}

  /** True when a write is wanted and has not started yet. */
  get dirty(): boolean {
    return this.#dirty;
  }

  /** True while a write runs (never more than one). */
  get inFlight(): boolean {
    return this.#inFlight !== undefined;
  }

  /** Asks for a write; returns true when it merged into an already-armed window or running write. */
  request(): boolean {
    if (this.#stopped) return false;
    const merged = this.#dirty || this.#timer !== undefined || this.#inFlight !== undefined;
    this.#dirty = true;
    this.#arm();
    return merged;
  }

  /** Waits for the running write, then runs a pending one now (a stopping node). */
  async flush(): Promise<void> {
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
    if (this.#inFlight) await this.#inFlight;
    if (this.#timer !== undefined) clearTimeout(this.#timer); // the write that just ended may have re-armed
    this.#timer = undefined;
    if (this.#dirty) await this.#start();
  }

  /** Drops any pending write and refuses new requests; a running write finishes on its own. */
  stop(): void {
    this.#stopped = true;
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#dirty = false;
  }

  #arm(): void {
    if (this.#timer !== undefined || this.#inFlight !== undefined || this.#stopped) return;
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      if (this.#dirty) void this.#start();
    }, this.intervalMs);
  }

  #start(): Promise<void> {
    this.#dirty = false;
    this.writes++;
    const run = (async () => {
      try {
        await this.write();
      } catch {
        // the write logs its own failure; the writer stays usable
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
