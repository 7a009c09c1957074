/**
 * The TinyModule reconciler (runtime-spec §5.2):
 * - another module's TinyModule → its `status.addr` goes into the gRPC address pool under the
 *   object's name (the sanitized module name hops are routed by); gone → deregistered;
 * - our own TinyModule → the leader writes the status when it differs from what is stored, with a
 *   resourceVersion-guarded merge patch retried on 409. Followers do nothing: Go requeues them every
 *   5 s forever (§16 item 21); a leadership change enqueues the object instead (docs/compatibility.md).
 */
import type { TinyModuleStatus } from "../../core/api/index.ts";
import { isNotFound, retryOnConflict } from "../client/index.ts";
import type { Reconciler } from "../runtime/controller.ts";
import { isDeepStrictEqual } from "node:util";
import { splitKey } from "../runtime/source.ts";
import type { TinyModuleApi } from "./api.ts";
import type { WatchedModule } from "./types.ts";

/** Where other modules' addresses go (the gRPC transport's pool). */
export interface ModuleAddressBook {
  /** Points `module` (a TinyModule name) at `address` (`host:port`). */
  register(module: string, address: string): void;
  /** Forgets `module`. */
  deregister(module: string): void;
}

/** Counters of the TinyModule reconciler. */
export interface TinyModuleReconcilerStats {
  /** Own-status writes sent and accepted. */
  statusWrites: number;
  /** Own-status reconciles that found nothing to change. */
  statusSkips: number;
  /** 409 answers met while writing. */
  conflicts: number;
}

/** Parameters of {@link tinyModuleReconciler}. */
export interface TinyModuleReconcilerOptions {
  /** Our TinyModule's name: `sanitizeResourceName(module name)`. */
  ownName: string;
  /**
   * Further TinyModules this process serves (cluster `run --also`), sanitized: written as the own
   * one is, with `desiredStatus(name)`; never put in the address pool (their hops stay in-process).
   */
  alsoOwn?: readonly string[];
  /**
   * The status we publish for own TinyModule `name`; read at each reconcile (the gRPC port is known only after the
   * receivers started). `undefined` = not known yet: nothing is written (the receivers' start
   * enqueues our TinyModule again), so no status with an empty address is ever published.
   */
  desiredStatus: (name: string) => TinyModuleStatus | undefined;
  /** Reads and writes in the module's namespace. */
  api: TinyModuleApi;
  /** Live leader flag. */
  isLeader: () => boolean;
  /** Other modules' addresses (gRPC transport only); absent with NATS. */
  addresses?: ModuleAddressBook;
}

/** The reconcile function plus its counters. */
export interface TinyModuleReconciler {
  /** Pass to `new Controller({ reconcile })`. */
  reconcile: Reconciler<WatchedModule>;
  /** Live counters. */
  readonly stats: TinyModuleReconcilerStats;
}

/** Builds the TinyModule reconciler. */
export function tinyModuleReconciler(opts: TinyModuleReconcilerOptions): TinyModuleReconciler {
  const stats: TinyModuleReconcilerStats = { statusWrites: 0, statusSkips: 0, conflicts: 0 };
  const own = new Set([opts.ownName, ...(opts.alsoOwn ?? [])]);
  const reconcile: Reconciler<WatchedModule> = async (key, object) => {
    const { name } = splitKey(key);
    if (!own.has(name)) {
      if (!object) opts.addresses?.deregister(name);
      else if (object.status?.addr) opts.addresses?.register(name, object.status.addr);
      return;
    }
    if (!object || !opts.isLeader()) return;
    try {
      const out = await retryOnConflict({
        what: `TinyModule ${name} status`,
        current: object,
        read: () => opts.api.get(name),
        write: (m) => {
          const desired = opts.desiredStatus(name);
          if (desired === undefined || isDeepStrictEqual(m.status, desired)) return undefined;
          return opts.api.patchStatus(name, m.metadata.resourceVersion ?? "", desired);
        },
      });
      stats.conflicts += out.conflicts;
      if (out.written) stats.statusWrites++;
      else stats.statusSkips++;
    } catch (err) {
      if (!isNotFound(err)) throw err;
    }
  };
  return { reconcile, stats };
}
