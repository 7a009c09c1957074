/**
 * The shutdown step that drains the component HTTP listeners of a host's nodes: it runs
 * in the `listeners` group, first on stop — before the receivers, so a request's flow can still
 * take hops from the wire, and before the runners — in-flight requests finish on live
 * nodes, new connections are refused, and what still runs at the bound is answered 503.
 * docs/operations.md "Shutdown".
 */
import { drainListeners } from "./open-listeners.ts";
import type { Logger } from "../telemetry/log.ts";
import type { Runnable } from "./manager.ts";

/** Default bound on the HTTP drain, ms: the same as the hop drain (`DEFAULT_DRAIN_TIMEOUT_MS`, src/operator/receivers.ts). */
export const DEFAULT_HTTP_DRAIN_MS = 4_000;

/** The nodes whose listeners are drained: a scheduler's runners (`Scheduler.nodes()`/`runner()`). */
export interface NodeLifetimes {
  /** Names of the nodes that have a runner now. */
  nodes(): string[];
  /** The runner of node `name`; its `nodeSignal` is what the node's listeners are owned by. */
  runner(name: string): { readonly nodeSignal: AbortSignal } | undefined;
}

/**
 * A stop-only runnable: gracefully closes every HTTP listener owned by one of `nodes`' runners,
 * waiting at most `maxMs` (default {@link DEFAULT_HTTP_DRAIN_MS}) and never past the shutdown
 * budget; logs how many requests were in flight and how many were cut off.
 */
export function httpDrain(nodes: NodeLifetimes, log: Logger, maxMs = DEFAULT_HTTP_DRAIN_MS): Runnable {
  return {
    name: "http listeners",
    async stop(ctx) {
      const owners = new Set<AbortSignal>();
      for (const name of nodes.nodes()) {
        const r = nodes.runner(name);
        if (r) owners.add(r.nodeSignal);
      }
      const t0 = performance.now();
      const r = await drainListeners(owners, Math.min(maxMs, ctx.remainingMs()));
      if (r.listeners === 0) return;
      const fields = { listeners: r.listeners, inFlight: r.requests, cancelled: r.cancelled, ms: Math.round(performance.now() - t0) };
      if (r.cancelled > 0) log.warn(fields, "http requests still running at the drain bound were answered 503");
      else log.info(fields, "http listeners drained");
    },
  };
}
