/**
 * The health/metrics listeners as a runnable (group `servers`), shared by cluster and local mode:
 * `/healthz`, `/readyz` (the given checks) and `/metrics` on the probe address, and `/metrics`
 * alone on an optional extra address (runtime-spec §12; src/server); and cluster mode's readiness
 * checks ({@link moduleReadiness}).
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

/** What cluster mode's /readyz looks at ({@link moduleReadiness}). */
export interface ModuleReadinessSources {
  /** The TinyNode informer's store: ready once its first list synced. */
  nodeStore: { readonly synced: boolean };
  /** The wire: connected (NATS) or listening (gRPC), else the reason. */
  transport: { ready(): true | string };
  /** Ready once any holder of the Lease was observed. */
  leadership: { readonly leaderKnown: boolean };
  /** Every node of the first list applied once, or the bound passed (nodes-ready.ts); absent → no such check. */
  nodes?: { check(): true | string };
}

/** Cluster mode's readiness checks and the switch for the `started` one. */
export interface ModuleReadiness {
  /** The checks for {@link HealthServerOptions.readiness}. */
  readonly checks: Record<string, ReadinessCheck>;
  /** Every runnable started (the transport receivers start last): the `started` check passes from now on. */
  markStarted(): void;
  /** The module is stopping (SIGTERM): the `started` check fails from now on, so /readyz answers 503. */
  markStopping(): void;
}

/**
 * /readyz of cluster mode: every part started, the TinyNode cache synced, the transport up, a
 * leader known and every node of the first list applied (`nodes`, bounded: nodes-ready.ts). Go
 * starts probes only once its manager runs and a leader is observed (runtime-spec §16 item 24);
 * the cache, transport and nodes checks are ours (a pod that cannot serve hops or its components'
 * listeners yet is not ready).
 */
export function moduleReadiness(o: ModuleReadinessSources): ModuleReadiness {
  let started = false;
  let stopping = false;
  return {
    checks: {
      started: () => (stopping ? "stopping" : started ? true : "not every part has started yet (transport receivers last)"),
      "node-cache": () => (o.nodeStore.synced ? true : "TinyNode cache not synced yet"),
      transport: () => o.transport.ready(),
      leader: () => (o.leadership.leaderKnown ? true : "no leader observed on the Lease yet"),
      ...(o.nodes ? { nodes: () => o.nodes!.check() } : {}),
    },
    markStarted() {
      started = true;
    },
    markStopping() {
      stopping = true;
    },
  };
}
