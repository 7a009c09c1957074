/**
 * The transport as two runnables: its connection (group `stores`: its death is fatal, it closes
 * after the runners and the Lease so a flow still running in a drain can send until then) and its
 * receivers behind the hop gate (group `receivers`: the first to stop after the HTTP listeners).
 *
 * Receiver shutdown: stop taking work first — leave the core queue group, stop
 * JetStream pulls and nak what they still deliver — so peers take over at once; then wait, bounded,
 * for the hops already running (the controllers and runners still run); only then does the gate
 * refuse stragglers (retryable) and the serving half stop. The connection stays open for sends.
 */
import type { Runnable } from "../manager/index.ts";
import type { Logger } from "../telemetry/log.ts";
import type { HopGate } from "./hop-gate.ts";
import type { MsgHandler } from "../core/hop.ts";
import type { ModuleTransport } from "./transport.ts";
import { messageOf } from "../core/errors.ts";

/** Default bound on draining in-flight hops at shutdown, ms (inside the manager's shutdown budget). */
export const DEFAULT_DRAIN_TIMEOUT_MS = 4_000;

/**
 * Part of the shutdown budget the hop drain leaves to what stops after it — runners flushing their
 * status, the Lease release — ms (the HTTP drain before it may have used up to 4 s).
 */
export const STOP_RESERVE_MS = 1_500;

/** Grace the serving half gives in-flight hops when it stops or the transport closes (also on a failed start-up), ms. */
export const TRANSPORT_GRACE_MS = 500;

/**
 * The connection's runnable (group `stores`): a wire that dies for good is fatal (exit 1); stop
 * closes it (both halves).
 */
export function transportConnection(transport: ModuleTransport): Runnable {
  return {
    name: "transport connection",
    start: (ctx) => void transport.failed.catch((err) => ctx.fatal(new Error(`${transport.kind} transport: ${messageOf(err)}`))),
    stop: () => transport.close(TRANSPORT_GRACE_MS),
  };
}

/** Options of {@link transportReceivers}. */
export interface TransportReceiversOptions {
  transport: ModuleTransport;
  /** What the receivers serve: the scheduler's entry, behind the gate (its hop middleware). */
  handle: MsgHandler;
  /** The gate every incoming hop passes; drained on stop. */
  gate: Pick<HopGate, "drain" | "stats">;
  /** Bound on the hop drain, ms (further bounded by the budget left minus {@link STOP_RESERVE_MS}). */
  drainMs: number;
  /** Called once the receivers serve (the TinyModule status can now carry the bound address). */
  onServing: () => void;
  log: Logger;
}

/**
 * The receivers' runnable (group `receivers`): start serves the gated handler; stop is the
 * sequence in the module comment.
 * @throws (from start) when the gRPC bind or a JetStream consumer fails.
 */
export function transportReceivers(o: TransportReceiversOptions): Runnable {
  const { transport, gate, log } = o;
  return {
    name: "transport receivers",
    async start() {
      await transport.serve(o.handle);
      o.onServing();
    },
    async stop(ctx) {
      // The HTTP drain (group `listeners`) may have used part of the budget: keep a reserve for the
      // runners' last status writes and the Lease release that follow.
      const bound = Math.min(o.drainMs, Math.max(0, ctx.remainingMs() - STOP_RESERVE_MS));
      const t0 = performance.now();
      await transport.stopReceiving();
      const left = await gate.drain(Math.max(0, bound - (performance.now() - t0)));
      if (left > 0) log.warn({ inFlight: left }, "hops still running after the drain bound; cancelling them");
      log.info({ drainMs: Math.round(performance.now() - t0), stats: gate.stats }, "transport receivers stopped");
      await transport.stopServing(TRANSPORT_GRACE_MS);
    },
  };
}
