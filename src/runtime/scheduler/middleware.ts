/**
 * Hop middleware: the one way either mode adds behaviour around hops, handed to the scheduler
 * (`SchedulerOptions.middleware`, ./scheduler.ts). A middleware wraps one or both seams a hop passes:
 * - `handler`: the scheduler's entry for hops from outside (a transport, a signal) — where a hop
 *   can be refused or counted before it reaches a runner (cluster mode's shutdown gate,
 *   src/operator/hop-gate.ts);
 * - `tracer`: the runners' tracer — it hears every hop delivered to a runner (input span, with the
 *   decoded payload and expression errors) and every emit (output span), in-process ones included
 *   (local mode's hop watch and span tap, src/local/hop-watch.ts, src/local/span-tap.ts).
 * In a list, the first middleware is the outermost: it sees a hop first and its answer last.
 */
import type { MsgHandler } from "../../core/hop.ts";
import type { Tracer } from "../runner/tracer.ts";

/** One layer around hops (see the file comment); either hook may be absent. */
export interface HopMiddleware {
  /** Wraps the entry of hops from outside; the returned handler must never reject. */
  handler?(next: MsgHandler): MsgHandler;
  /** Wraps the tracer the runners open hop spans with. */
  tracer?(next: Tracer): Tracer;
}

/** `inner` wrapped by every middleware's `handler`, the first outermost; `inner` itself when none has one. */
export function chainHandler(inner: MsgHandler, middleware: readonly HopMiddleware[] = []): MsgHandler {
  let out = inner;
  for (let i = middleware.length - 1; i >= 0; i--) out = middleware[i]!.handler?.(out) ?? out;
  return out;
}

/** `inner` wrapped by every middleware's `tracer`, the first outermost; `inner` itself when none has one. */
export function chainTracer(inner: Tracer, middleware: readonly HopMiddleware[] = []): Tracer {
  let out = inner;
  for (let i = middleware.length - 1; i >= 0; i--) out = middleware[i]!.tracer?.(out) ?? out;
  return out;
}
