/**
 * The stop delay: on SIGTERM the module first only reports itself stopping (/readyz 503) and keeps
 * serving everything — HTTP listeners, hops — for a while, then begins the drains. Kubernetes
 * removes a terminating pod from its Service's endpoints at the same moment it sends SIGTERM, and
 * an ingress controller or kube-proxy acts on that a little later (Traefik batches provider
 * updates for 2 s): a listener closed at once refuses the requests still routed to it. What a
 * preStop `sleep` does in a chart that has one; the platform's chart has none (its only knob is
 * `controllerManager.manager.extraEnv`), so the process does it. docs/operations.md §11
 * "Rolling updates behind an Ingress"; measured by test/integration/real-redeploy.test.ts.
 */
import { startTimer } from "../core/timer.ts";
import type { Runnable } from "./manager.ts";

/** Most the delay may be, ms (`TINYHOST_STOP_DELAY_MS`, `provision --stop-delay-ms`): with {@link STOP_DELAY_RESERVE_MS} it fits the 8 s shutdown budget (src/manager/manager.ts `DEFAULT_SHUTDOWN_BUDGET_MS`). */
export const MAX_STOP_DELAY_MS = 5_000;

/** What the delay leaves of the shutdown budget, ms: the HTTP and hop drains, then the last writes and the Lease. */
export const STOP_DELAY_RESERVE_MS = 3_000;

/**
 * Wraps the first stop step: its `stop` calls `onStopping()`, waits `delayMs` (never past the
 * budget left minus `reserveMs`, default {@link STOP_DELAY_RESERVE_MS}), then runs `inner.stop`.
 * With `delayMs` 0 it is `inner` with `onStopping` called first.
 */
export function withStopDelay(inner: Runnable, delayMs: number, onStopping: () => void, reserveMs = STOP_DELAY_RESERVE_MS): Runnable {
  return {
    name: inner.name,
    ...(inner.start ? { start: (ctx) => inner.start!(ctx) } : {}),
    async stop(ctx) {
      onStopping();
      const wait = Math.min(delayMs, Math.max(0, ctx.remainingMs() - reserveMs));
      if (wait > 0) await new Promise<void>((r) => startTimer(wait, r));
      await inner.stop?.(ctx);
    },
  };
}
