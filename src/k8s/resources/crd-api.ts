/**
 * Typed calls on one TinySystems CRD through the REST client (runtime-spec §8).
 */
import { defineResource, resourcePath, type KubeClient, type KubeObject, type ResourceDescriptor } from "../client/index.ts";

/** Calls on one CRD, in a given namespace. */
export interface CrdApi<T extends KubeObject> {
  /** The client descriptor (for raw watch calls). */
  readonly resource: ResourceDescriptor;
  /** GET one object. @throws KubeApiError (`isNotFound`). */
  get(name: string, namespace: string): Promise<T>;
  /** Lists every object (all pages) matching the label selector. @throws KubeApiError. */
  list(namespace: string, labelSelector?: string): Promise<T[]>;
  /** POST a new object (name or generateName required). @throws KubeApiError (`isAlreadyExists`). */
  create(object: T, namespace: string): Promise<T>;
  /** PUT the object; its resourceVersion makes it compare-and-swap. @throws KubeApiError (`isConflict`). */
  update(object: T, namespace: string): Promise<T>;
  /** JSON merge patch (RFC 7386) of the object or its `status` subresource. @throws KubeApiError. */
  mergePatch(name: string, namespace: string, patch: Record<string, unknown>, subresource?: "status"): Promise<T>;
  /** DELETE one object. @throws KubeApiError (`isNotFound`). */
  delete(name: string, namespace: string): Promise<void>;
  /** DELETE every object matching the label selector (`deletecollection`). @throws KubeApiError. */
  deleteAll(namespace: string, labelSelector: string): Promise<void>;
}

/**
 * Binds a CRD descriptor from src/core/api to a client.
 * @param kube - the REST client. @param descriptor - e.g. `TINY_NODE_RESOURCE`.
 */
export function crdApi<T extends KubeObject>(kube: KubeClient, descriptor: ResourceDescriptor): CrdApi<T> {
  const res = defineResource<T>(descriptor);
  return {
    resource: res,
    get: (name, namespace) => kube.get(res, name, namespace),
    list: async (namespace, labelSelector) => (await kube.listAll(res, { namespace, ...(labelSelector ? { labelSelector } : {}) })).items,
    create: (object, namespace) => kube.create(res, object, { namespace }),
    update: (object, namespace) => kube.update(res, object, { namespace }),
    mergePatch: (name, namespace, patch, subresource) => kube.mergePatch(res, name, patch as never, { namespace, ...(subresource ? { subresource } : {}) }),
    delete: async (name, namespace) => {
      await kube.delete(res, name, { namespace });
    },
    deleteAll: async (namespace, labelSelector) => {
      await kube.request({ method: "DELETE", path: resourcePath(res, namespace), query: { labelSelector } });
    },
  };
}
