/**
 * SIGTERM and SIGINT for `tinyhost run` in a cluster, caught from its first line. The first
 * start-up stage takes the module's Lease within ~30–50 ms (src/operator/early.ts), long before
 * the module can be stopped in order; a signal with no handler then killed the process with the
 * Lease held, and the next replica waited out its 15 s. So one handler is installed before any
 * request leaves: during start-up it ends the campaign (the Lease is released) and exits; once
 * the module runs, its orderly stop takes over ({@link StopSignals.onSignal}).
 */

/** The signals that stop the module (the kubelet sends SIGTERM; Ctrl-C is SIGINT). */
export const STOP_SIGNALS = ["SIGTERM", "SIGINT"] as const;

/** The first stop signal of the process, handed to whoever handles it now. */
export class StopSignals {
  #received: string | undefined;
  #handler: ((signal: string) => void) | undefined;
  readonly #listeners = STOP_SIGNALS.map((signal) => [signal, () => this.#receive(signal)] as const);

  /** Installs the process handlers (once each: a second signal gets the default action, as before). */
  constructor() {
    for (const [signal, listener] of this.#listeners) process.once(signal, listener);
  }

  /** The first signal received, if any. */
  get received(): string | undefined {
    return this.#received;
  }

  /** Makes `handler` the one that acts on the signal: called now when one came already, else on the first. */
  onSignal(handler: (signal: string) => void): void {
    this.#handler = handler;
    if (this.#received !== undefined) handler(this.#received);
  }

  /** Removes the process handlers. */
  dispose(): void {
    for (const [signal, listener] of this.#listeners) process.off(signal, listener);
  }

  #receive(signal: string): void {
    if (this.#received !== undefined) return;
    this.#received = signal;
    this.#handler?.(signal);
  }
}
