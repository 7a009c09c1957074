/**
 * The TinyModule calls the controllers make, behind a small interface so unit tests can pass fakes
 * (the TinyNode calls are src/k8s/resources/node-api.ts). Every write carries the `resourceVersion` it was computed from: the apiserver answers 409 Conflict when
 * the object changed meanwhile, and the caller re-reads and recomputes (Kubernetes docs "API
 * Concepts › Resource versions"; optimistic concurrency), so neither our write nor the other
 * writer's is lost.
 */
import type { TinyModuleStatus } from "../../core/api/index.ts";
import type { KubeClient } from "../client/index.ts";
import { tinyModules, type WatchedModule } from "./types.ts";

/** TinyModule calls in one namespace. */
export interface TinyModuleApi {
  /** Fresh GET. @throws KubeApiError (`isNotFound`). */
  get(name: string): Promise<WatchedModule>;
  /** Merge-patches `status` guarded by `resourceVersion`. @throws KubeApiError (`isConflict`, `isNotFound`). */
  patchStatus(name: string, resourceVersion: string, status: TinyModuleStatus): Promise<WatchedModule>;
}

/** {@link TinyModuleApi} through the REST client, in `namespace`. */
export function kubeModuleApi(kube: KubeClient, namespace: string): TinyModuleApi {
  return {
    get: (name) => kube.get(tinyModules, name, namespace),
    patchStatus: (name, resourceVersion, status) =>
      kube.mergePatch(tinyModules, name, { metadata: { resourceVersion }, status }, { namespace, subresource: "status" }),
  };
}
