/**
 * The TinyNode reconciler (runtime-spec §5.1, §14.1, §14.7): every replica runs every node it owns;
 * only the leader writes the node's status.
 *
 * 1. Ownership by the node NAME's module segment (`nameMatches`), never `spec.module` (§16 item 1).
 * 2. Gone (deleted, or removed by a relist): stop the local runner with onDestroy. Go does nothing
 *    here, so a replica that lost the race to remove the finalizer leaks its runner (§16 item 23);
 *    we stop it (docs/compatibility.md).
 * 3. Deleting (`deletionTimestamp`): destroy the runner (onDestroy), then remove our finalizer.
 * 4. Add finalizer `io.tinysystems/node-finalizer` when missing — every replica; the write is a
 *    merge patch guarded by resourceVersion, retried on 409, so concurrent adds never clobber.
 * 5. `Scheduler.update(node)` on every replica.
 * 6. Follower → requeue after 1 min, no writes. Leader → write the owned status when it changed (or
 *    the heartbeat is due), retrying 409s on a fresh read; requeue after 5 min; a scheduler error
 *    that is not permanent is thrown after the write (rate-limited retry, as Go returns it).
 * Pod shutdown never reaches onDestroy: that is `Scheduler.stopAll` (runtime-spec §2.10).
 */
import { NODE_FINALIZER, nameMatches, parseFullName } from "../../core/api/index.ts";
import { isNotFound, retryOnConflict } from "../client/index.ts";
import type { ReconcileResult, Reconciler } from "../runtime/controller.ts";
import { splitKey } from "../runtime/source.ts";
import { isPermanent } from "../../core/errors.ts";
import type { TinyNodeStatus } from "../../core/api/index.ts";
import type { TinyNodeApi } from "../resources/node-api.ts";
import { heartbeatDue, nodeStatusPatch, ownedNodeStatus, ownedStatusChanged, type ModuleInfo } from "./node-status.ts";
import type { TinyNode } from "../../core/api/index.ts";

/** Leader requeue, ms (runtime-spec §5.1 step 8, §13.1). */
export const LEADER_REQUEUE_MS = 5 * 60_000;
/** Follower requeue, ms (runtime-spec §5.1 step 7, §13.1). */
export const FOLLOWER_REQUEUE_MS = 60_000;

/** The scheduler calls the reconciler makes (a subset of `Scheduler`, so tests pass a fake). */
export interface NodeScheduler {
  /** Creates or updates the node's runner; reports the status fields the runtime owns. @throws PermanentError for an unknown component. */
  update(node: TinyNode): Promise<TinyNodeStatus>;
  /** Stops the node's runner with onDestroy and forgets it; no-op without a runner. */
  destroy(name: string): Promise<void>;
}

/** What the reconciler counts (for /metrics and tests). */
export interface TinyNodeReconcilerStats {
  /** Status writes sent and accepted. */
  statusWrites: number;
  /** Status writes skipped because nothing but `lastUpdateTime` would change. */
  statusSkips: number;
  /** 409 answers met while writing (each re-read and retried). */
  conflicts: number;
  /** Finalizers added. */
  finalizersAdded: number;
  /** Finalizers removed. */
  finalizersRemoved: number;
  /** Runners destroyed (node deleted). */
  destroyed: number;
}

/** Parameters of {@link tinyNodeReconciler}. Durations in ms. */
export interface TinyNodeReconcilerOptions {
  /** This module: ownership (by `name`) and `status.module`. */
  module: ModuleInfo;
  /**
   * The module a node-name segment is run as, when this process runs more than {@link module}
   * (local mode runs every module of a directory); undefined = not owned. Default: {@link module}
   * when `nameMatches(segment, module.name)`.
   */
  moduleOf?: (segment: string) => ModuleInfo | undefined;
  /** Runner owner. */
  scheduler: NodeScheduler;
  /** Node reads and writes in the module's namespace. */
  api: Pick<TinyNodeApi, "get" | "setFinalizers" | "patchStatus">;
  /** Live leader flag (runtime-spec §6). */
  isLeader: () => boolean;
  /** Default {@link LEADER_REQUEUE_MS}. */
  leaderRequeueMs?: number;
  /** Default {@link FOLLOWER_REQUEUE_MS}. */
  followerRequeueMs?: number;
  /** Rewrite an unchanged status when its `lastUpdateTime` is this old. Default 90 % of `leaderRequeueMs`. */
  heartbeatMs?: number;
  /** Wall clock for `lastUpdateTime`. Default `() => new Date()`. */
  now?: () => Date;
}

/** The reconcile function plus its counters. */
export interface TinyNodeReconciler {
  /** Pass to `new Controller({ reconcile })`. */
  reconcile: Reconciler<TinyNode>;
  /** Live counters. */
  readonly stats: TinyNodeReconcilerStats;
  /** True when this module owns the node named `name` (runtime-spec §5.1 step 1); for `Controller.enqueueAll`. */
  owns(name: string): boolean;
}

/** Builds the TinyNode reconciler. */
export function tinyNodeReconciler(opts: TinyNodeReconcilerOptions): TinyNodeReconciler {
  const leaderRequeueMs = opts.leaderRequeueMs ?? LEADER_REQUEUE_MS;
  const followerRequeueMs = opts.followerRequeueMs ?? FOLLOWER_REQUEUE_MS;
  const heartbeatMs = opts.heartbeatMs ?? Math.floor(leaderRequeueMs * 0.9);
  const now = opts.now ?? (() => new Date());
  const { api, scheduler } = opts;
  const stats: TinyNodeReconcilerStats = { statusWrites: 0, statusSkips: 0, conflicts: 0, finalizersAdded: 0, finalizersRemoved: 0, destroyed: 0 };

  const moduleOf = opts.moduleOf ?? ((segment: string) => (nameMatches(segment, opts.module.name) ? opts.module : undefined));
  const moduleOfName = (name: string): ModuleInfo | undefined => {
    try {
      return moduleOf(parseFullName(name).module);
    } catch {
      return undefined; // not a node name: ignored, as Go's ParseFullName failure
    }
  };
  const owns = (name: string): boolean => moduleOfName(name) !== undefined;

  const destroy = async (name: string) => {
    await scheduler.destroy(name);
    stats.destroyed++;
  };

  /** Adds our finalizer; resolves to the node after the write, or undefined when the node is gone. */
  const ensureFinalizer = async (node: TinyNode, name: string): Promise<TinyNode | undefined> => {
    try {
      const out = await retryOnConflict({
        what: `TinyNode ${name} finalizer`,
        current: node,
        read: () => api.get(name),
        write: (n) => {
          const finalizers = n.metadata.finalizers ?? [];
          if (finalizers.includes(NODE_FINALIZER) || n.metadata.deletionTimestamp) return undefined;
          return api.setFinalizers(name, n.metadata.resourceVersion ?? "", [...finalizers, NODE_FINALIZER]);
        },
      });
      stats.conflicts += out.conflicts;
      if (out.written) stats.finalizersAdded++;
      return out.object;
    } catch (err) {
      if (isNotFound(err)) return undefined;
      throw err;
    }
  };

  const removeFinalizer = async (node: TinyNode, name: string): Promise<void> => {
    try {
      const out = await retryOnConflict({
        what: `TinyNode ${name} finalizer`,
        current: node,
        read: () => api.get(name),
        write: (n) => {
          const finalizers = n.metadata.finalizers ?? [];
          if (!finalizers.includes(NODE_FINALIZER)) return undefined;
          return api.setFinalizers(
            name,
            n.metadata.resourceVersion ?? "",
            finalizers.filter((f) => f !== NODE_FINALIZER),
          );
        },
      });
      stats.conflicts += out.conflicts;
      if (out.written) stats.finalizersRemoved++;
    } catch (err) {
      if (!isNotFound(err)) throw err; // another replica removed the last finalizer first
    }
  };

  const writeStatus = async (node: TinyNode, name: string, reported: TinyNodeStatus | undefined, failure: unknown): Promise<void> => {
    const out = await retryOnConflict({
      what: `TinyNode ${name} status`,
      current: node,
      read: () => api.get(name),
      write: (n) => {
        const desired = ownedNodeStatus(n, moduleOfName(name) ?? opts.module, reported, failure);
        const at = now();
        if (!ownedStatusChanged(n.status, desired) && !heartbeatDue(n.status, at, heartbeatMs)) return undefined;
        return api.patchStatus(name, n.metadata.resourceVersion ?? "", nodeStatusPatch(desired, at));
      },
    });
    stats.conflicts += out.conflicts;
    if (out.written) stats.statusWrites++;
    else stats.statusSkips++;
  };

  const reconcile: Reconciler<TinyNode> = async (key, object): Promise<ReconcileResult | void> => {
    const { name } = splitKey(key);
    if (!owns(name)) return;
    if (!object) {
      await destroy(name); // really gone: stop the runner even though we never saw the finalizer go (§16 item 23)
      return;
    }
    if (object.metadata.deletionTimestamp) {
      await destroy(name);
      if ((object.metadata.finalizers ?? []).includes(NODE_FINALIZER)) await removeFinalizer(object, name);
      return;
    }
    const node = await ensureFinalizer(object, name);
    if (!node) {
      await destroy(name);
      return;
    }
    let reported: TinyNodeStatus | undefined;
    let failure: unknown;
    try {
      reported = await scheduler.update(node);
    } catch (err) {
      failure = err ?? new Error("scheduler update failed");
    }
    if (!opts.isLeader()) return { requeueAfterMs: followerRequeueMs };
    try {
      await writeStatus(node, name, reported, failure);
    } catch (err) {
      if (isNotFound(err)) return; // deleted while we worked; the delete event follows
      throw err;
    }
    if (failure !== undefined && !isPermanent(failure)) throw failure;
    return { requeueAfterMs: leaderRequeueMs };
  };

  return { reconcile, stats, owns };
}
