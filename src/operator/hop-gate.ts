/**
 * Admission of incoming hops during shutdown: counts hops in flight, refuses new ones once draining
 * started, and lets shutdown wait, bounded, until the in-flight ones finished. Also counts hops for
 * /metrics. A hop middleware (src/runtime/scheduler/middleware.ts) around the scheduler's entry.
 *
 * Shutdown stops the transport receivers before it drains the gate (src/operator/receivers.ts), so
 * a refusal is rare: a hop that slipped in after the receivers stopped (a core message already
 * buffered; the gRPC server refuses queued and new calls itself once it stops receiving,
 * src/transport/grpc/admission.ts). It is retryable — the hop is fine, only this replica is leaving:
 * a JetStream hop is `nak`'d to another replica, a caller's edge retries.
 */
import { fail, type Result } from "../core/result.ts";
import { retryable } from "../core/errors.ts";
import { ShuttingDownError } from "../transport/refusal.ts";
import type { Msg, MsgHandler } from "../core/hop.ts";
import type { HopMiddleware } from "../runtime/scheduler/middleware.ts";
import { withDeadline } from "../core/timer.ts";

/** The refusal of a hop arriving while draining; its home is src/transport/refusal.ts (the gRPC server refuses with it too). */
export { ShuttingDownError };

/** Hop counters (monotonic except `inFlight`). */
export interface HopStats {
  /** Hops admitted. */
  started: number;
  /** Admitted hops that resolved with a failure. */
  failed: number;
  /** Hops refused while draining. */
  refused: number;
  /** Hops running now. */
  inFlight: number;
}

/** Admission control of incoming hops, as hop middleware: one gate's counters cover every handler it wraps. */
export class HopGate implements HopMiddleware {
  /** Live counters. */
  readonly stats: HopStats = { started: 0, failed: 0, refused: 0, inFlight: 0 };
  #draining = false;
  #idle: (() => void)[] = [];

  /** `next` (typically the scheduler's entry) behind the gate: the handler to give transports. Never rejects. */
  handler(next: MsgHandler): MsgHandler {
    return async (msg: Msg, signal?: AbortSignal): Promise<Result> => {
      if (this.#draining) {
        this.stats.refused++;
        return fail(retryable(new ShuttingDownError(msg.to)));
      }
      this.stats.started++;
      this.stats.inFlight++;
      try {
        const result = await next(msg, signal);
        if (result.kind === "fail") this.stats.failed++;
        return result;
      } catch (err) {
        this.stats.failed++;
        return fail(err);
      } finally {
        this.stats.inFlight--;
        if (this.stats.inFlight === 0) for (const wake of this.#idle.splice(0)) wake();
      }
    };
  }

  /** True once {@link drain} was called. */
  get draining(): boolean {
    return this.#draining;
  }

  /**
   * Stops admitting hops and waits until none is in flight or `timeoutMs` passed.
   * @returns the number of hops still running when it returned (0 = fully drained).
   */
  async drain(timeoutMs: number): Promise<number> {
    this.#draining = true;
    if (this.stats.inFlight === 0) return 0;
    await withDeadline(new Promise<void>((resolve) => this.#idle.push(resolve)), timeoutMs, () => {});
    return this.stats.inFlight;
  }
}
