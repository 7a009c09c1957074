/**
 * Stage 4: the reconcile loop (controller-runtime `pkg/internal/controller`, kube-rs
 * `Controller`). watcher → reflector (store) → predicates → work queue → `reconcile(key, object)`
 * on `workers` concurrent workers. A reconcile that throws is retried with the queue's rate limit;
 * one that returns `{ requeueAfterMs }` runs again after that delay; a key is never reconciled by
 * two workers at once.
 */
import type { KubeObject } from "../client/types.ts";
import type { Predicate } from "./predicates.ts";
import { objectKey } from "./source.ts";
import { reflector } from "./reflector.ts";
import { ObjectStore, type Store } from "./store.ts";
import type { Watcher } from "./watcher.ts";
import { WorkQueue, type WorkQueueOptions } from "./workqueue.ts";
import { TinyError } from "../../core/errors.ts";

/**
 * What a reconcile asks for next (controller-runtime `reconcile.Result`).
 * Nothing / `{}`: done until the object changes.
 */
export interface ReconcileResult {
  /** Run again after this many ms (resets the key's failure count). */
  requeueAfterMs?: number;
  /** Run again after the key's rate-limited delay. */
  requeue?: boolean;
}

/** Context handed to each reconcile. */
export interface ReconcileContext<T extends KubeObject> {
  /** Aborts when the controller is shutting down; in-flight reconciles may finish or stop early. */
  signal: AbortSignal;
  /** The controller's store, for reading other objects. */
  store: Store<T>;
}

/**
 * Brings the world in line with one object. `object` is the store's current copy, `undefined` when
 * the object no longer exists. Throwing requests a rate-limited retry.
 */
export type Reconciler<T extends KubeObject> = (
  key: string,
  object: T | undefined,
  ctx: ReconcileContext<T>,
) => Promise<ReconcileResult | void> | ReconcileResult | void;

/** Parameters of a {@link Controller}. */
export interface ControllerOptions<T extends KubeObject> {
  /** Name for logs and metrics, e.g. `tinynode`. */
  name: string;
  /** Stage 1: the watched resource. */
  watcher: Watcher<T>;
  /** Stage 4: the reconcile function. */
  reconcile: Reconciler<T>;
  /** Concurrent reconciles (controller-runtime `MaxConcurrentReconciles`). Default 1. */
  workers?: number;
  /** Changes pass only if every predicate returns true. Default: all pass. */
  predicates?: Predicate<T>[];
  /** The queue, or options for a new one. */
  queue?: WorkQueue | WorkQueueOptions;
  /** Told about every failed reconcile (for logging); must not throw. */
  onError?: (key: string, err: unknown) => void;
}

/** Reconcile counters (controller-runtime `controller_runtime_reconcile_total{result}`). */
export interface ControllerStats {
  /** Reconciles finished (any result). */
  reconciles: number;
  /** Reconciles that threw. */
  errors: number;
  /** Reconciles that asked for a requeue (after a delay or rate-limited). */
  requeues: number;
}

/** Thrown by {@link Controller.run} when called twice, or with a bad `workers` value. */
export class ControllerError extends TinyError<"CONTROLLER"> {
  /** @param message - what went wrong. */
  constructor(message: string) {
    super("CONTROLLER", message);
    this.name = "ControllerError";
  }
}

/** One controller: a watched resource, its store, its queue, its workers. */
export class Controller<T extends KubeObject> {
  /** Name from the options. */
  readonly name: string;
  /** The objects as last seen; `synced` after the first list. */
  readonly store: Store<T>;
  /** The work queue (depth, stats). */
  readonly queue: WorkQueue;
  /** Reconcile counters. */
  readonly stats: ControllerStats = { reconciles: 0, errors: 0, requeues: 0 };
  readonly #store = new ObjectStore<T>();
  readonly #opts: ControllerOptions<T>;
  readonly #workers: number;
  #running = false;

  /** @throws ControllerError when `workers` is not a positive integer. */
  constructor(opts: ControllerOptions<T>) {
    this.#opts = opts;
    this.name = opts.name;
    this.#workers = opts.workers ?? 1;
    if (!Number.isInteger(this.#workers) || this.#workers < 1) {
      throw new ControllerError(`controller ${opts.name}: workers = ${String(opts.workers)} must be a positive integer`);
    }
    this.store = this.#store;
    this.queue = opts.queue instanceof WorkQueue ? opts.queue : new WorkQueue(opts.queue);
  }

  /** Queues a reconcile of `key` (e.g. from another source, like a leadership change). */
  enqueue(key: string): void {
    this.queue.add(key);
  }

  /** Queues every key in the store, optionally only those `filter` accepts. */
  enqueueAll(filter: (object: T) => boolean = () => true): void {
    for (const object of this.#store.list()) if (filter(object)) this.queue.add(objectKey(object));
  }

  /**
   * Runs the pipeline until `signal` aborts, then stops the watch, stops taking keys and waits for
   * in-flight reconciles to finish (keys still queued are dropped; the next start relists).
   * @throws ControllerError when already running.
   */
  async run(signal: AbortSignal): Promise<void> {
    if (this.#running) throw new ControllerError(`controller ${this.name} is already running`);
    this.#running = true;
    const stopWatch = new AbortController();
    const onAbort = () => {
      stopWatch.abort();
      this.queue.shutDown();
    };
    if (signal.aborted) onAbort();
    signal.addEventListener("abort", onAbort, { once: true });
    const predicates = this.#opts.predicates ?? [];
    const feed = (async () => {
      for await (const change of reflector(this.#store, this.#opts.watcher.events(stopWatch.signal))) {
        if (predicates.every((p) => p(change))) this.queue.add(change.key);
      }
    })();
    const workers = Array.from({ length: this.#workers }, () => this.#work(signal));
    try {
      await Promise.all([feed, ...workers]);
    } finally {
      signal.removeEventListener("abort", onAbort);
      this.#running = false;
    }
  }

  async #work(signal: AbortSignal): Promise<void> {
    for (;;) {
      const key = await this.queue.get();
      if (key === undefined) return;
      try {
        const result = await this.#opts.reconcile(key, this.#store.get(key), { signal, store: this.#store });
        this.stats.reconciles++;
        if (result?.requeueAfterMs !== undefined && result.requeueAfterMs > 0) {
          this.stats.requeues++;
          this.queue.forget(key);
          this.queue.addAfter(key, result.requeueAfterMs);
        } else if (result?.requeue) {
          this.stats.requeues++;
          this.queue.addRateLimited(key);
        } else {
          this.queue.forget(key);
        }
      } catch (err) {
        this.stats.reconciles++;
        this.stats.errors++;
        this.#opts.onError?.(key, err);
        this.queue.addRateLimited(key);
      } finally {
        this.queue.done(key);
      }
    }
  }
}
