/**
 * Cluster mode: builds the module's parts and hands them to the manager of runnables
 * (src/manager), which starts them group by group and stops them in reverse within one budget.
 *
 * Before the manager (a failure names its stage, `ModuleStartError`): kube client, components and
 * transport (the sender: the scheduler needs it) at once — reading the kubeconfig, loading the
 * components and connecting to NATS do not need each other, so their waits overlap (issue 19) — then
 * the scheduler with the components installed.
 * Runnables, by group (src/manager/manager.ts says why this order):
 *   servers      health server (/healthz at once; /readyz 503 until the node cache synced, the
 *                transport is up and a leader is known — Go starts probes only then, §16 item 24)
 *   stores       transport connection (its death is fatal; closed last)
 *   election     Lease elector `<module>-lock` (released on stop: ReleaseOnCancel); it campaigns
 *                from the moment the kube client exists (with the own TinyModule registration),
 *                while the other stages still run — the manager adopts the running campaign, and a
 *                start-up that fails before that ends it (the Lease is released)
 *   runners      scheduler.stopAll on stop: runners stop without onDestroy, status flushed (§2.10)
 *   controllers  own TinyModule registration, TinyNode controller, TinyModule controller,
 *                TinyComponent controller (§5.3), started at once (the registration's round trips
 *                no longer delay the TinyNode list); the component-file watch (`--components`) is
 *                in runners, so file components exist before the first node reconcile
 *   receivers    transport receivers behind the hop gate; on stop, first: stop receiving (leave the
 *                queue group, stop pulls, nak what was pulled but not started) so peers take
 *                over, then wait for in-flight hops (bounded), then refuse stragglers (retryable)
 *   listeners    stop-only, first: component HTTP listeners refuse new connections and their
 *                in-flight requests finish (bounded) while the receivers still serve their hops
 * runtime-spec §9 (start-up order, adapted), §12 (the chart's 10 s grace period).
 */
import { existsSync } from "node:fs";
import { resolve } from "node:path";
import { sanitizeIdentity, sanitizeResourceName } from "../k8s/api/index.ts";
import { reconcileSpan } from "../telemetry/reconcile.ts";
import { createKubeClient, type KubeObject } from "../k8s/client/index.ts";
import {
  componentStatuses,
  DEFAULT_NODE_WORKERS,
  kubeModuleApi,
  kubeNodeApi,
  kubeStatusSink,
  moduleStatus,
  tinyModuleReconciler,
  tinyModules,
  tinyNodeController,
  tinyNodes,
  type WatchedModule,
} from "../k8s/controllers/index.ts";
import { bindKinds, createResourceManager, patchNode } from "../k8s/resources/index.ts";
import type { TinyNode } from "../k8s/api/index.ts";
import type { Store } from "../k8s/runtime/store.ts";
import { Controller, LeaderElector, resourceSource, Watcher } from "../k8s/runtime/index.ts";
import { primedSource } from "../k8s/runtime/primed-source.ts";
import { earlyLoop, httpDrain, loop, Manager, onStop, task, type Runnable } from "../manager/index.ts";
import { discoverComponents, type Registry } from "../runtime/registry/index.ts";
import { ComponentCatalog } from "../runtime/registry/catalog.ts";
import { watchComponentDir } from "../runtime/registry/runtime-files.ts";
import { asWatched, tinyComponentController } from "../k8s/controllers/tinycomponent-wiring.ts";
import { Scheduler } from "../runtime/scheduler/index.ts";
import type { ModuleClient } from "../sdk/client.ts";
import { TinyError } from "../sdk/errors.ts";
import { logger as rootLogger, type Logger } from "../telemetry/log.ts";
import { SDK_VERSION, version as tinyhostVersion } from "../cli/version.ts";
import { healthServer } from "./health.ts";
import { MemoryGovernor, softMemoryLimit } from "./memory-governor.ts";
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

/** Default concurrent TinyNode reconciles (the shared controller's; override with `TINYHOST_NODE_WORKERS`). */
export { DEFAULT_NODE_WORKERS };

/** Default bound on draining in-flight hops at shutdown, ms (inside the manager's shutdown budget). */
export const DEFAULT_DRAIN_TIMEOUT_MS = 4_000;

/**
 * Part of the shutdown budget the hop drain leaves to what stops after it — runners flushing their
 * status, the Lease release — ms (issue 21: the HTTP drain before it may have used up to 4 s).
 */
export const STOP_RESERVE_MS = 1_500;

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
  /** The whole graceful-shutdown budget, ms; default the manager's (8 s). */
  shutdownBudgetMs?: number;
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
  /** The manager running the module's parts (another helper's wiring adds runnables here before start). */
  readonly manager: Manager;
}

/**
 * A stage before the manager failed (kubeconfig, components, transport, scheduler, a flag); names
 * the stage. A runnable that fails to start is a `ManagerStartError` with the same message shape.
 * code `"MODULE_START"`.
 */
export class ModuleStartError extends TinyError {
  /** The stage, e.g. `kubeconfig`. */
  readonly stage: string;
  /** @param stage - the failing stage. @param cause - its error. */
  constructor(stage: string, cause: unknown) {
    super("MODULE_START", `start-up failed at stage "${stage}": ${cause instanceof Error ? cause.message : String(cause)}`, { cause });
    this.stage = stage;
  }
}

/**
 * Starts the module; resolves once every runnable started (the module may still be unready: see /readyz).
 * @throws ModuleStartError naming the stage before the manager that failed; ManagerStartError
 *   naming the runnable that failed (what already started is stopped first).
 */
export async function startModule(o: ModuleOptions): Promise<RunningModule> {
  const base = o.log ?? rootLogger;
  const log = base.child({ component: "module" });
  const moduleName = sanitizeResourceName(o.name);
  const lease = o.lease ?? DEFAULT_LEASE_TIMINGS;
  const workers = nodeWorkers(o.env); // before anything starts: a bad value stops nothing half-way
  let memoryLimit: number | undefined;
  try {
    memoryLimit = softMemoryLimit(o.env);
  } catch (err) {
    throw new ModuleStartError("memory", err);
  }
  const stage = async <T>(name: string, fn: () => Promise<T> | T): Promise<T> => {
    const t0 = performance.now();
    try {
      const out = await fn();
      log.info({ stage: name, ms: Math.round(performance.now() - t0) }, `start: ${name}`);
      return out;
    } catch (err) {
      log.error({ stage: name, err: err instanceof Error ? err.message : String(err) }, `start failed: ${name}`);
      throw new ModuleStartError(name, err);
    }
  };

  let leading = false;
  let leaderKnown = false;
  const isLeader = () => leading;
  // Set once the scheduler and the controllers exist; the Lease campaign starts before them.
  let onLeadershipChange: () => void = () => {};
  const leaseName = `${moduleName}-lock`;
  const kubeReady = stage("kubeconfig", () => createKubeClient({ ...(o.kubeconfig ? { kubeconfig: o.kubeconfig } : {}), env: o.env }));
  // The Lease campaign and the own TinyModule registration need only the API client: they start as
  // soon as it exists, while the components load and the wire connects (the Lease's get + create is
  // the longest wait before /readyz; issue 19). The manager adopts the campaign (group election) and
  // waits for the registration (group controllers), so a failure of either still fails start-up.
  const early = kubeReady.then((kube) => ({
    election: earlyLoop("leader election", (signal) =>
      new LeaderElector({
        client: kube,
        namespace: o.namespace,
        name: leaseName,
        identity: sanitizeIdentity(o.hostname),
        leaseDurationMs: lease.durationMs,
        renewDeadlineMs: lease.renewDeadlineMs,
        retryPeriodMs: lease.retryPeriodMs,
        onStartedLeading: () => {
          leading = true;
          log.info({ lease: leaseName, identity: sanitizeIdentity(o.hostname) }, "started leading");
          onLeadershipChange();
        },
        onStoppedLeading: () => {
          leading = false;
          log.info({ lease: leaseName }, "stopped leading");
          onLeadershipChange();
        },
        onNewLeader: (id) => {
          leaderKnown = true;
          log.info({ leader: id }, "leader observed");
        },
        onError: (err) => log.debug({ err: err instanceof Error ? err.message : String(err) }, "lease request failed"),
      }).run(signal),
    ),
    // The TinyNode cache's first list (node-cache in /readyz) leaves with the two requests above
    // instead of after the manager starts the controllers (primed-source.ts).
    nodeSource: primedSource(resourceSource(kube, tinyNodes, { namespace: o.namespace })),
    registration: settle(
      ensureTinyModule(kube, o.namespace, { name: o.name, version: o.version }, (m, annotations) => createResourceManager({ kube, namespace: o.namespace, podName: o.hostname, env: o.env }).createModule(m, annotations), tinyhostVersion),
    ),
  }));
  early.catch(() => {}); // a kubeconfig failure is reported below, as the stage's
  // The components and the wire load only once the Lease get and the TinyModule create are on the
  // wire: both stages evaluate modules synchronously (the static registry, the NATS client) for
  // 15–35 ms, and started at the same time they held the kubeconfig stage's file reads behind
  // them, so the first apiserver request left that much later (issue 19, measured). Bun's fetch
  // does its TLS handshakes on its own thread, so they overlap with the loading that follows.
  // setImmediate: after the microtasks that carry both requests down to fetch().
  const afterEarly = early.then(
    () => new Promise<void>((r) => setImmediate(r)),
    () => undefined,
  );
  // The wire's dial goes first: its TCP handshake and the server's INFO then arrive while the
  // components evaluate, instead of after them.
  const transportReady = afterEarly.then(() => stage("transport", () => openTransport({ module: moduleName, pod: o.hostname, grpcAddress: o.grpcServerBindAddress, env: o.env, isLeader, log: base })));
  const componentsReady = afterEarly.then(() => stage("components", () => loadRegistry(o.componentsDir === undefined ? undefined : null)));
  try {
    return await startParts(await Promise.allSettled([kubeReady, componentsReady, transportReady] as const));
  } catch (err) {
    // Start-up failed before the manager took the campaign over: end it (the Lease is released).
    await early.then((e) => e.election.cancel(), () => {});
    throw err;
  }

  /** Everything after the three stages (a nested function: it shares the campaign's state above). */
  async function startParts(opened: [PromiseSettledResult<Awaited<typeof kubeReady>>, PromiseSettledResult<Registry>, PromiseSettledResult<ModuleTransport>]): Promise<RunningModule> {
    const failedStage = opened.find((r) => r.status === "rejected");
    if (failedStage) {
      // The first failing stage in the order above is reported; a wire that did open is closed again.
      if (opened[2].status === "fulfilled") await opened[2].value.close(500);
      throw failedStage.reason;
    }
    const { election, registration, nodeSource } = await early;
    const kube = (opened[0] as PromiseFulfilledResult<Awaited<ReturnType<typeof createKubeClient>>>).value;
    const registry = (opened[1] as PromiseFulfilledResult<Registry>).value;
    const transport = (opened[2] as PromiseFulfilledResult<ModuleTransport>).value;
    const resources = createResourceManager({ kube, namespace: o.namespace, podName: o.hostname, env: o.env });
    const client: ModuleClient = { ...resources, mode: "cluster" };
    const nodeCalls = bindKinds(kube).nodes;
    // Runner status writes start from the TinyNode informer's copy (no GET per write); the store
    // exists once the controller is built below.
    let nodeStore: Store<TinyNode> | undefined;
    const scheduler = await stage("scheduler", () => {
      const s = new Scheduler({
        module: moduleName,
        remote: transport.remote,
        ...(transport.ledger ? { ledger: transport.ledger } : {}),
        statusSink: kubeStatusSink(
          (name, updater, current) => patchNode(nodeCalls, name, o.namespace, updater, current),
          (name) => nodeStore?.getByName(name, o.namespace),
        ),
        client,
        log: base.child({ component: "scheduler" }),
      });
      s.isLeader = leading; // the campaign may have won already
      return s;
    }).catch(async (err) => {
      await transport.close(500);
      throw err;
    });
    // The live component set: bundled, files (--components, watched), TinyComponents (runtime-spec §5.3).
    const catalog = new ComponentCatalog(scheduler);
    for (const def of registry.list()) catalog.put(def, `bundled:${registry.source(def.info.name)}`);
    const gate = new HopGate((msg, signal) => scheduler.handle(msg, signal));

    // Controllers and their watch pipelines.
    const info = { name: o.name, version: o.version, sdkVersion: SDK_VERSION };
    const nodes = tinyNodeController({ module: info, scheduler, api: kubeNodeApi(kube, o.namespace), isLeader, source: nodeSource, workers, log });
    nodeStore = nodes.controller.store;
    let components = { version: -1, list: componentStatuses([]) };
    const listed = () => (components.version === catalog.version ? components : (components = { version: catalog.version, list: componentStatuses(catalog.list()) })).list;
    const moduleReconciler = tinyModuleReconciler({
      ownName: moduleName,
      desiredStatus: () => {
        const addr = transport.address(); // "" until the gRPC receiver bound its port
        return addr === "" ? undefined : moduleStatus({ addr, name: o.name, version: o.version, sdkVersion: SDK_VERSION, components: listed() });
      },
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
    const ownModuleKey = `${o.namespace}/${moduleName}`;
    const componentController = tinyComponentController({ kube, namespace: o.namespace, module: o.name, catalog, isLeader, log });
    catalog.onChange((names) => {
      nodes.controller.enqueueAll((n) => names.includes(n.spec.component) && nodes.reconciler.owns(n.metadata.name ?? ""));
      moduleController.enqueue(ownModuleKey);
    });
    const requeueOwned = () => {
      nodes.controller.enqueueAll((n) => nodes.reconciler.owns(n.metadata.name ?? ""));
      moduleController.enqueue(ownModuleKey);
      componentController.requeueAll();
    };

    let started = false; // every runnable started: before that /readyz is 503 (the receivers start last)
    onLeadershipChange = () => {
      scheduler.isLeader = leading;
      requeueOwned();
    };
    if (leading) onLeadershipChange();

    const controllers: WatchedController[] = [
      { name: "tinynode", controller: nodes.controller as unknown as Controller<KubeObject>, watcher: nodes.watcher as unknown as Watcher<KubeObject>, writes: nodes.reconciler.stats },
      { name: "tinymodule", controller: moduleController as unknown as Controller<KubeObject>, watcher: moduleWatcher as unknown as Watcher<KubeObject>, writes: moduleReconciler.stats },
      { name: "tinycomponent", ...asWatched(componentController), writes: { ...componentController.reconciler.stats, conflicts: 0 } },
    ];
    const metrics = moduleMetrics({ controllers, leaseName, isLeader, hops: gate.stats, ...(transport.slots ? { hopSlots: transport.slots } : {}), runners: () => scheduler.nodes().length, apiserverRequests: kube.stats, build: { version: tinyhostVersion, sdkVersion: SDK_VERSION } });
    const health = await stage("health server", () =>
      healthServer({
        probeAddress: o.healthProbeBindAddress,
        ...(o.metricsBindAddress ? { metricsAddress: o.metricsBindAddress } : {}),
        readiness: {
          started: () => (started ? true : "not every part has started yet (transport receivers last)"),
          "node-cache": () => (nodes.controller.store.synced ? true : "TinyNode cache not synced yet"),
          transport: () => transport.ready(),
          leader: () => (leaderKnown ? true : "no leader observed on the Lease yet"),
        },
        metrics,
      }),
    ).catch(async (err) => {
      await transport.close(500);
      throw err;
    });

    const drainMs = o.drainTimeoutMs ?? DEFAULT_DRAIN_TIMEOUT_MS;
    const connection: Runnable = {
      name: "transport connection",
      start: (ctx) => void transport.failed.catch((err) => ctx.fatal(new Error(`${transport.kind} transport: ${err instanceof Error ? err.message : String(err)}`))),
      // Closed in group `stores`, after the runners and the Lease: the receivers only stopped serving,
      // so a flow still running in the HTTP or hop drain could send to other modules until here.
      stop: () => transport.close(500),
    };
    const receivers: Runnable = {
      name: "transport receivers",
      async start() {
        await transport.serve(gate.handle);
        moduleController.enqueue(ownModuleKey); // the TinyModule status now carries the bound address
      },
      // Shutdown order (issue 21): stop taking work first — leave the core queue group, stop
      // JetStream pulls and nak what they still deliver — so peers take over at once; then wait,
      // bounded, for the hops already running (the controllers and runners still run); only then
      // does the gate refuse stragglers (retryable) and the serving half stop (the connection stays
      // open for sends until group `stores`).
      async stop(ctx) {
        // The HTTP drain (group `listeners`) may have used part of the budget: keep a reserve for the
        // runners' last status writes and the Lease release that follow.
        const bound = Math.min(drainMs, Math.max(0, ctx.remainingMs() - STOP_RESERVE_MS));
        const t0 = performance.now();
        await transport.stopReceiving();
        const left = await gate.drain(Math.max(0, bound - (performance.now() - t0)));
        if (left > 0) log.warn({ inFlight: left }, "hops still running after the drain bound; cancelling them");
        log.info({ drainMs: Math.round(performance.now() - t0), stats: gate.stats }, "transport receivers stopped");
        await transport.stopServing(500);
      },
    };

    const componentFiles: Runnable | undefined =
      o.componentsDir === undefined
        ? undefined
        : (() => {
            const dir = o.componentsDir;
            let watch: ReturnType<typeof watchComponentDir> | undefined;
            return {
              name: "component files",
              async start() {
                watch = watchComponentDir(dir, { catalog, overridable: (origin) => origin.startsWith("bundled:"), log });
                log.info({ dir, failed: (await watch.ready).length }, "component files loaded; watching for changes");
              },
              stop: () => watch?.stop(),
            };
          })();

    const manager = new Manager({ log, concurrentGroups: ["controllers"], ...(o.shutdownBudgetMs !== undefined ? { shutdownBudgetMs: o.shutdownBudgetMs } : {}) });
    manager
      .add("servers", health)
      .add("stores", connection)
      .add("election", election.runnable)
      .add("runners", onStop("runners", (ctx) => scheduler.stopAll(ctx.signal)))
      .add("controllers", task("own TinyModule", async () => log.info({ tinymodule: moduleName, result: await registration() }, "own TinyModule registered")))
      .add("controllers", nodes.runnable)
      .add("controllers", loop("tinymodule controller", (signal) => moduleController.run(signal), { stopTimeoutMs: 2_000 }))
      .add("controllers", loop("tinycomponent controller", (signal) => componentController.run(signal), { stopTimeoutMs: 2_000 }))
      .add("receivers", receivers)
      .add("listeners", httpDrain(scheduler, log, drainMs)); // first on stop: a request's flow can still hop back over the wire
    if (memoryLimit !== undefined) {
      const governor = new MemoryGovernor({ limitBytes: memoryLimit });
      log.info({ softLimitBytes: memoryLimit }, "memory governor on: a full collection when RSS is over the soft limit");
      manager.add("servers", loop("memory governor", (signal) => governor.run(signal)));
    }
    if (componentFiles) manager.add("runners", componentFiles); // before the controllers: nodes of file components reconcile once
    try {
      await manager.start();
    } catch (err) {
      await transport.close(500); // when the failure came before the transport's own runnable started
      throw err;
    }
    log.info({ module: o.name, version: o.version, namespace: o.namespace, transport: transport.kind, health: health.url }, "module started");
    started = true;
    return { healthUrl: health.url, done: manager.done, stop: (reason) => manager.stop(reason), manager };
  }
}

/** `p` now, its outcome later: a rejection is not unhandled in between; calling the result re-throws it. */
function settle<T>(p: Promise<T>): () => Promise<T> {
  p.catch(() => {});
  return () => p;
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

/**
 * The bundled components: `null` (files come from `--components`) or a compiled binary → the
 * static registry; else `./components` when it exists (dev), else the static registry.
 */
async function loadRegistry(dir: string | undefined | null): Promise<Registry> {
  if (dir === null) {
    const { loadStaticRegistry } = await import("../runtime/registry/static.ts");
    return loadStaticRegistry();
  }
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
