/**
 * Owner references for objects the helpers create: a node is owned by its TinyFlow, a flow, page
 * or scenario by its TinyProject, each as the controlling owner (runtime-spec §7.3; Kubernetes
 * docs "Owners and Dependents"; controller-runtime `SetControllerReference`).
 */
import { API_VERSION, type KubeObject, type OwnerReference } from "../../core/api/index.ts";
import type { CrdApi } from "./crd-api.ts";
import { OwnerLookupError } from "./errors.ts";

/**
 * The controlling owner reference to `owner`: `{apiVersion, kind, name, uid, controller: true,
 * blockOwnerDeletion: true}`.
 * @param owner - an object read from the API (uid set). @param kind - its kind, e.g. `TinyFlow`.
 */
export function controllerReference(owner: KubeObject<unknown, unknown>, kind: string): OwnerReference {
  return {
    apiVersion: owner.apiVersion || API_VERSION,
    kind: owner.kind || kind,
    name: owner.metadata.name ?? "",
    uid: owner.metadata.uid ?? "",
    controller: true,
    blockOwnerDeletion: true,
  };
}

/**
 * Reads the owner and returns the controlling reference to it.
 * @throws OwnerLookupError naming the owner when it cannot be read.
 */
export async function ownerReferenceTo<T extends KubeObject<unknown, unknown>>(
  api: CrdApi<T>,
  kind: string,
  name: string,
  namespace: string,
): Promise<OwnerReference> {
  let owner: T;
  try {
    owner = await api.get(name, namespace);
  } catch (e) {
    throw new OwnerLookupError(kind, namespace, name, e);
  }
  return controllerReference(owner, kind);
}
