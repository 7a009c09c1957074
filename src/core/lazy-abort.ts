/**
 * An abort controller whose `AbortSignal` exists only once someone asks for it.
 *
 * Why: a request-scoped cancellation (an HTTP request waiting for its flow) is almost never used —
 * the flow answers first — yet `new AbortController()` per request is a fifth of an in-process
 * request's cost (bench/RESULTS.md "Lazy abort controllers"). The runtime's hop
 * scopes read only `aborted` and `reason` on every hop and build a real signal only when a handler,
 * a retry wait or a wire transport needs one (src/runtime/runner/scope.ts).
 */
export class LazyAbort {
  #controller: AbortController | undefined;
  #aborted = false;
  #reason: unknown;

  /** True once {@link abort} ran. */
  get aborted(): boolean {
    return this.#aborted;
  }

  /** The reason given to {@link abort} (undefined before). */
  get reason(): unknown {
    return this.#reason;
  }

  /** The signal, built on first read (already aborted when {@link abort} ran before). */
  get signal(): AbortSignal {
    if (!this.#controller) {
      this.#controller = new AbortController();
      if (this.#aborted) this.#controller.abort(this.#reason);
    }
    return this.#controller.signal;
  }

  /** Aborts (once; later calls are ignored, as `AbortController.abort`): a built signal fires now. */
  abort(reason?: unknown): void {
    if (this.#aborted) return;
    this.#aborted = true;
    this.#reason = reason === undefined ? new DOMException("This operation was aborted", "AbortError") : reason;
    this.#controller?.abort(this.#reason);
  }
}

/** A cancellation a caller hands to the runtime: a signal, or a {@link LazyAbort} (its signal built on demand). */
export type Cancellation = AbortSignal | LazyAbort;
