/**
 * The module's controllers (group `controllers`, started at once): TinyNode (runners per owned
 * node, status by the leader), TinyModule (own status: address and component list; other modules'
 * gRPC addresses) and TinyComponent (runtime-spec §5.3). Wired to what changes their answers: a
 * component-set change requeues the nodes of those components and the own TinyModule; a
 * leadership change requeues everything this replica owns (the new leader writes what the old one
 * left, a follower stops writing).
 */
import type { KubeClient, KubeObject } from "../k8s/client/index.ts";
import {
  componentStatuses,
  CONTROLLER_STOP_TIMEOUT_MS,
  DEFAULT_NODE_WORKERS,
  kubeModuleApi,
  moduleStatus,
  tinyModuleReconciler,
  tinyModules,
  tinyNodeController,
  type TinyNodeController,
  type WatchedModule,
} from "../k8s/controllers/index.ts";
import { asWatched, tinyComponentController } from "../k8s/controllers/tinycomponent-wiring.ts";
import type { TinyNode } from "../core/api/index.ts";
import { tinyNodeApi } from "../k8s/resources/index.ts";
import { Controller, resourceSource, Watcher, type WatchSource } from "../k8s/runtime/index.ts";
import { loop, type Runnable } from "../manager/index.ts";
import type { ComponentCatalog } from "../runtime/registry/catalog.ts";
import type { Scheduler } from "../runtime/scheduler/index.ts";
import { reconcileSpan } from "../telemetry/reconcile.ts";
import type { Logger } from "../telemetry/log.ts";
import type { Leadership } from "./leadership.ts";
import type { WatchedController } from "./metrics.ts";
import type { ModuleTransport } from "./transport.ts";
import { envInteger } from "./env-integer.ts";
import { reportingApplied } from "./nodes-ready.ts";
import { scaleToZeroGuard } from "./scale-to-zero.ts";
import { platformScoped, publishedComponents, type ServedModule } from "./served.ts";
import { nameMatches } from "../core/api/naming.ts";
import { messageOf } from "../core/errors.ts";

/** Options of {@link moduleControllers}. */
export interface ModuleControllersOptions {
  kube: KubeClient;
  /** Namespace of the nodes and TinyModules. */
  namespace: string;
  /** Unsanitized module name, version and the Go SDK version we implement (the TinyModule status). */
  module: { name: string; version: string; sdkVersion: string };
  /** Sanitized module name: the own TinyModule's name. */
  moduleName: string;
  /**
   * Every module name served, `module` first (served.ts); absent → `module` alone. Each one's nodes
   * are owned (their status names it) and its TinyModule gets the status.
   */
  served?: readonly ServedModule[];
  scheduler: Scheduler;
  /** The live component set (the TinyModule status lists it; TinyComponents add to it). */
  catalog: ComponentCatalog;
  /** The own addresses for the statuses, other modules' addresses (gRPC). */
  transport: Pick<ModuleTransport, "address" | "addresses">;
  leadership: Leadership;
  /** The TinyNode list/watch source (primed at start-up: its first page is already on the wire). */
  nodeSource: WatchSource<TinyNode>;
  /** Concurrent TinyNode reconciles ({@link nodeWorkers}). */
  workers: number;
  /** Told a node's name each time its `Scheduler.update` settled (the `nodes` readiness check: nodes-ready.ts). */
  onNodeApplied?: (name: string) => void;
  /** `TINYHOST_AUTOSCALE_MIN` (scale-to-zero.ts): at 0, nodes of keep-running components report an error. */
  autoscaleMin?: number;
  log: Logger;
}

/** The built controllers. */
export interface ModuleControllers {
  /** The TinyNode controller (its store feeds /readyz and the runners' status writes). */
  readonly nodes: TinyNodeController;
  /** Runnables for group `controllers`, in start order. */
  readonly runnables: readonly Runnable[];
  /** The three controllers as /metrics sees them. */
  readonly watched: readonly WatchedController[];
  /** Requeues the own TinyModules (their status changed outside a watch event, e.g. the address bound). */
  requeueOwnModule(): void;
}

/**
 * Builds the three controllers and subscribes them to component-set and leadership changes; a
 * leadership already won is acted on now.
 */
export function moduleControllers(o: ModuleControllersOptions): ModuleControllers {
  const { kube, namespace, scheduler, catalog, transport, leadership, log } = o;
  const isLeader = leadership.isLeader;
  const served = o.served ?? [{ name: o.module.name, sanitized: o.moduleName, platform: undefined }];
  // A node of a served name is run as that module (its status says which).
  const moduleOf = (segment: string) => {
    const m = served.find((s) => nameMatches(segment, s.name));
    return m === undefined ? undefined : m === served[0] ? o.module : { ...o.module, name: m.name };
  };
  const guarded = scaleToZeroGuard(platformScoped(served, scheduler), {
    min: o.autoscaleMin,
    keepRunning: (component) => scheduler.installed(component)?.requirements?.scaling?.keepRunning,
    log,
  });
  const nodes = tinyNodeController({
    module: o.module,
    ...(served.length > 1 ? { moduleOf } : {}),
    scheduler: o.onNodeApplied ? reportingApplied(guarded, o.onNodeApplied) : guarded,
    api: tinyNodeApi(kube, namespace),
    isLeader,
    source: o.nodeSource,
    workers: o.workers,
    log,
  });

  // Each status's component list, rebuilt only when the catalog changed.
  const components = new Map<string, { version: number; list: ReturnType<typeof componentStatuses> }>();
  const listed = (m: ServedModule) => {
    let c = components.get(m.sanitized);
    if (c?.version !== catalog.version)
      components.set(m.sanitized, (c = { version: catalog.version, list: componentStatuses(publishedComponents(m, catalog.list())) }));
    return c.list;
  };
  const moduleReconciler = tinyModuleReconciler({
    ownName: o.moduleName,
    alsoOwn: served.slice(1).map((m) => m.sanitized),
    desiredStatus: (name) => {
      const m = served.find((s) => s.sanitized === name) ?? served[0]!;
      const addr = transport.address(m.sanitized); // "" until the gRPC receiver bound its port
      return addr === "" ? undefined : moduleStatus({ addr, ...o.module, name: m.name, components: listed(m) });
    },
    api: kubeModuleApi(kube, namespace),
    isLeader,
    ...(transport.addresses ? { addresses: transport.addresses } : {}),
  });
  const moduleWatcher = new Watcher<WatchedModule>(resourceSource(kube, tinyModules, { namespace }), {
    onError: (err) => log.warn({ err: String(err) }, "tinymodule watch error"),
  });
  const moduleController = new Controller<WatchedModule>({
    name: "tinymodule",
    watcher: moduleWatcher,
    reconcile: (key, obj, ctx) => reconcileSpan(`TinyModule ${key}`, () => moduleReconciler.reconcile(key, obj, ctx)),
    onError: (key, err) => log.warn({ controller: "tinymodule", key, err: messageOf(err) }, "reconcile failed"),
  });
  const ownModuleKeys = served.map((m) => `${namespace}/${m.sanitized}`);
  const requeueOwnModule = () => {
    for (const key of ownModuleKeys) moduleController.enqueue(key);
  };
  const componentController = tinyComponentController({ kube, namespace, module: o.module.name, catalog, isLeader, log });

  catalog.onChange((names) => {
    nodes.controller.enqueueAll((n) => names.includes(n.spec.component) && nodes.reconciler.owns(n.metadata.name ?? ""));
    requeueOwnModule();
  });
  const requeueOwned = () => {
    nodes.controller.enqueueAll((n) => nodes.reconciler.owns(n.metadata.name ?? ""));
    requeueOwnModule();
    componentController.requeueAll();
  };
  leadership.onChange(requeueOwned);
  if (leadership.leading) requeueOwned(); // the campaign won before the controllers existed

  return {
    nodes,
    runnables: [
      nodes.runnable,
      loop("tinymodule controller", (signal) => moduleController.run(signal), { stopTimeoutMs: CONTROLLER_STOP_TIMEOUT_MS }),
      loop("tinycomponent controller", (signal) => componentController.run(signal), { stopTimeoutMs: CONTROLLER_STOP_TIMEOUT_MS }),
    ],
    watched: [
      {
        name: "tinynode",
        controller: nodes.controller as unknown as Controller<KubeObject>,
        watcher: nodes.watcher as unknown as Watcher<KubeObject>,
        writes: nodes.reconciler.stats,
      },
      {
        name: "tinymodule",
        controller: moduleController as unknown as Controller<KubeObject>,
        watcher: moduleWatcher as unknown as Watcher<KubeObject>,
        writes: moduleReconciler.stats,
      },
      { name: "tinycomponent", ...asWatched(componentController), writes: { ...componentController.reconciler.stats, conflicts: 0 } },
    ],
    requeueOwnModule,
  };
}

/**
 * TinyNode reconcile workers: `TINYHOST_NODE_WORKERS` (a positive integer), else
 * `DEFAULT_NODE_WORKERS` (src/k8s/controllers).
 * @throws Error naming the variable and value when it is not a decimal integer ≥ 1 (env-integer.ts).
 */
export function nodeWorkers(env: Record<string, string | undefined>): number {
  return envInteger(env, "TINYHOST_NODE_WORKERS", 1) ?? DEFAULT_NODE_WORKERS;
}
