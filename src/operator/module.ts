/**
 * Cluster mode: composes the module's parts and hands them to the manager of runnables
 * (src/manager), which starts them group by group and stops them in reverse within one budget.
 * Each part is built in its own file; this one only orders them.
 *
 * Stages before the manager (src/operator/stages.ts: a failure is a `ModuleStartError` naming the
 * stage). The order is deliberate: the kubeconfig first; then at once the three requests
 * readiness waits on — the Lease get (leadership.ts), the TinyNode cache's first list page
 * (src/k8s/runtime/primed-source.ts) and the own TinyModule create (register.ts), sent by
 * early.ts (the CLI begins it before this file is even loaded: `startModule(o, early)`); only once those
 * are on the wire the transport dial (its handshake overlaps what follows), then the components
 * load; then the scheduler (runners.ts) and the health server with its readiness checks
 * (health.ts). A failure before the manager took the campaign over ends it (the Lease is released);
 * a wire that opened is closed.
 * Runnables, by group (src/manager/manager.ts says why this order):
 *   servers      health server (/healthz at once; /readyz 503 until every part started, the node
 *                cache synced, the transport is up, a leader is known and the first list's nodes
 *                were applied — health.ts, nodes-ready.ts); memory governor
 *   stores       transport connection (its death is fatal; closed last — receivers.ts)
 *   election     the Lease campaign `<module>-lock`, adopted (released on stop: ReleaseOnCancel)
 *   runners      scheduler.stopAll on stop (§2.10); the `--components` file watch, so file
 *                components exist before the first node reconcile (runners.ts)
 *   controllers  own TinyModule registrations (one per served name: served.ts), TinyNode, TinyModule and TinyComponent controllers
 *                (§5.3), started at once (controllers.ts)
 *   receivers    transport receivers behind the hop gate; on stop: stop receiving, drain in-flight
 *                hops (bounded), refuse stragglers (receivers.ts)
 *   listeners    stop-only, first: /readyz 503 and the stop delay (src/manager/stop-delay.ts), then
 *                component HTTP listeners drain while the receivers still serve their hops
 *                (src/manager/http-drain.ts)
 * runtime-spec §9 (start-up order, adapted), §12 (the chart's 10 s grace period).
 */
import { sanitizeResourceName } from "../core/api/index.ts";
import { createResourceManager } from "../k8s/resources/index.ts";
import { httpDrain, loop, Manager, withStopDelay } from "../manager/index.ts";
import { ComponentCatalog } from "../runtime/registry/catalog.ts";
import type { ModuleClient } from "../core/client.ts";
import { logger as rootLogger, type Logger } from "../telemetry/log.ts";
import { SDK_VERSION, version as tinyhostVersion } from "../core/version.ts";
import { moduleControllers, nodeWorkers } from "./controllers.ts";
import { healthServer, moduleReadiness } from "./health.ts";
import { HopGate } from "./hop-gate.ts";
import { NodesReady, readyNodesTimeout } from "./nodes-ready.ts";
import { HopMeter } from "./hop-meter.ts";
import { beginStart, type EarlyStart } from "./early.ts";
import type { ModuleOptions } from "./options.ts";
import { DEFAULT_LEASE_TIMINGS, leaseName, type LeaseTimings } from "./leadership.ts";
import { gaugeReader, memoryGauge, MemoryGovernor, softLimitSource, softMemoryLimit } from "./memory-governor.ts";
import { moduleMetrics } from "./metrics.ts";
import { DEFAULT_DRAIN_TIMEOUT_MS, TRANSPORT_GRACE_MS, transportConnection, transportReceivers } from "./receivers.ts";
import { componentFiles, moduleScheduler, runnersStop, type NodeCache } from "./runners.ts";
import { allStages, checked, loadRegistry, ModuleStartError, stages } from "./stages.ts";
import { openTransport } from "./transport.ts";
import { natsConnectWaitFromEnv } from "./nats-connect-wait.ts";
import { servedModules } from "./served.ts";
import { autoscaleMinFromEnv } from "./scale-to-zero.ts";
import { messageOf } from "../core/errors.ts";

/**
 * Re-exported from the parts' files, where they are documented: Lease timings (leadership.ts),
 * drain bounds (receivers.ts), the stage error (stages.ts) and the TinyNode workers default
 * (src/k8s/controllers).
 */
export { DEFAULT_LEASE_TIMINGS, type LeaseTimings, DEFAULT_DRAIN_TIMEOUT_MS, ModuleStartError };
export { STOP_RESERVE_MS } from "./receivers.ts";
export { DEFAULT_NODE_WORKERS } from "../k8s/controllers/index.ts";

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
 * Starts the module; resolves once every runnable started (the module may still be unready: see /readyz).
 * @param early - the first stage, begun with these options by the caller (src/operator/early.ts
 *   `beginStart`); absent → begun here.
 * @throws ModuleStartError naming the stage before the manager that failed; ManagerStartError
 *   naming the runnable that failed (what already started is stopped first).
 */
export async function startModule(o: ModuleOptions, early?: EarlyStart): Promise<RunningModule> {
  const base = o.log ?? rootLogger;
  const log = base.child({ component: "module" });
  const moduleName = sanitizeResourceName(o.name);
  const namespace = o.namespace;
  const drainMs = o.drainTimeoutMs ?? DEFAULT_DRAIN_TIMEOUT_MS;
  // Flags and env first: a bad value stops nothing half-way.
  const workers = checked("controllers", () => nodeWorkers(o.env));
  const memoryLimit = checked("memory", () => softMemoryLimit(o.env));
  const gauge = checked("memory", () => memoryGauge(o.env));
  const readyNodesMs = checked("readiness", () => readyNodesTimeout(o.env));
  checked("transport", () => natsConnectWaitFromEnv(o.env)); // read again when the wire opens
  const autoscaleMin = checked("scaling", () => autoscaleMinFromEnv(o.env));
  const stage = stages(log);
  const served = checked("flags", () => servedModules(o.name, o.also));
  const alsoServes = served.slice(1).map((m) => m.sanitized);

  // ---- stages before the manager (this order and overlap are measured by bench/vs-go.ts)
  // The kubeconfig and the three requests /readyz waits on (early.ts): sent by the CLI before it
  // loaded this file, or here.
  const begun = early ?? beginStart(o, log);
  const { leadership } = begun;
  const kubeReady = begun.parts.then(
    (p) => {
      log.info({ stage: "kubeconfig", ms: Math.round(p.kubeconfigMs) }, "start: kubeconfig");
      return p.kube;
    },
    (err: unknown) => {
      log.error({ stage: "kubeconfig", err: messageOf(err) }, "start failed: kubeconfig");
      throw err;
    },
  );
  // The wire and the components only once those requests are on the wire: both stages evaluate
  // modules synchronously (the static registry, the NATS client) for 15–35 ms, and started at the
  // same time they held the kubeconfig stage's file reads behind them (measured). Bun's fetch does
  // its TLS handshakes on its own thread, so they overlap with the loading that follows. The dial
  // goes first: its TCP handshake and the server's INFO arrive while the components evaluate.
  const transportReady = begun.sent.then(() =>
    stage("transport", () =>
      openTransport({
        module: moduleName,
        also: alsoServes,
        pod: o.hostname,
        grpcAddress: o.grpcServerBindAddress,
        env: o.env,
        isLeader: leadership.isLeader,
        log: base,
      }),
    ),
  );
  const componentsReady = begun.sent.then(() => stage("components", () => loadRegistry(o.componentsDir === undefined ? undefined : null)));
  // Start-up failed before the manager took the campaign over: end it (the Lease is released).
  const cancelCampaign = () => begun.cancel();
  const [kube, registry, transport] = await allStages([kubeReady, componentsReady, transportReady] as const, async ([, , opened]) => {
    await opened?.close(TRANSPORT_GRACE_MS); // the first failing stage is reported; a wire that opened closes
    await cancelCampaign();
  });

  try {
    // ---- parts
    const { election, nodeSource, registrations } = await begun.parts;
    const nodeCache: NodeCache = {}; // the TinyNode informer's store, once the controllers exist
    const client: ModuleClient = { ...createResourceManager({ kube, namespace, podName: o.hostname, env: o.env }), mode: "cluster" };
    const gate = new HopGate(); // every hop from the wire passes it (the scheduler's hop middleware)
    // Per-component measurements behind the gate; the scheduler exists once the meter does, so it is looked up late.
    let runnerComponent: (node: string) => string | undefined = () => undefined;
    const meter = new HopMeter({ componentOf: (node) => runnerComponent(node) });
    const scheduler = await stage("scheduler", () =>
      moduleScheduler({ moduleName, alsoServes, kube, namespace, transport, client, leadership, nodeCache, middleware: [gate, meter], log: base }),
    );
    runnerComponent = (node) => scheduler.runner(node)?.instance.definition.info.name;
    // The live component set: bundled, files (--components, watched), TinyComponents (runtime-spec §5.3).
    const catalog = new ComponentCatalog(scheduler);
    for (const def of registry.list()) catalog.put(def, `bundled:${registry.source(def.info.name)}`);
    const nodesReady = new NodesReady({ timeoutMs: readyNodesMs, log });
    const controllers = moduleControllers({
      kube,
      namespace,
      module: { name: o.name, version: o.version, sdkVersion: SDK_VERSION },
      moduleName,
      served,
      scheduler,
      catalog,
      transport,
      leadership,
      nodeSource,
      workers,
      onNodeApplied: (name) => nodesReady.applied(name),
      ...(autoscaleMin !== undefined ? { autoscaleMin } : {}),
      log,
    });
    nodeCache.store = controllers.nodes.controller.store;
    nodesReady.watch(controllers.nodes.controller.store, controllers.nodes.reconciler.owns);
    const readiness = moduleReadiness({ nodeStore: controllers.nodes.controller.store, transport, leadership, nodes: nodesReady });
    const governor = memoryLimit === undefined ? undefined : new MemoryGovernor({ limitBytes: memoryLimit, gauge: gaugeReader(gauge) });
    const metrics = moduleMetrics({
      controllers: [...controllers.watched],
      leaseName: leaseName(moduleName),
      isLeader: leadership.isLeader,
      hops: gate.stats,
      hopMeter: meter,
      ...(transport.jetstream ? { jetstream: transport.jetstream } : {}),
      ...(transport.slots ? { hopSlots: transport.slots } : {}),
      runners: () => scheduler.nodes().length,
      ...(governor ? { memoryGovernor: governor } : {}),
      apiserverRequests: kube.stats,
      build: { version: tinyhostVersion, sdkVersion: SDK_VERSION },
    });
    const health = await stage("health server", () =>
      healthServer({
        probeAddress: o.healthProbeBindAddress,
        ...(o.metricsBindAddress ? { metricsAddress: o.metricsBindAddress } : {}),
        readiness: readiness.checks,
        metrics,
      }),
    );

    // ---- the manager
    const manager = new Manager({
      log,
      concurrentGroups: ["controllers"],
      ...(o.shutdownBudgetMs !== undefined ? { shutdownBudgetMs: o.shutdownBudgetMs } : {}),
    });
    manager.add("servers", health).add("stores", transportConnection(transport)).add("election", election.runnable).add("runners", runnersStop(scheduler));
    for (const r of registrations) manager.add("controllers", r);
    for (const r of controllers.runnables) manager.add("controllers", r);
    manager
      .add(
        "receivers",
        transportReceivers({ transport, handle: (msg, signal) => scheduler.handle(msg, signal), gate, drainMs, onServing: controllers.requeueOwnModule, log }),
      )
      // First on stop: /readyz goes 503, everything serves for the stop delay (the endpoints catch
      // up), then the HTTP drain, while a request's flow can still hop back over the wire.
      .add(
        "listeners",
        withStopDelay(httpDrain(scheduler, log, drainMs), o.stopDelayMs ?? 0, () => {
          readiness.markStopping();
          if ((o.stopDelayMs ?? 0) > 0) log.info({ stopDelayMs: o.stopDelayMs }, "stopping: /readyz 503, serving until the stop delay ends");
        }),
      );
    const fromEnv = softLimitSource(o.env) === "env";
    if (governor) {
      log.info(
        { softLimitBytes: governor.limitBytes, gauge, from: fromEnv ? "TINYHOST_MEMORY_SOFT_LIMIT" : "75 % of the cgroup memory limit" },
        `memory governor on: a full collection when ${gauge === "anon" ? "RssAnon" : "VmRSS"} is over the soft limit`,
      );
      manager.add(
        "servers",
        loop("memory governor", (signal) => governor.run(signal)),
      );
    } else {
      log.info({ from: fromEnv ? "TINYHOST_MEMORY_SOFT_LIMIT" : "no cgroup memory limit found" }, "memory governor off");
    }
    if (o.componentsDir !== undefined) manager.add("runners", componentFiles(o.componentsDir, catalog, log)); // before the controllers: nodes of file components reconcile once

    // ---- start
    await manager.start();
    log.info(
      {
        module: o.name,
        ...(alsoServes.length > 0 ? { also: served.slice(1).map((m) => m.name) } : {}),
        version: o.version,
        namespace,
        transport: transport.kind,
        health: health.url,
      },
      "module started",
    );
    readiness.markStarted();
    return { healthUrl: health.url, done: manager.done, stop: (reason) => manager.stop(reason), manager };
  } catch (err) {
    // A later stage or a runnable failed: close the wire (when the failure came before its own
    // runnable started, or it did not stop it) and end the campaign (when the manager never took it).
    await transport.close(TRANSPORT_GRACE_MS);
    await cancelCampaign();
    throw err;
  }
}
