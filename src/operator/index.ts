/**
 * Cluster mode: the kube client, Lease elector, controllers, scheduler, transport, resource manager
 * and health server of one module process (runtime-spec §9), as runnables of the manager
 * (src/manager).
 */
export {
  startModule,
  ModuleStartError,
  DEFAULT_LEASE_TIMINGS,
  DEFAULT_DRAIN_TIMEOUT_MS,
  DEFAULT_NODE_WORKERS,
  type RunningModule,
  type LeaseTimings,
} from "./module.ts";
export type { ModuleOptions } from "./options.ts";
export { HopGate, ShuttingDownError, type HopStats } from "./hop-gate.ts";
export { openTransport, type ModuleTransport, type OpenTransportOptions } from "./transport.ts";
export { ensureTinyModule, TINYHOST_VERSION_ANNOTATION, type ModuleRegistration } from "./register.ts";
export { moduleMetrics, type ModuleMetricsSources, type WatchedController } from "./metrics.ts";
export { healthServer, type HealthServer, type HealthServerOptions } from "./health.ts";
