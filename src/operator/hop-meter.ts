/**
 * Measures incoming hops for /metrics, per component: hops in flight and the
 * handler duration (a histogram), durable runs with a step running here, and the time from process
 * start to the first hop handled — a module's cold start as its pods see it, the figure that says
 * whether scale-to-zero pays (docs/operations.md "Scaling"). A hop middleware behind the hop gate
 * (src/operator/hop-gate.ts): refused hops are not measured.
 */
import { parsePortAddress, type Msg, type MsgHandler } from "../core/hop.ts";
import { fail, type Result } from "../core/result.ts";
import type { HopMiddleware } from "../runtime/scheduler/middleware.ts";

/** Component label of a hop whose node has no runner here (or a malformed address). */
export const UNKNOWN_COMPONENT = "unknown";

/** Live readings of a {@link HopMeter}. */
export interface HopMeterReadings {
  /** Hops running now, per component. */
  inFlight: ReadonlyMap<string, number>;
  /** Distinct durable runs with a step running in this process now. */
  durableRunsActive: number;
  /** Seconds from process start to the end of the first hop handled; undefined until then. */
  firstHopSeconds: number | undefined;
}

/** Options of {@link HopMeter}. */
export interface HopMeterOptions {
  /** The component of node `node`, when it runs here (the scheduler's runner). */
  componentOf: (node: string) => string | undefined;
  /** Seconds since the process started; default `process.uptime()`. */
  uptime?: () => number;
  /** Monotonic clock, ms; default `performance.now()`. */
  now?: () => number;
}

/** The meter (see the file header). */
export class HopMeter implements HopMiddleware {
  readonly #o: HopMeterOptions;
  readonly #inFlight = new Map<string, number>();
  readonly #runs = new Map<string, number>();
  #firstHopSeconds: number | undefined;
  /** Told each finished hop: component and handler duration in seconds (the /metrics histogram, set by src/operator/metrics.ts). */
  onDuration: ((component: string, seconds: number) => void) | undefined;

  constructor(o: HopMeterOptions) {
    this.#o = o;
  }

  /** Current readings (see {@link HopMeterReadings}). */
  get readings(): HopMeterReadings {
    return { inFlight: this.#inFlight, durableRunsActive: this.#runs.size, firstHopSeconds: this.#firstHopSeconds };
  }

  #component(msg: Msg): string {
    try {
      return this.#o.componentOf(parsePortAddress(msg.to)[0]) ?? UNKNOWN_COMPONENT;
    } catch {
      return UNKNOWN_COMPONENT;
    }
  }

  /** `next` measured. Never rejects. */
  handler(next: MsgHandler): MsgHandler {
    const now = this.#o.now ?? (() => performance.now());
    return async (msg: Msg, signal?: AbortSignal): Promise<Result> => {
      const component = this.#component(msg);
      const run = msg.runId || undefined;
      this.#inFlight.set(component, (this.#inFlight.get(component) ?? 0) + 1);
      if (run) this.#runs.set(run, (this.#runs.get(run) ?? 0) + 1);
      const t0 = now();
      try {
        return await next(msg, signal);
      } catch (err) {
        return fail(err);
      } finally {
        this.onDuration?.(component, (now() - t0) / 1000);
        this.#inFlight.set(component, (this.#inFlight.get(component) ?? 1) - 1);
        if (run) {
          const left = (this.#runs.get(run) ?? 1) - 1;
          if (left <= 0) this.#runs.delete(run);
          else this.#runs.set(run, left);
        }
        this.#firstHopSeconds ??= (this.#o.uptime ?? (() => process.uptime()))();
      }
    };
  }
}
