/**
 * The TinyComponent controller of a running module: watch → reconcile (tinycomponent.ts) over the
 * module's component catalog. Kept apart from src/operator/controllers.ts so the module's wiring needs
 * only a few lines to run it.
 */
import type { KubeClient, KubeObject } from "../client/index.ts";
import { Controller } from "../runtime/controller.ts";
import { resourceSource } from "../runtime/source.ts";
import { Watcher } from "../runtime/watcher.ts";
import type { ComponentCatalog } from "../../runtime/registry/catalog.ts";
import { kubeComponentApi, tinyComponentReconciler, tinyComponents, type TinyComponentReconciler, type WatchedComponent } from "./tinycomponent.ts";
import { messageOf } from "../../core/errors.ts";

/**
 * Concurrent TinyComponent reconciles. A reconcile builds the definition, which loads the script
 * (up to its load limit, 5 s: src/runtime/script/limits.ts), so with one worker a script whose
 * top-level code loops held every other TinyComponent's status back for that long. Reconciles of
 * one key never overlap (the controller's queue), so more workers only let different ones run
 * side by side, each in its own sandbox Worker.
 */
export const TINYCOMPONENT_WORKERS = 4;

/** How long a watch error that keeps failing the same way stays quiet before it is logged again, ms. */
export const REPEATED_WATCH_ERROR_MS = 10 * 60_000;

/**
 * The watcher's error log: an error is logged at warn when its text differs from the last one
 * logged, or {@link REPEATED_WATCH_ERROR_MS} passed since then; else not at all. TinyComponent is
 * tinyhost's own kind: under the platform's chart (no RBAC for it, or no CRD) the watch fails the
 * same way on every backoff, which was a warning every ~20 s for the pod's whole life.
 * @param now clock in ms (tests).
 */
export function watchErrorLog(log: { warn(obj: object, msg?: string): void }, now: () => number = Date.now): (err: unknown) => void {
  let last = "";
  let at = Number.NEGATIVE_INFINITY;
  return (err) => {
    const text = String(err);
    const t = now();
    if (text === last && t - at < REPEATED_WATCH_ERROR_MS) return;
    last = text;
    at = t;
    log.warn({ err: text }, `tinycomponent watch error (logged again if it changes, else every ${REPEATED_WATCH_ERROR_MS / 60_000} min)`);
  };
}

/** What {@link tinyComponentController} needs. */
export interface TinyComponentControllerOptions {
  kube: KubeClient;
  namespace: string;
  /** Unsanitized module name (`status.module`). */
  module: string;
  catalog: ComponentCatalog;
  isLeader: () => boolean;
  log: { warn(obj: object, msg?: string): void };
}

/** The controller, its watcher and its reconciler (for metrics). */
export interface TinyComponentController {
  controller: Controller<WatchedComponent>;
  watcher: Watcher<WatchedComponent>;
  reconciler: TinyComponentReconciler;
  /** Runs until `signal` aborts; rejects when the controller dies. */
  run(signal: AbortSignal): Promise<void>;
  /** Re-reconciles every TinyComponent (leadership changed: status becomes ours to write). */
  requeueAll(): void;
}

/** Builds the TinyComponent controller for one module. */
export function tinyComponentController(o: TinyComponentControllerOptions): TinyComponentController {
  const reconciler = tinyComponentReconciler({ module: o.module, catalog: o.catalog, api: kubeComponentApi(o.kube, o.namespace), isLeader: o.isLeader });
  const watcher = new Watcher<WatchedComponent>(resourceSource(o.kube, tinyComponents, { namespace: o.namespace }), {
    onError: watchErrorLog(o.log),
  });
  const controller = new Controller<WatchedComponent>({
    name: "tinycomponent",
    watcher,
    workers: TINYCOMPONENT_WORKERS,
    reconcile: (key, obj, ctx) => reconciler.reconcile(key, obj, ctx),
    onError: (key, err) => o.log.warn({ controller: "tinycomponent", key, err: messageOf(err) }, "reconcile failed"),
  });
  return {
    controller,
    watcher,
    reconciler,
    run: (signal) => controller.run(signal),
    requeueAll: () => controller.enqueueAll(),
  };
}

/** The controller as the metrics list takes it. */
export function asWatched(c: TinyComponentController): { controller: Controller<KubeObject>; watcher: Watcher<KubeObject> } {
  return { controller: c.controller as unknown as Controller<KubeObject>, watcher: c.watcher as unknown as Watcher<KubeObject> };
}
