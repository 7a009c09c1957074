/**
 * Non-sliding debouncer for status patches (runtime-spec §2.9): the first call arms a timer; later
 * calls inside the window only replace the pending function (latest wins). `flush` runs the pending
 * function now; `stop` drops it.
 */
export class Debouncer {
  #timer: ReturnType<typeof setTimeout> | undefined;
  #pending: (() => Promise<void>) | undefined;

  /** @param intervalMs window length in ms (1000 in the Go runtime). */
  constructor(readonly intervalMs: number) {}

  /** Schedules `fn`; returns true when it merged into an already-armed window. */
  call(fn: () => Promise<void>): boolean {
    this.#pending = fn;
    if (this.#timer !== undefined) return true;
    this.#timer = setTimeout(() => void this.#run(), this.intervalMs);
    return false;
  }

  /** Runs the pending function now (used when a node stops), awaiting it. */
  async flush(): Promise<void> {
    await this.#run();
  }

  /** Drops the pending function without running it. */
  stop(): void {
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#pending = undefined;
  }

  async #run(): Promise<void> {
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
    const fn = this.#pending;
    this.#pending = undefined;
    if (fn) await fn();
  }
}
