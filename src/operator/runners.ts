/**
 * Group `runners` of cluster mode: the scheduler that runs one runner per owned TinyNode (stopped
 * with `stopAll` — runners stop without onDestroy, their status flushed, runtime-spec §2.10) and,
 * with `--components`, the component-file watch (started before the controllers, so nodes of file
 * components reconcile once, with their component present).
 */
import type { TinyNode } from "../core/api/index.ts";
import type { KubeClient } from "../k8s/client/index.ts";
import { kubeStatusSink } from "../k8s/controllers/index.ts";
import { tinyNodeApi } from "../k8s/resources/index.ts";
import type { Store } from "../k8s/runtime/store.ts";
import { onStop, type Runnable } from "../manager/index.ts";
import type { ComponentCatalog } from "../runtime/registry/catalog.ts";
import { watchComponentDir } from "../loader/runtime-files.ts";
import { Scheduler, type HopMiddleware } from "../runtime/scheduler/index.ts";
import { kubeSecretSource } from "../runtime/secrets/index.ts";
import type { ModuleClient } from "../core/client.ts";
import type { Logger } from "../telemetry/log.ts";
import type { Leadership } from "./leadership.ts";
import type { ModuleTransport } from "./transport.ts";

/**
 * Where runner status writes find a node's cached copy: the TinyNode informer's store, set once the
 * controllers are built (they need the scheduler first); unset → the write reads the node itself.
 */
export interface NodeCache {
  store?: Store<TinyNode>;
}

/** Options of {@link moduleScheduler}. */
export interface ModuleSchedulerOptions {
  /** Sanitized module name (hops to its own nodes stay in-process). */
  moduleName: string;
  /** Further sanitized module names served (`--also`): hops to their nodes stay in-process too. */
  alsoServes?: readonly string[];
  kube: KubeClient;
  /** Namespace of the nodes. */
  namespace: string;
  /** The sender for other modules' hops and the durable step ledger it shares. */
  transport: Pick<ModuleTransport, "remote" | "ledger">;
  /** The SDK client components get (cluster mode). */
  client: ModuleClient;
  /** `scheduler.isLeader` follows it (a campaign won before is applied now). */
  leadership: Leadership;
  nodeCache: NodeCache;
  /** Hop middleware of the scheduler (the shutdown gate). */
  middleware?: readonly HopMiddleware[];
  log: Logger;
}

/** Builds the scheduler, following the leadership. @throws what the Scheduler constructor throws. */
export function moduleScheduler(o: ModuleSchedulerOptions): Scheduler {
  const nodes = tinyNodeApi(o.kube, o.namespace);
  const scheduler = new Scheduler({
    module: o.moduleName,
    ...(o.alsoServes?.length ? { alsoServes: o.alsoServes } : {}),
    remote: o.transport.remote,
    ...(o.transport.ledger ? { ledger: o.transport.ledger } : {}),
    // Status writes start from the informer's copy (no GET per write).
    statusSink: kubeStatusSink(
      (name, updater, current) => nodes.patch(name, updater, o.namespace, current),
      (name) => o.nodeCache.store?.getByName(name, o.namespace),
    ),
    client: o.client,
    // `[[secret:…]]` placeholders in settings: the module namespace's Secrets (Go pkg/secret).
    secrets: kubeSecretSource(o.kube, o.namespace),
    log: o.log.child({ component: "scheduler" }),
    ...(o.middleware ? { middleware: o.middleware } : {}),
  });
  scheduler.isLeader = o.leadership.leading; // the campaign may have won already
  o.leadership.onChange((leading) => {
    scheduler.isLeader = leading;
  });
  return scheduler;
}

/** Stop-only runnable: every runner stops (no onDestroy), status flushed, within the budget. */
export function runnersStop(scheduler: Scheduler): Runnable {
  return onStop("runners", (ctx) => scheduler.stopAll(ctx.signal));
}

/**
 * The `--components` directory as a runnable: start loads it into the catalog (a file may replace
 * a bundled component of its name) and watches it; stop ends the watch. Files that fail to load
 * are counted in the log line and do not fail the start.
 * @throws RegistryError `COMPONENTS_DIR_NOT_FOUND` (from start) when `dir` is missing.
 */
export function componentFiles(dir: string, catalog: ComponentCatalog, log: Logger): Runnable {
  let watch: ReturnType<typeof watchComponentDir> | undefined;
  return {
    name: "component files",
    async start() {
      watch = watchComponentDir(dir, { catalog, overridable: (origin) => origin.startsWith("bundled:"), log });
      log.info({ dir, failed: (await watch.ready).length }, "component files loaded; watching for changes");
    },
    stop: () => watch?.stop(),
  };
}
