/**
 * The health/metrics listeners as a runnable (group `servers`), shared by cluster and local mode:
 * `/healthz`, `/readyz` (the given checks) and `/metrics` on the probe address, and `/metrics`
 * alone on an optional extra address (runtime-spec §12; src/server).
 */
import type { Runnable } from "../manager/index.ts";
import { healthApp, listen, parseBindAddress, type HttpListener, type ReadinessCheck } from "../server/index.ts";
import type { MetricsRegistry } from "../telemetry/metrics.ts";

/** Options of {@link healthServer}. */
export interface HealthServerOptions {
  /** Probe listener (`--health-probe-bind-address`, Go syntax); `"0"` → none. */
  probeAddress: string;
  /** Extra /metrics-only listener (`--metrics-bind-address`); absent or `"0"` → none. */
  metricsAddress?: string;
  /** Checks behind /readyz, by name. */
  readiness: Record<string, ReadinessCheck>;
  metrics: MetricsRegistry;
}

/** The runnable plus the probe listener's URL once started. */
export interface HealthServer extends Runnable {
  /** `http://host:port` of the probe listener; `""` before start or without one. */
  readonly url: string;
}

/**
 * Builds the runnable; the addresses are parsed now, so a bad flag fails before anything starts.
 * @throws BindAddressError naming the flag and value.
 */
export function healthServer(o: HealthServerOptions): HealthServer {
  const probe = parseBindAddress(o.probeAddress, "--health-probe-bind-address");
  const extra = o.metricsAddress ? parseBindAddress(o.metricsAddress, "--metrics-bind-address") : undefined;
  const listeners: HttpListener[] = [];
  return {
    name: "health server",
    get url() {
      return probe ? (listeners[0]?.url ?? "") : "";
    },
    start() {
      if (probe) listeners.push(listen(healthApp({ readiness: o.readiness, metrics: o.metrics }), probe));
      if (extra) listeners.push(listen(healthApp({ metrics: o.metrics, probes: false }), extra));
    },
    async stop() {
      for (const l of listeners.splice(0)) await l.stop();
    },
  };
}
