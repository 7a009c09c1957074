/**
 * One object the provisioner writes, with the resource it lives in and how it is written.
 */
import type { KubeObject, ObjectMeta, ResourceDescriptor } from "../k8s/client/index.ts";

/**
 * How an object is written:
 * - `apply` — server-side apply as `tinyhost` without force: a field another manager changed makes
 *   the run fail with a Conflict naming it (used where the module or an operator edits the object);
 * - `apply-force` — server-side apply taking ownership of the fields it sets (objects only the
 *   provisioner shapes);
 * - `create-if-absent` — create, and leave an existing object untouched (the NATS auth Secret).
 * Source: Kubernetes docs "Server-Side Apply › Conflicts"; provision.md §8.
 */
export type WritePolicy = "apply" | "apply-force" | "create-if-absent";

/** A manifest object: apiVersion, kind and a named metadata, the rest free-form. */
export interface ManifestObject extends KubeObject {
  apiVersion: string;
  kind: string;
  metadata: ObjectMeta & { name: string };
  [field: string]: unknown;
}

/** One object to write. */
export interface Manifest {
  /** Where the object lives (group, version, plural, scope). */
  resource: ResourceDescriptor<KubeObject>;
  /** The applied configuration: only the fields tinyhost owns. */
  object: ManifestObject;
  /** How it is written. */
  policy: WritePolicy;
}

/** `Kind ns/name` (or `Kind name` for cluster-scoped objects), for messages. */
export function describeManifest(m: Manifest): string {
  const ns = m.object.metadata.namespace;
  return `${m.object.kind} ${ns ? `${ns}/` : ""}${m.object.metadata.name}`;
}
