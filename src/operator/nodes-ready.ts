/**
 * The `nodes` readiness check of cluster mode (health.ts): /readyz waits until every node of the
 * first TinyNode list that this process runs has been applied once — its runner created and
 * `Scheduler.update` settled (onReconcile and settings delivered, so an http_server restoring its
 * persisted port has bound it: the bind is synchronous in its onReconcile). Without it a new pod
 * joined the release Service's endpoints before its component listeners were bound, and requests
 * routed to an exposed port met a refused connection during a rollout.
 *
 * Rules (docs/operations.md §11 "Readiness"):
 * - an update that failed (unknown component, a failing hook or settings) counts as applied: that
 *   node's fault, shown in its status, never the pod's;
 * - a node gone or deleting since the list no longer counts;
 * - after `timeoutMs` from the first list the check passes anyway, with one warning naming the
 *   nodes still pending (an apiserver write failing before the update, a hook that hangs);
 * - once passed it stays passed (a later reload of a node does not take the pod out of service);
 * - leadership plays no part: every replica applies every node it owns.
 */
import type { TinyNode } from "../core/api/index.ts";
import type { NodeScheduler } from "../k8s/controllers/index.ts";
import { objectKey } from "../k8s/runtime/index.ts";
import type { Store } from "../k8s/runtime/store.ts";
import { envInteger } from "./env-integer.ts";

/** Default of `TINYHOST_READY_NODES_TIMEOUT_MS`: the longest the `nodes` check holds /readyz after the first list, ms. */
export const DEFAULT_READY_NODES_TIMEOUT_MS = 30_000;

/** Pending nodes named in the check's message (the warning names them all). */
const NAMED = 5;

/**
 * `TINYHOST_READY_NODES_TIMEOUT_MS`: ms ≥ 0 (0 = the check does not wait), else {@link DEFAULT_READY_NODES_TIMEOUT_MS}.
 * @throws Error naming the variable and value when it is not a decimal integer (env-integer.ts).
 */
export function readyNodesTimeout(env: Record<string, string | undefined>): number {
  return envInteger(env, "TINYHOST_READY_NODES_TIMEOUT_MS", 0, "number of ms ") ?? DEFAULT_READY_NODES_TIMEOUT_MS;
}

/** Options of {@link NodesReady}. */
export interface NodesReadyOptions {
  /** Bound on the wait after the first list, ms; 0 = the check passes at once. */
  timeoutMs: number;
  /** Told once when the check passes on the bound. */
  log: { warn(obj: object, msg: string): void };
  /** Clock in ms. Default `performance.now`. */
  now?: () => number;
}

/** The `nodes` check: {@link applied} is told by the scheduler wrapper, {@link watch} gives the first list. */
export class NodesReady {
  readonly #o: NodesReadyOptions;
  readonly #now: () => number;
  /** Nodes whose update settled at least once (recorded from the start: one may settle before the list is taken). */
  readonly #applied = new Set<string>();
  /** The first list's owned nodes still pending: name → store key; undefined until the store synced. */
  #pending: Map<string, string> | undefined;
  #store: Pick<Store<TinyNode>, "get"> | undefined;
  #syncedAt = 0;
  #passed = false;

  constructor(o: NodesReadyOptions) {
    this.#o = o;
    this.#now = o.now ?? (() => performance.now());
  }

  /** Takes the first list once `store` synced: its nodes that `owns` accepts and that are not deleting. */
  watch(store: Pick<Store<TinyNode>, "get" | "list" | "whenSynced">, owns: (name: string) => boolean): void {
    this.#store = store;
    void store.whenSynced().then(() => {
      this.#syncedAt = this.#now();
      const first = store.list().filter((n) => owns(n.metadata.name ?? "") && !n.metadata.deletionTimestamp);
      this.#pending = new Map(first.map((n) => [n.metadata.name ?? "", objectKey(n)]));
    });
  }

  /** Node `name`'s update settled (whatever its outcome). */
  applied(name: string): void {
    if (!this.#passed) this.#applied.add(name);
  }

  /** The check: true, or why not (the first pending nodes named). */
  readonly check = (): true | string => {
    if (this.#passed) return true;
    const pending = this.#pending;
    if (pending === undefined) return "the first TinyNode list has not arrived yet";
    for (const [name, key] of pending) {
      const node = this.#store?.get(key);
      if (this.#applied.has(name) || !node || node.metadata.deletionTimestamp) pending.delete(name);
    }
    if (pending.size > 0 && this.#o.timeoutMs > 0 && this.#now() - this.#syncedAt < this.#o.timeoutMs) {
      const names = [...pending.keys()];
      const more = names.length > NAMED ? ` and ${names.length - NAMED} more` : "";
      return `${names.length} node(s) of the first list not applied yet: ${names.slice(0, NAMED).join(", ")}${more}`;
    }
    if (pending.size > 0 && this.#o.timeoutMs > 0)
      this.#o.log.warn(
        { pending: [...pending.keys()], timeoutMs: this.#o.timeoutMs },
        `readiness: ${pending.size} node(s) still not applied ${this.#o.timeoutMs} ms after the first list; ready anyway (TINYHOST_READY_NODES_TIMEOUT_MS)`,
      );
    this.#passed = true;
    this.#applied.clear();
    return true;
  };
}

/** `scheduler` whose `update` tells `onApplied(name)` once it settled, resolved or thrown. */
export function reportingApplied(scheduler: NodeScheduler, onApplied: (name: string) => void): NodeScheduler {
  return {
    async update(node) {
      try {
        return await scheduler.update(node);
      } finally {
        onApplied(node.metadata.name ?? "");
      }
    },
    destroy: (name) => scheduler.destroy(name),
  };
}
