/** The options of a cluster-mode start, shared by its first stage (early.ts) and the rest (module.ts). */
import type { Logger } from "../telemetry/log.ts";
import type { LeaseTimings } from "./leadership.ts";

/** Everything `startModule` (module.ts) needs; the CLI fills it from flags and env (runtime-spec §9). */
export interface ModuleOptions {
  /** Unsanitized module name (`--name`). */
  name: string;
  /**
   * Further module names this process serves (`--also`, repeatable; unsanitized), each with its own
   * subjects, nodes and TinyModule, sharing the rest (src/operator/served.ts).
   */
  also?: readonly string[];
  /** Module version without a leading `v` (`--version`). */
  version: string;
  /** Namespace of nodes, the Lease and the TinyModule (`--namespace`). */
  namespace: string;
  /** Kubeconfig path (`--kubeconfig`); absent → `$KUBECONFIG`, in-cluster, `~/.kube/config`. */
  kubeconfig?: string;
  /** Pod name (`HOSTNAME`): Lease identity, JetStream system consumer, release lookup. */
  hostname: string;
  /** Health/readiness/metrics listener (`--health-probe-bind-address`), Go syntax. */
  healthProbeBindAddress: string;
  /** Extra /metrics-only listener (`--metrics-bind-address`); absent or `"0"` → none. */
  metricsBindAddress?: string;
  /** gRPC listen address (`--grpc-server-bind-address`). */
  grpcServerBindAddress: string;
  /**
   * Component files loaded and watched in addition to the bundled set (a file may replace a bundled
   * component of its name); absent → `./components` discovery from source, or the bundled set.
   */
  componentsDir?: string;
  /** Environment (NATS selection, `SELF_SERVICE_HOST`, kubeconfig discovery). */
  env: Record<string, string | undefined>;
  /** Lease timings; default {@link DEFAULT_LEASE_TIMINGS}. */
  lease?: LeaseTimings;
  /** Drain bound, ms; default {@link DEFAULT_DRAIN_TIMEOUT_MS}. */
  drainTimeoutMs?: number;
  /**
   * On stop, how long to keep serving (with /readyz 503) before draining, ms; default 0. Part of the
   * shutdown budget (src/manager/stop-delay.ts); env `TINYHOST_STOP_DELAY_MS`.
   */
  stopDelayMs?: number;
  /** The whole graceful-shutdown budget, ms; default the manager's (8 s). */
  shutdownBudgetMs?: number;
  /** Logger; default the root logger. */
  log?: Logger;
}
