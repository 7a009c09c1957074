/**
 * The module manager (controller-runtime's "manager"): starts everything a module process runs in a
 * cluster, in order, logging each stage with its duration, and stops it again.
 *
 * Start (runtime-spec §9 startup order, adapted): kube client → components → transport (sender) →
 * resource manager + scheduler (components installed) → health server → Lease elector → own
 * TinyModule → transport receivers → controllers (TinyNode, TinyModule).
 * The health server starts first-thing so liveness answers at once; /readyz reports 503 until the
 * node cache synced, the transport is up and a leader is known (Go starts its probes only after a
 * leader is seen, §16 item 24).
 *
 * Stop (SIGTERM; the chart's grace period is 10 s, §12): refuse new hops and drain in-flight ones
 * (bounded) → stop the receivers → stop the controllers → stop every runner without onDestroy,
 * flushing pending status patches (§2.10) → release the Lease (ReleaseOnCancel) → stop the health
 * server. A fatal background error (a controller or the wire dying) is logged and ends the module
 * with exit code 1 ("a module that dies reports that it died", §9).
 */
import { existsSync } from "node:fs";
import { resolve } from "node:path";
import { sanitizeIdentity, sanitizeResourceName } from "../k8s/api/index.ts";
import { reconcileSpan } from "../telemetry/reconcile.ts";
import { createKubeClient, type KubeObject } from "../k8s/client/index.ts";
import {
  componentStatuses,
  kubeModuleApi,
  kubeNodeApi,
  kubeStatusSink,
  moduleStatus,
  tinyModuleReconciler,
  tinyModules,
  tinyNodeReconciler,
  tinyNodes,
  type WatchedModule,
  type WatchedNode,
} from "../k8s/controllers/index.ts";
import { createResourceManager } from "../k8s/resources/index.ts";
import { Controller, generationOrStatusMetadataChanged, LeaderElector, resourceSource, stripManagedFields, Watcher } from "../k8s/runtime/index.ts";
import { discoverComponents, type Registry } from "../runtime/registry/index.ts";
import { Scheduler } from "../runtime/scheduler/index.ts";
import type { ModuleClient } from "../sdk/client.ts";
import { healthApp, listen, parseBindAddress, type HttpListener } from "../server/index.ts";
import { logger as rootLogger, type Logger } from "../telemetry/log.ts";
import { SDK_VERSION, version as tinyhostVersion } from "../cli/version.ts";
import { HopGate } from "./hop-gate.ts";
import { moduleMetrics, type WatchedController } from "./metrics.ts";
import { ensureTinyModule } from "./register.ts";
import { openTransport, type ModuleTransport } from "./transport.ts";

/** Lease timings in ms (runtime-spec §6: 15 s / 10 s / 2 s). */
export interface LeaseTimings {
  durationMs: number;
  renewDeadlineMs: number;
  retryPeriodMs: number;
}

/** Default Lease timings (runtime-spec §6, §13.1). */
export const DEFAULT_LEASE_TIMINGS: LeaseTimings = { durationMs: 15_000, renewDeadlineMs: 10_000, retryPeriodMs: 2_000 };

/**
 * Default concurrent TinyNode reconciles (controller-runtime `MaxConcurrentReconciles`, default 1
 * there). Each reconcile waits on up to two apiserver round trips (finalizer, status), so one
 * worker leaves the apiserver idle most of the time: measured on the 2-core test bed with 1,000
 * nodes, 1 worker reached 217 writes/s against 412/s for a plain client loop with 16 in flight
 * (bench/scale.ts). A key is still never reconciled by two workers at once. Override with
 * `TINYHOST_NODE_WORKERS`.
 */
export const DEFAULT_NODE_WORKERS = 16;

/** Default bound on draining in-flight hops at shutdown, ms (inside the chart's 10 s grace period). */
export const DEFAULT_DRAIN_TIMEOUT_MS = 4_000;

/** Everything {@link startModule} needs; the CLI fills it from flags and env (runtime-spec §9). */
export interface ModuleOptions {
  /** Unsanitized module name (`--name`). */
  name: string;
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
  /** Components directory (dev discovery); absent → `./components`, or the static registry in a compiled binary. */
  componentsDir?: string;
  /** Environment (NATS selection, `SELF_SERVICE_HOST`, kubeconfig discovery). */
  env: Record<string, string | undefined>;
  /** Lease timings; default {@link DEFAULT_LEASE_TIMINGS}. */
  lease?: LeaseTimings;
  /** Drain bound, ms; default {@link DEFAULT_DRAIN_TIMEOUT_MS}. */
  drainTimeoutMs?: number;
  /** Logger; default the root logger. */
  log?: Logger;
}

/** A started module. */
export interface RunningModule {
  /** `http://host:port` of the health server. */
  readonly healthUrl: string;
  /** Resolves with the exit code: 0 after {@link stop}, 1 after a fatal background error. */
  readonly done: Promise<number>;
  /** Graceful stop (idempotent); resolves when everything stopped. */
  stop(reason: string): Promise<void>;
}

/** A stage of start-up that failed; names the stage. code `"MODULE_START"`. */
export class ModuleStartError extends Error {
  /** Stable code. */
  readonly code = "MODULE_START";
  /** The stage, e.g. `kubeconfig`. */
  readonly stage: string;
  /** @param stage - the failing stage. @param cause - its error. */
  constructor(stage: string, cause: unknown) {
    super(`start-up failed at stage "${stage}": ${cause instanceof Error ? cause.message : String(cause)}`, { cause });
    this.name = "ModuleStartError";
    this.stage = stage;
  }
}

/**
 * Starts the module; resolves once every stage ran (the module may still be unready: see /readyz).
 * @throws ModuleStartError naming the stage that failed; what already started is stopped first.
 */
export async function startModule(o: ModuleOptions): Promise<RunningModule> {
  const base = o.log ?? rootLogger;
  const log = base.child({ component: "module" });
  const moduleName = sanitizeResourceName(o.name);
  const lease = o.lease ?? DEFAULT_LEASE_TIMINGS;
  const workers = nodeWorkers(o.env); // before anything starts: a bad value stops nothing half-way
  const cleanups: (() => Promise<void>)[] = [];
  const stage = async <T>(name: string, fn: () => Promise<T> | T): Promise<T> => {
    const t0 = performance.now();
    try {
      const out = await fn();
      log.info({ stage: name, ms: Math.round(performance.now() - t0) }, `start: ${name}`);
      return out;
    } catch (err) {
      log.error({ stage: name, err: err instanceof Error ? err.message : String(err) }, `start failed: ${name}`);
      for (const c of cleanups.reverse()) await c().catch(() => {});
      throw new ModuleStartError(name, err);
    }
  };

  const kube = await stage("kubeconfig", () => createKubeClient({ ...(o.kubeconfig ? { kubeconfig: o.kubeconfig } : {}), env: o.env }));
  const registry = await stage("components", () => loadRegistry(o.componentsDir));

  let leading = false;
  const isLeader = () => leading;
  const transport: ModuleTransport = await stage("transport", () =>
    openTransport({ module: moduleName, pod: o.hostname, grpcAddress: o.grpcServerBindAddress, env: o.env, isLeader, log: base }),
  );
  cleanups.push(() => transport.close(500));

  const resources = createResourceManager({ kube, namespace: o.namespace, podName: o.hostname, env: o.env });
  const client: ModuleClient = { ...resources, mode: "cluster" };
  const scheduler = await stage("scheduler", () => {
    const s = new Scheduler({
      module: moduleName,
      remote: transport.remote,
      statusSink: kubeStatusSink((name, updater) => resources.nodes.patch(name, updater)),
      client,
      log: base.child({ component: "scheduler" }),
    });
    for (const def of registry.list()) s.install(def);
    return s;
  });
  const gate = new HopGate((msg, signal) => scheduler.handle(msg, signal));

  // Controllers and their watch pipelines (created now, run after the elector starts).
  const info = { name: o.name, version: o.version, sdkVersion: SDK_VERSION };
  const nodeReconciler = tinyNodeReconciler({ module: info, scheduler, api: kubeNodeApi(kube, o.namespace), isLeader });
  // The cache drops managedFields (controller-runtime TransformStripManagedFields): about a third
  // of a stored TinyNode's JSON, read by nothing (bench/scale.ts RSS per node).
  const nodeWatcher = new Watcher<WatchedNode>(resourceSource(kube, tinyNodes, { namespace: o.namespace }), { transform: stripManagedFields, onError: (err) => log.warn({ err: String(err) }, "tinynode watch error") });
  const nodeController = new Controller<WatchedNode>({
    name: "tinynode",
    watcher: nodeWatcher,
    // A span per reconcile (runtime-spec §2.8; the Go runtime gets these from controller-runtime).
    reconcile: (key, obj, ctx) => reconcileSpan(`TinyNode ${key}`, () => nodeReconciler.reconcile(key, obj, ctx)),
    workers,
    predicates: [generationOrStatusMetadataChanged],
    onError: (key, err) => log.warn({ controller: "tinynode", key, err: err instanceof Error ? err.message : String(err) }, "reconcile failed"),
  });
  const components = componentStatuses(registry.list());
  const moduleReconciler = tinyModuleReconciler({
    ownName: moduleName,
    desiredStatus: () => moduleStatus({ addr: transport.address(), name: o.name, version: o.version, sdkVersion: SDK_VERSION, components }),
    api: kubeModuleApi(kube, o.namespace),
    isLeader,
    ...(transport.addresses ? { addresses: transport.addresses } : {}),
  });
  const moduleWatcher = new Watcher<WatchedModule>(resourceSource(kube, tinyModules, { namespace: o.namespace }), { onError: (err) => log.warn({ err: String(err) }, "tinymodule watch error") });
  const moduleController = new Controller<WatchedModule>({
    name: "tinymodule",
    watcher: moduleWatcher,
    reconcile: (key, obj, ctx) => reconcileSpan(`TinyModule ${key}`, () => moduleReconciler.reconcile(key, obj, ctx)),
    onError: (key, err) => log.warn({ controller: "tinymodule", key, err: err instanceof Error ? err.message : String(err) }, "reconcile failed"),
  });
  const requeueOwned = () => {
    nodeController.enqueueAll((n) => nodeReconciler.owns(n.metadata.name ?? ""));
    moduleController.enqueue(`${o.namespace}/${moduleName}`);
  };

  let leaderKnown = false;
  const leaseName = `${moduleName}-lock`;
  const elector = new LeaderElector({
    client: kube,
    namespace: o.namespace,
    name: leaseName,
    identity: sanitizeIdentity(o.hostname),
    leaseDurationMs: lease.durationMs,
    renewDeadlineMs: lease.renewDeadlineMs,
    retryPeriodMs: lease.retryPeriodMs,
    onStartedLeading: () => {
      leading = true;
      scheduler.isLeader = true;
      log.info({ lease: leaseName, identity: sanitizeIdentity(o.hostname) }, "started leading");
      requeueOwned();
    },
    onStoppedLeading: () => {
      leading = false;
      scheduler.isLeader = false;
      log.info({ lease: leaseName }, "stopped leading");
      requeueOwned();
    },
    onNewLeader: (id) => {
      leaderKnown = true;
      log.info({ leader: id }, "leader observed");
    },
    onError: (err) => log.debug({ err: err instanceof Error ? err.message : String(err) }, "lease request failed"),
  });

  const controllers: WatchedController[] = [
    { name: "tinynode", controller: nodeController as unknown as Controller<KubeObject>, watcher: nodeWatcher as unknown as Watcher<KubeObject>, writes: nodeReconciler.stats },
    { name: "tinymodule", controller: moduleController as unknown as Controller<KubeObject>, watcher: moduleWatcher as unknown as Watcher<KubeObject>, writes: moduleReconciler.stats },
  ];
  const metrics = moduleMetrics({ controllers, leaseName, isLeader, hops: gate.stats, runners: () => scheduler.nodes().length, apiserverRequests: kube.stats, build: { version: tinyhostVersion, sdkVersion: SDK_VERSION } });
  const readiness = {
    "node-cache": () => (nodeController.store.synced ? true : "TinyNode cache not synced yet"),
    transport: () => transport.ready(),
    leader: () => (leaderKnown ? true : "no leader observed on the Lease yet"),
  } as const;

  const listeners: HttpListener[] = [];
  await stage("health server", () => {
    const addr = parseBindAddress(o.healthProbeBindAddress, "--health-probe-bind-address");
    if (addr) listeners.push(listen(healthApp({ readiness, metrics }), addr));
    const m = o.metricsBindAddress ? parseBindAddress(o.metricsBindAddress, "--metrics-bind-address") : undefined;
    if (m) listeners.push(listen(healthApp({ metrics, probes: false }), m));
  });
  cleanups.push(async () => {
    for (const l of listeners) await l.stop();
  });

  const stopElection = new AbortController();
  const { run: electorRun } = await stage("leader election", () => ({ run: elector.run(stopElection.signal) }));
  cleanups.push(async () => {
    stopElection.abort();
    await electorRun;
  });

  await stage("tinymodule", async () => {
    const r = await ensureTinyModule(kube, o.namespace, { name: o.name, version: o.version }, (m) => resources.createModule(m), tinyhostVersion);
    log.info({ tinymodule: moduleName, result: r }, "own TinyModule registered");
  });

  const stopControllers = new AbortController();

  // Receivers before controllers (Go's order): the TinyModule status then carries the bound address.
  await stage("transport receivers", () => transport.serve(gate.handle));
  const { nodeRun, moduleRun } = await stage("controllers", () => ({
    nodeRun: nodeController.run(stopControllers.signal),
    moduleRun: moduleController.run(stopControllers.signal),
  }));
  log.info({ module: o.name, version: o.version, namespace: o.namespace, transport: transport.kind, health: listeners[0]?.url }, "module started");

  // ---- lifecycle ----
  let stopping: Promise<void> | undefined;
  let exitCode = 0;
  const { promise: done, resolve: finish } = Promise.withResolvers<number>();

  const stop = (reason: string): Promise<void> => {
    stopping ??= (async () => {
      const t0 = performance.now();
      const step = async (name: string, fn: () => Promise<unknown>) => {
        const s = performance.now();
        try {
          await fn();
        } catch (err) {
          log.warn({ step: name, err: err instanceof Error ? err.message : String(err) }, "shutdown step failed");
        }
        log.info({ step: name, ms: Math.round(performance.now() - s) }, `shutdown: ${name}`);
      };
      log.info({ reason }, "shutting down");
      await step("drain hops", async () => {
        const left = await gate.drain(o.drainTimeoutMs ?? DEFAULT_DRAIN_TIMEOUT_MS);
        if (left > 0) log.warn({ inFlight: left }, "hops still running after the drain bound; cancelling them");
      });
      await step("stop receivers", () => transport.close(500));
      await step("stop controllers", async () => {
        stopControllers.abort();
        await Promise.race([Promise.allSettled([nodeRun, moduleRun]), Bun.sleep(2_000)]);
      });
      await step("stop runners", () => scheduler.stopAll());
      await step("release lease", async () => {
        stopElection.abort();
        await electorRun;
      });
      await step("stop health server", async () => {
        for (const l of listeners) await l.stop();
      });
      log.info({ ms: Math.round(performance.now() - t0), exitCode }, "module stopped");
      finish(exitCode);
    })();
    return stopping;
  };

  const fatal = (what: string) => (err: unknown) => {
    if (stopping) return;
    exitCode = 1;
    log.fatal({ what, err: err instanceof Error ? err.message : String(err) }, "fatal error; the module stops");
    void stop(`fatal: ${what}`);
  };
  nodeRun.then(() => !stopping && fatal("tinynode controller")(new Error("controller stopped unexpectedly")), fatal("tinynode controller"));
  moduleRun.then(() => !stopping && fatal("tinymodule controller")(new Error("controller stopped unexpectedly")), fatal("tinymodule controller"));
  electorRun.then(() => !stopping && fatal("leader election")(new Error("elector stopped unexpectedly")), fatal("leader election"));
  transport.failed.catch(fatal(`${transport.kind} transport`));

  return { healthUrl: listeners[0]?.url ?? "", done, stop };
}

/**
 * TinyNode reconcile workers: `TINYHOST_NODE_WORKERS` (a positive integer), else {@link DEFAULT_NODE_WORKERS}.
 * @throws ModuleStartError (stage `controllers`) naming the variable and value when it is not a positive integer.
 */
function nodeWorkers(env: Record<string, string | undefined>): number {
  const raw = env.TINYHOST_NODE_WORKERS;
  if (raw === undefined || raw === "") return DEFAULT_NODE_WORKERS;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1) throw new ModuleStartError("controllers", new Error(`TINYHOST_NODE_WORKERS = ${JSON.stringify(raw)} must be a positive integer`));
  return n;
}

/** Components: `dir` → discovery; else a compiled binary's static registry; else `./components`. */
async function loadRegistry(dir: string | undefined): Promise<Registry> {
  if (dir === undefined && Bun.isStandaloneExecutable) {
    const { loadStaticRegistry } = await import("../runtime/registry/static.ts");
    return loadStaticRegistry();
  }
  const path = resolve(dir ?? "components");
  if (dir === undefined && !existsSync(path)) {
    const { loadStaticRegistry } = await import("../runtime/registry/static.ts");
    return loadStaticRegistry();
  }
  return discoverComponents(path);
}
