/**
 * Deleting what tinyhost manages, one object at a time: used by uninstall, and by provision for the
 * scaling objects a run without `--autoscale` no longer wants.
 */
import { isNotFound, type KubeClient, type KubeObject, type ResourceDescriptor } from "../k8s/client/index.ts";
import type { AppliedObject } from "./applied.ts";
import { MANAGED_BY } from "./labels.ts";
import type { Manifest } from "./manifest.ts";
import type { ProvisionOptions } from "./options.ts";
import { scalingManifests } from "./plan.ts";
import { resolveAutoscale } from "./scaling.ts";

/** One object to delete: its resource, kind and name. */
export interface DeletionTarget {
  resource: ResourceDescriptor<KubeObject>;
  kind: string;
  name: string;
  /** Absent for cluster-scoped objects. */
  namespace?: string;
}

/** The deletion target of a planned object. */
export function target(m: Manifest): DeletionTarget {
  const ns = m.object.metadata.namespace;
  return { resource: m.resource, kind: m.object.kind, name: m.object.metadata.name, ...(ns ? { namespace: ns } : {}) };
}

/**
 * The scaling group's objects (ScaledObject, TriggerAuthentication, broker Job), in deletion order,
 * whether or not `o` autoscales: uninstall does not know, and a provision without `--autoscale`
 * removes what an earlier run made. (Any Secret name: it only puts the TriggerAuthentication, whose
 * name does not depend on it, in the list.)
 */
export function scalingTargets(o: ProvisionOptions): DeletionTarget[] {
  return scalingManifests({ ...o, autoscale: o.autoscale ?? resolveAutoscale({}), kedaAuthSecret: o.kedaAuthSecret ?? "any" })
    .map(target)
    .reverse();
}

/**
 * Deletes one object if tinyhost manages it.
 * @returns `deleted`, `absent` (no such object) or `kept` (managed by someone else).
 * @throws KubeApiError other than NotFound, KubeConnectionError.
 */
export async function deleteManaged(kube: KubeClient, t: DeletionTarget): Promise<AppliedObject> {
  const base = { kind: t.kind, name: t.name, ...(t.namespace ? { namespace: t.namespace } : {}) };
  let found: KubeObject;
  try {
    found = await kube.get(t.resource, t.name, t.namespace);
  } catch (e) {
    if (isNotFound(e)) return { ...base, result: "absent", resourceVersion: "" };
    throw e;
  }
  const rv = found.metadata.resourceVersion ?? "";
  // The Namespace carries only tinyhost's managed label (provision.md §2 step 4), never managed-by.
  if (t.kind !== "Namespace" && found.metadata.labels?.["app.kubernetes.io/managed-by"] !== MANAGED_BY) return { ...base, result: "kept", resourceVersion: rv };
  try {
    await kube.delete(t.resource, t.name, { ...(t.namespace ? { namespace: t.namespace } : {}), propagationPolicy: "Background" });
  } catch (e) {
    if (isNotFound(e)) return { ...base, result: "absent", resourceVersion: rv };
    throw e;
  }
  return { ...base, result: "deleted", resourceVersion: rv };
}
