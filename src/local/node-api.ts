/**
 * The in-memory TinyNode API of local mode: what the apiserver and etcd are to a cluster, for one
 * resource. It serves the same calls the cluster path makes — list and watch (the TinyNode
 * controller's `WatchSource`), get, finalizer and status merge patches guarded by resourceVersion
 * (`TinyNodeApi`), and the runners' read-modify-write status patches — with the apiserver's rules:
 * every change gets a new resourceVersion, `generation` moves only when `spec` changes (or a
 * delete starts), a
 * resourceVersion that is not the stored one is a 409 Conflict, a missing node a 404, a delete of
 * a node with finalizers only sets `deletionTimestamp` and the node goes when the last finalizer
 * does (Kubernetes docs "API Concepts › Resource versions", "Finalizers"; RFC 7386 merge patch).
 * Watches replay from a bounded history; a resourceVersion older than it is 410 Gone, so the
 * watcher relists, as with a compacted etcd. The directory source writes the manifests into it
 * with {@link LocalNodes.apply} and {@link LocalNodes.delete} (the local `kubectl apply`).
 */
import { randomUUID } from "node:crypto";
import type { TinyNode, TinyNodeStatus } from "../core/api/index.ts";
import { KubeApiError } from "../k8s/client/errors.ts";
import type { KubeList, WatchEvent } from "../k8s/client/types.ts";
import type { NodeStatusMergePatch, PatchNodeResult, TinyNodeApi } from "../k8s/resources/node-api.ts";
import { formatTime } from "../k8s/controllers/node-status.ts";
import { isDeepStrictEqual } from "node:util";
import type { ListPageOptions, WatchRequestOptions, WatchSource } from "../k8s/runtime/source.ts";

/** Watch events kept for replay; a watch from an older resourceVersion gets 410 Gone. */
export const WATCH_HISTORY = 1000;

/** One write, for listeners (terminal, state file, start signals). `undefined` = did not exist / gone. */
export interface NodeChange {
  name: string;
  before: TinyNode | undefined;
  after: TinyNode | undefined;
}

/** What a node starts with when it is first created in this process (restored state, seeded metadata). */
export interface NodeSeed {
  status?: TinyNodeStatus;
  finalizers?: string[];
}

/** Options of {@link LocalNodes}. */
export interface LocalNodesOptions {
  /** Namespace of nodes whose manifest names none (`--namespace`). */
  namespace: string;
  /** Told after every write; must not throw. */
  onChange?: (change: NodeChange) => void;
  /** Runs on every status before it is stored (an admission hook; local mode pins bind errors with it). */
  admitStatus?: (name: string, status: TinyNodeStatus) => void;
}

/** JSON round trip: what a client gets back over the wire (no shared objects, no `undefined` fields). */
const wire = <T>(v: T): T => JSON.parse(JSON.stringify(v)) as T;

const apiError = (verb: string, name: string, status: number, message: string) =>
  new KubeApiError({
    verb,
    path: `local://tinynodes/${name}`,
    status,
    body: { kind: "Status", status: "Failure", code: status, reason: status === 404 ? "NotFound" : status === 409 ? "Conflict" : "Gone", message },
  });

/** RFC 7386: `patch` applied to `target` (objects merge recursively, `null` deletes, the rest replaces). */
function mergePatch(target: unknown, patch: unknown): unknown {
  if (typeof patch !== "object" || patch === null || Array.isArray(patch)) return patch;
  const out: Record<string, unknown> =
    typeof target === "object" && target !== null && !Array.isArray(target) ? { ...(target as Record<string, unknown>) } : {};
  for (const [k, v] of Object.entries(patch)) {
    if (v === null) delete out[k];
    else if (v !== undefined) out[k] = mergePatch(out[k], v);
  }
  return out;
}

interface OpenWatch {
  /** resourceVersion of the last event handed out. */
  at: number;
  /** True while it waits for a new event. */
  waiting: boolean;
  wake: () => void;
}

/** TinyNodes in memory, served like the apiserver serves them (see the module comment). */
export class LocalNodes implements WatchSource<TinyNode>, Pick<TinyNodeApi, "get" | "setFinalizers" | "patchStatus" | "patch"> {
  readonly #objects = new Map<string, TinyNode>();
  readonly #history: { rv: number; event: WatchEvent<TinyNode> }[] = [];
  readonly #watches = new Set<OpenWatch>();
  readonly #caughtUp: (() => void)[] = [];
  /** Manifests applied while their node was still terminating: created once it is gone. */
  readonly #pending = new Map<string, TinyNode>();
  readonly #o: LocalNodesOptions;
  #rv = 0;
  #compactedRv = 0;

  /** @param o - see {@link LocalNodesOptions}. */
  constructor(o: LocalNodesOptions) {
    this.#o = o;
  }

  // ----- reads ------------------------------------------------------------------------------

  /** The stored node (a copy). @throws KubeApiError 404. */
  async get(name: string): Promise<TinyNode> {
    return wire(this.#live("GET", name));
  }

  /** The stored node (a copy), or undefined. */
  find(name: string): TinyNode | undefined {
    const o = this.#objects.get(name);
    return o && wire(o);
  }

  /** Every stored node (copies), by name. */
  items(): TinyNode[] {
    return [...this.#objects.keys()].sort().map((n) => wire(this.#objects.get(n)!));
  }

  /** {@link WatchSource.list}: every node in one page at the current resourceVersion. */
  async list(_opts: ListPageOptions): Promise<KubeList<TinyNode>> {
    return { items: this.items(), metadata: { resourceVersion: String(this.#rv) } };
  }

  /** {@link WatchSource.watch}: changes after `resourceVersion`. @throws KubeApiError 410 when it is older than the history. */
  watch(opts: WatchRequestOptions): AsyncIterable<WatchEvent<TinyNode>> {
    return this.#stream(Number(opts.resourceVersion), opts.signal);
  }

  /** True when a watch is open and every open watch has taken every event (the controller saw all writes). */
  caughtUp(): boolean {
    if (this.#watches.size === 0) return false;
    for (const w of this.#watches) if (!w.waiting || w.at < this.#rv) return false;
    return true;
  }

  /** Resolves once {@link caughtUp} holds. */
  whenCaughtUp(): Promise<void> {
    if (this.caughtUp()) return Promise.resolve();
    return new Promise((resolve) => this.#caughtUp.push(resolve));
  }

  // ----- writes of the controllers and the runners (TinyNodeApi) ----------------------------

  /** {@link TinyNodeApi.setFinalizers}; removing the last one from a deleting node deletes it. */
  async setFinalizers(name: string, resourceVersion: string, finalizers: string[]): Promise<TinyNode> {
    const node = wire(this.#guarded("PATCH", name, resourceVersion));
    node.metadata.finalizers = [...finalizers];
    if (finalizers.length === 0) delete node.metadata.finalizers;
    if (node.metadata.deletionTimestamp && finalizers.length === 0) {
      this.#remove(name);
      return node;
    }
    return wire(this.#write(name, node));
  }

  /** {@link TinyNodeApi.patchStatus}: RFC 7386 merge of `status` into the stored status (a `null` removes the field, as the apiserver does). */
  async patchStatus(name: string, resourceVersion: string, status: NodeStatusMergePatch): Promise<TinyNode> {
    const node = wire(this.#guarded("PATCH", name, resourceVersion));
    node.status = mergePatch(node.status, wire(status)) as TinyNodeStatus;
    return wire(this.#write(name, node));
  }

  /**
   * The runners' status patch (the resource manager's `patchNode` in a cluster): `updater` runs on
   * a copy of the stored node; only its `status` is kept, and nothing is written when it is unchanged.
   * @throws KubeApiError 404 when the node is gone (the status sink ignores that).
   */
  async patch(name: string, updater: (node: TinyNode) => TinyNode | void | Promise<TinyNode | void>): Promise<PatchNodeResult> {
    const copy = wire(this.#live("PATCH", name)) as TinyNode;
    const updated = (await updater(copy)) ?? copy;
    const current = this.#objects.get(name); // the updater may have awaited: write onto the newest version
    if (!current) throw apiError("PATCH", name, 404, `tinynodes "${name}" not found`);
    const stored = this.#write(name, { ...wire(current), status: wire(updated.status) as TinyNodeStatus });
    return { node: wire(stored), patched: stored !== current };
  }

  // ----- writes of the directory source (kubectl apply / delete) ----------------------------

  /**
   * Creates or updates the node from its manifest: spec, labels and annotations come from it;
   * status, finalizers and deletion state are kept. A new node starts from `seed()` (the state
   * file; called only when the node is created). A node still terminating is created anew once it
   * is gone.
   * @returns `"created"` (also for a node that will be created once its predecessor is gone),
   *   `"updated"` when the stored node changed, `"unchanged"` when the manifest adds nothing.
   */
  apply(manifest: TinyNode, seed?: () => NodeSeed | undefined): "created" | "updated" | "unchanged" {
    const name = manifest.metadata.name;
    const current = this.#objects.get(name);
    if (current?.metadata.deletionTimestamp) {
      this.#pending.set(name, manifest);
      return "created";
    }
    const metadata = { ...manifest.metadata, namespace: manifest.metadata.namespace || this.#o.namespace };
    if (!current) {
      const seeded = seed?.();
      const status = seeded?.status ?? manifest.status;
      const finalizers = seeded?.finalizers?.length ? { finalizers: [...seeded.finalizers] } : {};
      const node = {
        ...manifest,
        metadata: { ...metadata, ...finalizers, generation: 1, uid: randomUUID(), creationTimestamp: formatTime(new Date()) },
        ...(status ? { status } : {}),
      };
      this.#write(name, wire(node) as TinyNode);
      return "created";
    }
    const next = wire(current);
    const specChanged = !isDeepStrictEqual(current.spec, manifest.spec);
    next.spec = wire(manifest.spec);
    next.metadata.namespace = metadata.namespace;
    for (const key of ["labels", "annotations"] as const) {
      if (manifest.metadata[key]) next.metadata[key] = wire(manifest.metadata[key]);
      else delete next.metadata[key];
    }
    if (specChanged) next.metadata.generation = (current.metadata.generation ?? 1) + 1;
    if (isDeepStrictEqual(next, current)) return "unchanged";
    this.#write(name, next);
    return "updated";
  }

  /**
   * Deletes the node: with finalizers, marks it deleting — `deletionTimestamp` set and `generation`
   * moved, as the apiserver does (k8s.io/apiserver `rest.BeforeDelete`), so the generation
   * predicate lets the controller see it; without finalizers, removes it.
   */
  delete(name: string): void {
    this.#pending.delete(name);
    const current = this.#objects.get(name);
    if (!current) return;
    if (!current.metadata.finalizers?.length) return this.#remove(name);
    if (current.metadata.deletionTimestamp) return;
    const generation = (current.metadata.generation ?? 0) + 1;
    this.#write(name, { ...wire(current), metadata: { ...wire(current.metadata), deletionTimestamp: formatTime(new Date()), generation } });
  }

  // ----- internals --------------------------------------------------------------------------

  #live(verb: string, name: string): TinyNode {
    const o = this.#objects.get(name);
    if (!o) throw apiError(verb, name, 404, `tinynodes "${name}" not found`);
    return o;
  }

  #guarded(verb: string, name: string, resourceVersion: string): TinyNode {
    const o = this.#live(verb, name);
    if (resourceVersion !== "" && o.metadata.resourceVersion !== resourceVersion) {
      throw apiError(
        verb,
        name,
        409,
        `Operation cannot be fulfilled on tinynodes "${name}": the object has been modified; please apply your changes to the latest version and try again`,
      );
    }
    return o;
  }

  /** Stores `node` (unless it equals the stored one) with a new resourceVersion; returns what is stored. */
  #write(name: string, node: TinyNode): TinyNode {
    const before = this.#objects.get(name);
    if (node.status) this.#o.admitStatus?.(name, node.status);
    const comparable = before && { ...node, metadata: { ...node.metadata, resourceVersion: before.metadata.resourceVersion } };
    if (before && isDeepStrictEqual(comparable, before)) return before; // a no-op write changes nothing, as in etcd
    node.metadata.resourceVersion = String(++this.#rv);
    this.#objects.set(name, node);
    this.#record({ type: before ? "MODIFIED" : "ADDED", object: node });
    this.#o.onChange?.({ name, before, after: node });
    return node;
  }

  #remove(name: string): void {
    const before = this.#objects.get(name)!;
    this.#objects.delete(name);
    const gone = { ...wire(before), metadata: { ...wire(before.metadata), resourceVersion: String(++this.#rv) } };
    this.#record({ type: "DELETED", object: gone });
    this.#o.onChange?.({ name, before, after: undefined });
    const again = this.#pending.get(name);
    this.#pending.delete(name);
    if (again) this.apply(again);
  }

  #record(event: WatchEvent<TinyNode>): void {
    this.#history.push({ rv: this.#rv, event });
    if (this.#history.length > WATCH_HISTORY) this.#compactedRv = this.#history.shift()!.rv;
    for (const w of this.#watches) w.wake();
  }

  #checkCaughtUp(): void {
    if (this.#caughtUp.length > 0 && this.caughtUp()) for (const resolve of this.#caughtUp.splice(0)) resolve();
  }

  async *#stream(from: number, signal: AbortSignal): AsyncGenerator<WatchEvent<TinyNode>> {
    const w: OpenWatch = { at: from, waiting: false, wake: () => {} };
    const onAbort = () => w.wake();
    signal.addEventListener("abort", onAbort);
    this.#watches.add(w);
    try {
      for (;;) {
        if (signal.aborted) return;
        if (w.at < this.#compactedRv) throw apiError("WATCH", "", 410, `too old resource version: ${w.at} (${this.#compactedRv})`);
        const next = this.#history.find((h) => h.rv > w.at);
        if (next) {
          w.at = next.rv;
          yield wire(next.event);
          continue;
        }
        await new Promise<void>((resolve) => {
          w.wake = resolve;
          w.waiting = true;
          this.#checkCaughtUp();
        });
        w.waiting = false;
      }
    } finally {
      signal.removeEventListener("abort", onAbort);
      this.#watches.delete(w);
    }
  }
}
