/**
 * The module's /metrics series, read live from the objects that already count (controller stats,
 * work queues, watchers, the elector, the hop gate). Names follow controller-runtime and client-go
 * where one exists (`controller_runtime_reconcile_total`, `workqueue_depth`,
 * `leader_election_master_status`); the rest are prefixed `tinyhost_`.
 */
import type { Controller } from "../k8s/runtime/controller.ts";
import type { Watcher } from "../k8s/runtime/watcher.ts";
import type { KubeObject } from "../k8s/client/index.ts";
import { MetricsRegistry, type Sample } from "../telemetry/metrics.ts";
import type { HopStats } from "./hop-gate.ts";
import { componentFaults } from "../runtime/runner/guard.ts";
import { statusWriteFailures } from "../runtime/runner/status-writer.ts";
import type { HopSlotStats } from "../transport/slots.ts";
import type { HopMeter } from "./hop-meter.ts";

/** One controller and its watcher, named for the `controller` / `resource` labels. */
export interface WatchedController {
  /** e.g. `tinynode`. */
  name: string;
  controller: Controller<KubeObject>;
  watcher: Watcher<KubeObject>;
  /** Status-writer counters of its reconciler. */
  writes: { statusWrites: number; statusSkips: number; conflicts: number };
}

/** What the registry reads. */
export interface ModuleMetricsSources {
  controllers: WatchedController[];
  /** Lease name (the `name` label of the leader gauge); absent (local mode: no Lease) → no leader series. */
  leaseName?: string;
  isLeader: () => boolean;
  /** Incoming hop counters (the hop gate); absent (local mode: every hop is in-process) → no `tinyhost_hops_*` series. */
  hops?: HopStats;
  /** The transport's bound on concurrent incoming hops (every wire); absent (local mode) → no `tinyhost_hop_slots_*` series. */
  hopSlots?: HopSlotStats;
  runners: () => number;
  /** Requests this process sent to the apiserver, per verb (`KubeClient.stats`); absent → no series. */
  apiserverRequests?: Readonly<Record<string, number>>;
  /** The memory governor when it is on (src/operator/memory-governor.ts); absent → no `tinyhost_memory_*` series. */
  memoryGovernor?: { readonly limitBytes: number; readonly collections: number };
  /** Per-component hop measurements (src/operator/hop-meter.ts); absent → no per-component, run or cold-start series. */
  hopMeter?: HopMeter;
  /** JetStream: the business consumers' backlog as this process sees it and the redeliveries; absent (other wires) → no series. */
  jetstream?: () => { consumers: { module: string; pending: number; ackPending: number }[]; redeliveries: number };
  /** tinyhost's version and the Go SDK version it implements (`tinyhost_build_info` labels); absent → no series. */
  build?: { version: string; sdkVersion: string };
}

/** Builds the registry for one module process. */
export function moduleMetrics(s: ModuleMetricsSources): MetricsRegistry {
  const r = new MetricsRegistry();
  const build = s.build;
  if (build) {
    // The usual build-info gauge (Prometheus convention `<name>_build_info`, value 1, facts as labels).
    r.collect("tinyhost_build_info", "tinyhost version and the Go SDK version whose behaviour it implements.", "gauge", () => [
      { labels: { version: build.version, sdk_version: build.sdkVersion }, value: 1 },
    ]);
  }
  const per =
    (read: (c: WatchedController) => number, label: "controller" | "name" | "resource" = "controller") =>
    (): Sample[] =>
      s.controllers.map((c) => ({ labels: { [label]: c.name }, value: read(c) }));
  r.collect(
    "controller_runtime_reconcile_total",
    "Reconciles finished, per controller.",
    "counter",
    per((c) => c.controller.stats.reconciles),
  );
  r.collect(
    "controller_runtime_reconcile_errors_total",
    "Reconciles that failed, per controller.",
    "counter",
    per((c) => c.controller.stats.errors),
  );
  r.collect(
    "tinyhost_reconcile_requeues_total",
    "Reconciles that asked to run again, per controller.",
    "counter",
    per((c) => c.controller.stats.requeues),
  );
  r.collect(
    "workqueue_depth",
    "Keys waiting in the work queue.",
    "gauge",
    per((c) => c.controller.queue.depth, "name"),
  );
  r.collect(
    "workqueue_retries_total",
    "Rate-limited re-adds of the work queue.",
    "counter",
    per((c) => c.controller.queue.stats.retries, "name"),
  );
  r.collect(
    "tinyhost_watch_restarts_total",
    "Watch requests started again after one ended.",
    "counter",
    per((c) => c.watcher.stats.watchRestarts, "resource"),
  );
  r.collect(
    "tinyhost_watch_relists_total",
    "Full relists after the first list (410 Gone or watchdog).",
    "counter",
    per((c) => c.watcher.stats.relists, "resource"),
  );
  r.collect("tinyhost_watch_list_duration_seconds", "Duration of the last full list (all pages) of the watched resource.", "gauge", () =>
    s.controllers.map((c) => ({ labels: { resource: c.name }, value: c.watcher.stats.lastListMs / 1000 })),
  );
  r.collect(
    "tinyhost_watch_errors_total",
    "Watch and list failures that led to a backoff.",
    "counter",
    per((c) => c.watcher.stats.errors, "resource"),
  );
  r.collect(
    "tinyhost_status_writes_total",
    "Status writes sent and accepted, per controller.",
    "counter",
    per((c) => c.writes.statusWrites),
  );
  r.collect(
    "tinyhost_status_write_skips_total",
    "Status writes skipped because nothing changed, per controller.",
    "counter",
    per((c) => c.writes.statusSkips),
  );
  r.collect(
    "tinyhost_status_write_conflicts_total",
    "409 Conflict answers met while writing (each retried), per controller.",
    "counter",
    per((c) => c.writes.conflicts),
  );
  const leaseName = s.leaseName;
  if (leaseName !== undefined) {
    r.collect("leader_election_master_status", "1 while this process holds the module's Lease.", "gauge", () => [
      { labels: { name: leaseName }, value: s.isLeader() ? 1 : 0 },
    ]);
  }
  const hops = s.hops;
  if (hops) {
    r.collect("tinyhost_hops_total", "Incoming hops admitted.", "counter", () => [{ labels: {}, value: hops.started }]);
    r.collect("tinyhost_hops_failed_total", "Incoming hops that resolved with a failure.", "counter", () => [{ labels: {}, value: hops.failed }]);
    r.collect("tinyhost_hops_refused_total", "Incoming hops refused during shutdown.", "counter", () => [{ labels: {}, value: hops.refused }]);
    r.collect("tinyhost_hops_in_flight", "Incoming hops running now.", "gauge", () => [{ labels: {}, value: hops.inFlight }]);
  }
  const meter = s.hopMeter;
  if (meter) {
    // For scaling and for people (docs/operations.md "Scaling"): a KEDA prometheus trigger can use these too.
    r.collect("tinyhost_component_hops_in_flight", "Incoming hops running now, per component.", "gauge", () =>
      [...meter.readings.inFlight].map(([component, value]) => ({ labels: { component }, value })),
    );
    const durations = r.histogram("tinyhost_hop_duration_seconds", "Handler duration of incoming hops, per component, seconds.");
    meter.onDuration = (component, seconds) => durations.observe({ component }, seconds);
    r.collect("tinyhost_durable_runs_active", "Durable runs with a step running in this process now.", "gauge", () => [
      { labels: {}, value: meter.readings.durableRunsActive },
    ]);
    r.collect("tinyhost_first_hop_seconds", "Seconds from process start to the first incoming hop handled (cold start); absent until then.", "gauge", () => {
      const v = meter.readings.firstHopSeconds;
      return v === undefined ? [] : [{ labels: {}, value: v }];
    });
  }
  const js = s.jetstream;
  if (js) {
    r.collect("tinyhost_consumer_pending", "Business consumer messages not yet delivered (num_pending), as this process last saw them.", "gauge", () =>
      js().consumers.map((c) => ({ labels: { consumer: c.module }, value: c.pending })),
    );
    r.collect(
      "tinyhost_consumer_ack_pending",
      "Business consumer messages delivered but not acknowledged (num_ack_pending), as this process last saw them.",
      "gauge",
      () => js().consumers.map((c) => ({ labels: { consumer: c.module }, value: c.ackPending })),
    );
    r.collect(
      "tinyhost_redeliveries_total",
      "Business messages JetStream delivered to this process again (nak, AckWait ran out, a replica left).",
      "counter",
      () => [{ labels: {}, value: js().redeliveries }],
    );
  }
  const slots = s.hopSlots;
  if (slots) {
    // The concurrency bound (docs/operations.md §10): limit, use, the core NATS / gRPC queue, refusals.
    r.collect("tinyhost_hop_slots_limit", "Incoming hops (NATS messages, gRPC calls) that may run at once (TINYHOST_MAX_CONCURRENT_HOPS).", "gauge", () => [
      { labels: {}, value: slots.limit },
    ]);
    r.collect("tinyhost_hop_slots_taken", "Hop slots taken now (running hops and JetStream pull reservations).", "gauge", () => [
      { labels: {}, value: slots.taken },
    ]);
    r.collect("tinyhost_hop_slots_queued", "Core NATS hops and gRPC calls waiting for a slot now.", "gauge", () => [{ labels: {}, value: slots.queued }]);
    r.collect("tinyhost_hops_busy_total", "Incoming hops refused with the retryable BUSY (no slot within the queue wait).", "counter", () => [
      { labels: {}, value: slots.busy },
    ]);
  }
  r.collect("tinyhost_runners", "Nodes with a running runner in this process.", "gauge", () => [{ labels: {}, value: s.runners() }]);
  // Throws of component code, per site (src/runtime/runner/guard.ts), and the errors that
  // escaped every guard and only the process-level last resort caught (should stay 0).
  r.collect(
    "tinyhost_component_faults_total",
    "Throws of component code caught by the node guard, per site (handle, onSettings, ports(), _reconcile updater, timer, …).",
    "counter",
    () => Object.entries(componentFaults.bySite).map(([site, value]) => ({ labels: { site }, value: value ?? 0 })),
  );
  r.collect("tinyhost_node_status_write_failures_total", "Node status writes of the runners that failed (each is retried with backoff).", "counter", () => [
    { labels: {}, value: statusWriteFailures.count },
  ]);
  r.collect(
    "tinyhost_uncaught_errors_total",
    "Uncaught exceptions and unhandled rejections the process-level last resort logged and survived.",
    "counter",
    () => [{ labels: {}, value: componentFaults.uncaught }],
  );
  // Memory against the container's limit (the chart's is 128Mi): the process collector's RSS name
  // (prometheus/client_golang `process_resident_memory_bytes`) and the JavaScript heap.
  r.collect("process_resident_memory_bytes", "Resident memory size in bytes.", "gauge", () => [{ labels: {}, value: process.memoryUsage.rss() }]);
  r.collect("tinyhost_js_heap_bytes", "JavaScript heap in use, bytes (process.memoryUsage().heapUsed).", "gauge", () => [
    { labels: {}, value: process.memoryUsage().heapUsed },
  ]);
  // Memory JS objects hold outside the heap (ArrayBuffers, Buffers): with the heap, what RSS is
  // made of beyond garbage not yet collected (docs/operations.md §8).
  r.collect(
    "tinyhost_js_external_bytes",
    "Memory held outside the JavaScript heap by JS objects, bytes (process.memoryUsage().external, ArrayBuffers included).",
    "gauge",
    () => [{ labels: {}, value: process.memoryUsage().external }],
  );
  const governor = s.memoryGovernor;
  if (governor) {
    // The soft limit the governor found (env, or 75 % of the cgroup limit) and what it cost.
    r.collect(
      "tinyhost_memory_soft_limit_bytes",
      "Soft memory limit of the memory governor, bytes (TINYHOST_MEMORY_SOFT_LIMIT, else 75 % of the cgroup limit).",
      "gauge",
      () => [{ labels: {}, value: governor.limitBytes }],
    );
    r.collect(
      "tinyhost_memory_governor_collections_total",
      "Full collections the memory governor ran because memory was over the soft limit.",
      "counter",
      () => [{ labels: {}, value: governor.collections }],
    );
  }
  const requests = s.apiserverRequests;
  if (requests) {
    r.collect("tinyhost_apiserver_requests_total", "Requests sent to the Kubernetes apiserver, per verb (each HTTP attempt).", "counter", () =>
      Object.entries(requests).map(([verb, value]) => ({ labels: { verb }, value })),
    );
  }
  return r;
}
