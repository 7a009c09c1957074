/**
 * Local mode's optional health listener (`tinyhost run --local <dir> --health-probe-bind-address
 * <addr>`): the same Hono app as cluster mode (src/server) — `/healthz` answers as soon as the
 * process listens, `/readyz` turns 200 once every node of the first read was reconciled and the
 * start signals were sent, `/metrics` reports the running nodes. Off unless the flag is given: a
 * developer's laptop should not open a second port by surprise. Probe semantics: runtime-spec §12.
 */
import { healthApp, listen, parseBindAddress, type HttpListener } from "../server/index.ts";
import { MetricsRegistry } from "../telemetry/metrics.ts";
import type { LocalHost } from "./host.ts";

/** A started local health listener. */
export interface LocalHealth {
  /** `http://host:port` of the listener. */
  readonly url: string;
  /** Marks local mode ready (/readyz → 200) and lets /metrics read `host`. */
  ready(host: LocalHost): void;
  /** Stops listening. */
  stop(): Promise<void>;
}

/**
 * Listens on `address` (Go syntax: `127.0.0.1:8081`, `:0`).
 * @returns undefined for `"0"` (disabled).
 * @throws BindAddressError naming `--health-probe-bind-address` and the value; the bind error
 *   (e.g. EADDRINUSE) from Bun.serve.
 */
export function startLocalHealth(address: string): LocalHealth | undefined {
  const bind = parseBindAddress(address, "--health-probe-bind-address");
  if (!bind) return undefined;
  let host: LocalHost | undefined;
  const metrics = new MetricsRegistry();
  metrics.collect("tinyhost_runners", "Nodes with a running runner in this process.", "gauge", () => [{ labels: {}, value: host?.scheduler.nodes().length ?? 0 }]);
  const listener: HttpListener = listen(
    healthApp({ readiness: { nodes: () => (host ? true : "the first reconcile of every node has not finished") }, metrics }),
    bind,
  );
  return {
    url: listener.url,
    ready: (h) => void (host = h),
    stop: () => listener.stop(),
  };
}
