/**
 * Admission of incoming gRPC calls to the module's hop slots (the NATS wires'
 * bound, src/transport/slots.ts). gRPC has no pull, as core NATS: a call beyond the limit waits in
 * the bounded slot queue for at most the queue wait, else it is refused with the retryable
 * `BUSY` (`BusyError`, src/transport/slots.ts). Once the server stops taking work ({@link CallAdmission.close}), queued and new
 * calls are refused with the retryable {@link ShuttingDownError} — the caller's edge re-sends them,
 * as a core NATS hop refused by the hop gate (docs/operations.md §10). A call whose caller went
 * away (cancel, deadline) while queued leaves the queue without a refusal.
 */
import { retryable, type RetryableError } from "../../core/errors.ts";
import { ShuttingDownError } from "../refusal.ts";
import { DEFAULT_HOP_QUEUE_WAIT_MS, type HopSlots } from "../slots.ts";

/** The outcome of {@link CallAdmission.admit}. */
export type Admission =
  /** Run the hop; call `release` exactly once when it ended (later calls do nothing). */
  | { readonly admitted: true; readonly release: () => void }
  /** Answer with `refusal` (retryable, a local refusal for the `x-refused` trailer). */
  | { readonly admitted: false; readonly refusal: RetryableError }
  /** The caller's signal aborted while queued: answer as the abort says. */
  | { readonly admitted: false; readonly refusal: undefined };

/** Options of {@link CallAdmission}. */
export interface CallAdmissionOptions {
  /** The module's hop slots (shared with /metrics). */
  slots: HopSlots;
  /** Longest a call waits for a slot before `BUSY`, ms; default {@link DEFAULT_HOP_QUEUE_WAIT_MS}; 0 = refuse at once. */
  queueWaitMs?: number;
}

/** Slot admission of one gRPC server. Single-threaded (JS event loop): no locks. */
export class CallAdmission {
  /** The bound (read by /metrics as `tinyhost_hop_slots_*`). */
  readonly slots: HopSlots;
  /** The queue wait, ms. */
  readonly queueWaitMs: number;
  /** Calls refused with `SHUTTING_DOWN` after {@link close} (queued at close, or arriving later). */
  refusedClosed = 0;
  readonly #closed = new AbortController();

  /** @throws RangeError naming `queueWaitMs` when it is not an integer ≥ 0. */
  constructor(o: CallAdmissionOptions) {
    const wait = o.queueWaitMs ?? DEFAULT_HOP_QUEUE_WAIT_MS;
    if (!Number.isInteger(wait) || wait < 0) throw new RangeError(`grpc call admission: queueWaitMs = ${wait} must be an integer ≥ 0`);
    this.slots = o.slots;
    this.queueWaitMs = wait;
  }

  /** True once {@link close} was called. */
  get closed(): boolean {
    return this.#closed.signal.aborted;
  }

  /**
   * Takes a slot for the call to `to` (a hop's `node:port`): at once when one is free and nobody
   * queues, else after waiting in the queue; refused with `BUSY` (queue full, wait over) or
   * `SHUTTING_DOWN` (closed). `callerGone` aborts when the caller cancels or its deadline passes.
   */
  async admit(to: string, callerGone: AbortSignal): Promise<Admission> {
    if (this.closed) return this.#refuseClosed(to);
    if (!this.slots.tryAcquire()) {
      const ok = await this.slots.acquire(this.queueWaitMs, AbortSignal.any([callerGone, this.#closed.signal]));
      if (!ok) {
        // Closing wins over the caller's abort: the stop aborts in-flight calls right after.
        if (this.closed) return this.#refuseClosed(to);
        if (callerGone.aborted) return { admitted: false, refusal: undefined };
        return { admitted: false, refusal: this.slots.busyRefusal(to, this.queueWaitMs) };
      }
    }
    let held = true;
    return {
      admitted: true,
      release: () => {
        if (!held) return;
        held = false;
        this.slots.release();
      },
    };
  }

  /** Stops taking work: queued calls and every later one are refused with `SHUTTING_DOWN`. Idempotent. */
  close(): void {
    this.#closed.abort();
  }

  #refuseClosed(to: string): Admission {
    this.refusedClosed++;
    return { admitted: false, refusal: retryable(new ShuttingDownError(to)) };
  }
}
