/**
 * The TinyNode API (runtime-spec §7.3), the one interface the controllers, the resource manager,
 * the runners' status writes and local mode's in-memory apiserver (src/local/node-api.ts) stand
 * on; src/k8s/resources/nodes.ts serves it through the REST client. Every write that carries a
 * `resourceVersion` is guarded by it: the apiserver answers 409 Conflict when the node changed
 * meanwhile, and the caller re-reads and recomputes (Kubernetes docs "API Concepts › Resource
 * versions"; optimistic concurrency), so neither our write nor the other writer's is lost.
 */
import type { NewTinyNode, TinyNode, TinyNodeStatus } from "../../core/api/index.ts";
import type { NodeUpdater } from "../../core/node.ts";
import type { WatchEvent } from "../client/index.ts";

/** Result of {@link TinyNodeApi.patch}. */
export interface PatchNodeResult {
  /** The node as stored afterwards. */
  node: TinyNode;
  /** False when the updater left the status unchanged and no request was sent. */
  patched: boolean;
}

/** An RFC 7386 merge patch of a TinyNode's `status`: a field set to `null` is removed. */
export type NodeStatusMergePatch = { [K in keyof TinyNodeStatus]?: TinyNodeStatus[K] | null };

/**
 * TinyNode calls; `namespace` defaults to the namespace the API was built for. Callers that need
 * only some calls take a `Pick` of it (the controllers, local mode's in-memory nodes).
 */
export interface TinyNodeApi {
  /** Go `GetNode`: fresh GET of one node. @throws KubeApiError (`isNotFound`). */
  get(name: string, namespace?: string): Promise<TinyNode>;
  /**
   * Go `CreateNode`: creates the node (name or generateName required; see `generateNodeName`).
   * With a `tinysystems.io/flow-name` label, the owner references become exactly one controlling
   * reference to that TinyFlow (`controller: true`, `blockOwnerDeletion: true`).
   * @throws OwnerLookupError when the flow cannot be read; KubeApiError.
   */
  create(node: NewTinyNode): Promise<TinyNode>;
  /** Go `UpdateNode`: PUT (compare-and-swap on resourceVersion). @throws KubeApiError (`isConflict`). */
  update(node: TinyNode): Promise<TinyNode>;
  /** Go `DeleteNode`. @throws KubeApiError (`isNotFound`). */
  delete(name: string, namespace?: string): Promise<void>;
  /**
   * Sets `metadata.finalizers` (JSON merge patch guarded by `resourceVersion`).
   * @throws KubeApiError (`isConflict` when the node changed since `resourceVersion`, `isNotFound`).
   */
  setFinalizers(name: string, resourceVersion: string, finalizers: string[], namespace?: string): Promise<TinyNode>;
  /**
   * Merge-patches the `status` subresource with `status` (only the given fields change; `null`
   * removes one), guarded by `resourceVersion`.
   * @throws KubeApiError (`isConflict`, `isNotFound`).
   */
  patchStatus(name: string, resourceVersion: string, status: NodeStatusMergePatch, namespace?: string): Promise<TinyNode>;
  /**
   * Go `PatchNode`: status change from the newest node (see patch-node.ts); `current` = the node as
   * last seen (the informer's copy), used for the first attempt instead of a GET.
   */
  patch(name: string, updater: NodeUpdater, namespace?: string, current?: TinyNode): Promise<PatchNodeResult>;
  /** Go `GetProjectNodes`: nodes labelled with the project. */
  listByProject(project: string, namespace?: string): Promise<TinyNode[]>;
  /** Go `GetProjectFlowNodes`: nodes labelled with the project and the flow. */
  listByFlow(project: string, flow: string, namespace?: string): Promise<TinyNode[]>;
  /** Go `DeleteFlowNodes`: deletes every node labelled with the project and the flow (one deletecollection). */
  deleteByFlow(project: string, flow: string, namespace?: string): Promise<void>;
  /** Go `WatchNodes`: watch events of the project's nodes until the signal aborts. */
  watchByProject(project: string, options?: { namespace?: string; resourceVersion?: string; signal?: AbortSignal }): AsyncIterable<WatchEvent<TinyNode>>;
}
