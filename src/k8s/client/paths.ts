/**
 * REST paths for a resource. Rule: Kubernetes docs "API Concepts › Resource URIs":
 * `/api/v1/...` for the core group, `/apis/{group}/{version}/...` otherwise;
 * `/namespaces/{ns}/{plural}[/{name}[/{subresource}]]` for namespaced resources.
 */
import { KubeInputError } from "./errors.ts";
import type { ResourceDescriptor } from "./types.ts";

/** The `apiVersion` of a descriptor's objects: `v1` for core, `{group}/{version}` otherwise. */
export function apiVersionOf(res: ResourceDescriptor<never> | ResourceDescriptor): string {
  return res.group ? `${res.group}/${res.version}` : res.version;
}

/**
 * Builds a resource path.
 * @param res - the resource.
 * @param namespace - required for a namespaced object path; undefined on a namespaced collection
 *   means all namespaces; must be undefined for cluster-scoped resources.
 * @param name - object name, or undefined for the collection.
 * @param subresource - e.g. `status`; needs a name.
 * @throws KubeInputError for an empty name/namespace, a namespace on a cluster-scoped resource, or a
 *   name or namespace containing `/`.
 */
export function resourcePath(res: ResourceDescriptor<never> | ResourceDescriptor, namespace: string | undefined, name?: string, subresource?: string): string {
  const base = res.group ? `/apis/${res.group}/${res.version}` : `/api/${res.version}`;
  let path = base;
  if (namespace !== undefined) {
    if (!res.namespaced) throw new KubeInputError("namespace", `${JSON.stringify(namespace)} was given for cluster-scoped ${res.plural}`);
    path += `/namespaces/${segment("namespace", namespace)}`;
  } else if (res.namespaced && name !== undefined) {
    throw new KubeInputError("namespace", `is required for namespaced ${res.plural} (object ${JSON.stringify(name)})`);
  }
  path += `/${res.plural}`;
  if (name !== undefined) path += `/${segment("name", name)}`;
  if (subresource !== undefined) {
    if (name === undefined) throw new KubeInputError("subresource", `${JSON.stringify(subresource)} needs an object name`);
    path += `/${segment("subresource", subresource)}`;
  }
  return path;
}

function segment(field: string, value: string): string {
  if (typeof value !== "string" || value === "") throw new KubeInputError(field, `must be a non-empty string, got ${JSON.stringify(value)}`);
  if (value.includes("/") || value === "." || value === "..") throw new KubeInputError(field, `${JSON.stringify(value)} is not a valid path segment`);
  return encodeURIComponent(value);
}
