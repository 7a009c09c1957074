/**
 * The TinyNode controller as every mode runs it (Kubebuilder's `SetupWithManager`): a watcher over
 * a TinyNode source, the {@link generationOrStatusMetadataChanged} predicate (runtime-spec §5.1),
 * `workers` concurrent reconciles of {@link tinyNodeReconciler}, a span per reconcile (§2.8), and
 * the runnable that runs it under the manager. A cluster passes the apiserver's list/watch and REST
 * calls; local mode passes its directory-fed in-memory API — the reconcile path is the same.
 */
import { loop, type Runnable } from "../../manager/index.ts";
import { reconcileSpan } from "../../telemetry/reconcile.ts";
import type { ComponentLogger } from "../../core/context.ts";
import { Controller } from "../runtime/controller.ts";
import { generationOrStatusMetadataChanged } from "../runtime/predicates.ts";
import { splitKey, type WatchSource } from "../runtime/source.ts";
import { stripManagedFields, Watcher, type WatcherOptions } from "../runtime/watcher.ts";
import { tinyNodeReconciler, type TinyNodeReconciler, type TinyNodeReconcilerOptions } from "./tinynode.ts";
import type { TinyNode } from "../../core/api/index.ts";
import { messageOf } from "../../core/errors.ts";

/**
 * Default concurrent TinyNode reconciles (controller-runtime `MaxConcurrentReconciles`, default 1
 * there). Each reconcile waits on up to two apiserver round trips (finalizer, status), so one
 * worker leaves the apiserver idle most of the time, and the apiserver answers more writes/s the
 * more are in flight (its latency, not its CPU, bounds a client): figures in bench/RESULTS.md
 * "TinyNode workers". A key is still never reconciled by two workers at once. Cluster mode overrides it with `TINYHOST_NODE_WORKERS`; local mode runs the same number.
 */
export const DEFAULT_NODE_WORKERS = 64;

/** How long shutdown waits for in-flight reconciles, ms (inside the manager's budget). */
export const CONTROLLER_STOP_TIMEOUT_MS = 2_000;

/** Parameters of {@link tinyNodeController}: the reconciler's, plus where nodes come from. */
export interface TinyNodeControllerOptions extends TinyNodeReconcilerOptions {
  /** TinyNode list/watch: `resourceSource(kube, tinyNodes, …)` in a cluster, the in-memory API locally. */
  source: WatchSource<TinyNode>;
  /** Concurrent reconciles (a key is never reconciled by two at once). */
  workers: number;
  /** Watch errors and failed reconciles are logged here (a pino logger in a cluster, the human log locally). */
  log: Pick<ComponentLogger, "warn">;
  /** Watcher tuning (local mode turns the silence watchdog off: its watch never goes quiet by accident). */
  watcher?: WatcherOptions<TinyNode>;
  /** Told the node name after every reconcile, whatever its outcome (local mode's terminal and start signals); must not throw. */
  onReconciled?: (name: string) => void;
}

/** A built TinyNode controller. */
export interface TinyNodeController {
  /** The controller: its store (cache), queue and counters; `enqueue`/`enqueueAll` requeue nodes. */
  readonly controller: Controller<TinyNode>;
  /** The watch stage (its counters feed /metrics). */
  readonly watcher: Watcher<TinyNode>;
  /** The reconcile function's counters and the ownership rule (`owns`). */
  readonly reconciler: TinyNodeReconciler;
  /** Runs the controller under a manager (group `controllers`). */
  readonly runnable: Runnable;
}

/** Builds the TinyNode controller. @throws ControllerError when `workers` is not a positive integer. */
export function tinyNodeController(o: TinyNodeControllerOptions): TinyNodeController {
  const reconciler = tinyNodeReconciler(o);
  // The cache drops managedFields (controller-runtime TransformStripManagedFields): about a third
  // of a stored TinyNode's JSON, read by nothing (bench/scale.ts RSS per node).
  const watcher = new Watcher<TinyNode>(o.source, {
    transform: stripManagedFields,
    onError: (err) => o.log.warn({ err: String(err) }, "tinynode watch error"),
    ...o.watcher,
  });
  const controller = new Controller<TinyNode>({
    name: "tinynode",
    watcher,
    reconcile: async (key, obj, ctx) => {
      try {
        return await reconcileSpan(`TinyNode ${key}`, () => reconciler.reconcile(key, obj, ctx));
      } finally {
        o.onReconciled?.(splitKey(key).name);
      }
    },
    workers: o.workers,
    predicates: [generationOrStatusMetadataChanged],
    onError: (key, err) => o.log.warn({ controller: "tinynode", key, err: messageOf(err) }, "reconcile failed"),
  });
  const runnable = loop("tinynode controller", (signal) => controller.run(signal), { stopTimeoutMs: CONTROLLER_STOP_TIMEOUT_MS });
  return { controller, watcher, reconciler, runnable };
}
