/**
 * The API calls the controllers make, behind small interfaces so unit tests can pass fakes. Every
 * write carries the `resourceVersion` it was computed from: the apiserver answers 409 Conflict when
 * the object changed meanwhile, and the caller re-reads and recomputes (Kubernetes docs "API
 * Concepts › Resource versions"; optimistic concurrency), so neither our write nor the other
 * writer's is lost.
 */
import type { TinyModuleStatus, TinyNode, TinyNodeStatus } from "../../core/api/index.ts";
import type { KubeClient } from "../client/index.ts";
import { tinyModules, tinyNodes, type WatchedModule } from "./types.ts";
import type { NodeStatusPatch } from "./node-status.ts";

/** TinyNode calls in one namespace. */
export interface TinyNodeApi {
  /** Fresh GET. @throws KubeApiError (`isNotFound`). */
  get(name: string): Promise<TinyNode>;
  /**
   * Sets `metadata.finalizers` (JSON merge patch guarded by `resourceVersion`).
   * @throws KubeApiError (`isConflict` when the node changed since `resourceVersion`, `isNotFound`).
   */
  setFinalizers(name: string, resourceVersion: string, finalizers: string[]): Promise<TinyNode>;
  /**
   * Merge-patches the `status` subresource with `status` (only the given fields change; `null`
   * removes one), guarded by `resourceVersion`.
   * @throws KubeApiError (`isConflict`, `isNotFound`).
   */
  patchStatus(name: string, resourceVersion: string, status: NodeStatusPatch): Promise<TinyNode>;
}

/** TinyModule calls in one namespace. */
export interface TinyModuleApi {
  /** Fresh GET. @throws KubeApiError (`isNotFound`). */
  get(name: string): Promise<WatchedModule>;
  /** Merge-patches `status` guarded by `resourceVersion`. @throws KubeApiError (`isConflict`, `isNotFound`). */
  patchStatus(name: string, resourceVersion: string, status: TinyModuleStatus): Promise<WatchedModule>;
}

/** {@link TinyNodeApi} through the REST client, in `namespace`. */
export function kubeNodeApi(kube: KubeClient, namespace: string): TinyNodeApi {
  return {
    get: (name) => kube.get(tinyNodes, name, namespace),
    setFinalizers: (name, resourceVersion, finalizers) => kube.mergePatch(tinyNodes, name, { metadata: { resourceVersion, finalizers } }, { namespace }),
    patchStatus: (name, resourceVersion, status) =>
      kube.mergePatch(tinyNodes, name, { metadata: { resourceVersion }, status }, { namespace, subresource: "status" }),
  };
}

/** {@link TinyModuleApi} through the REST client, in `namespace`. */
export function kubeModuleApi(kube: KubeClient, namespace: string): TinyModuleApi {
  return {
    get: (name) => kube.get(tinyModules, name, namespace),
    patchStatus: (name, resourceVersion, status) =>
      kube.mergePatch(tinyModules, name, { metadata: { resourceVersion }, status }, { namespace, subresource: "status" }),
  };
}
