/**
 * The slice of Kubernetes `meta/v1` that tinyhost reads and writes.
 *
 * Field names and JSON shapes follow the Kubernetes API reference
 * (https://kubernetes.io/docs/reference/kubernetes-api/common-definitions/object-meta/).
 * Only what the runtime uses is typed; the API server may send more, and a
 * round-trip through these types keeps unknown keys only if the caller spreads the object.
 */

/**
 * An owner of an object; the garbage collector deletes the object when every owner is gone.
 * Source: Kubernetes `OwnerReference` (meta/v1). runtime-spec §7.3 (nodes are owned by their
 * TinyFlow with `controller: true`).
 */
export interface OwnerReference {
  /** API version of the owner, e.g. `operator.tinysystems.io/v1alpha1`. */
  apiVersion: string;
  /** Kind of the owner, e.g. `TinyFlow`. */
  kind: string;
  /** Name of the owner. */
  name: string;
  /** UID of the owner. */
  uid: string;
  /** True if the owner is the managing controller. */
  controller?: boolean;
  /** If true, the owner cannot be deleted (foreground) until this reference is removed. */
  blockOwnerDeletion?: boolean;
}

/**
 * One entry of server-side-apply bookkeeping. Opaque to tinyhost; typed so it survives a round trip.
 * Source: Kubernetes `ManagedFieldsEntry` (meta/v1).
 */
export interface ManagedFieldsEntry {
  /** Who manages the fields. */
  manager?: string;
  /** `Apply` or `Update`. */
  operation?: string;
  /** API version the fields are expressed in. */
  apiVersion?: string;
  /** RFC 3339 time of the last change. */
  time?: string;
  /** Always `FieldsV1`. */
  fieldsType?: string;
  /** The field set, opaque. */
  fieldsV1?: Record<string, unknown>;
  /** Subresource the fields belong to, e.g. `status`. */
  subresource?: string;
}

/**
 * Metadata of every persisted object.
 * Source: Kubernetes `ObjectMeta` (meta/v1). Timestamps are RFC 3339 strings as on the wire.
 */
export interface ObjectMeta {
  /** Object name, unique in its namespace (DNS-1123 subdomain for CRs). */
  name?: string;
  /** Prefix the API server completes with 5 random characters when `name` is empty. */
  generateName?: string;
  /** Namespace of the object (every tinysystems CRD is namespaced). */
  namespace?: string;
  /** Labels, e.g. `tinysystems.io/flow-name`. */
  labels?: Record<string, string>;
  /** Annotations, e.g. `tinysystems.io/node-label`. */
  annotations?: Record<string, string>;
  /** Opaque version for optimistic concurrency and watches. */
  resourceVersion?: string;
  /** Incremented by the API server on every spec change (not on status-only changes). */
  generation?: number;
  /** Server-assigned unique id. */
  uid?: string;
  /** Finalizers that must be removed before the object is deleted, e.g. `io.tinysystems/node-finalizer`. */
  finalizers?: string[];
  /** Owners of the object. */
  ownerReferences?: OwnerReference[];
  /** RFC 3339 time at which deletion was requested; set means "being deleted". */
  deletionTimestamp?: string;
  /** RFC 3339 creation time. */
  creationTimestamp?: string;
  /** Seconds the object has left to terminate gracefully once deletion was requested. */
  deletionGracePeriodSeconds?: number;
  /** Server-side-apply bookkeeping. */
  managedFields?: ManagedFieldsEntry[];
}

/**
 * Metadata of a list response. Source: Kubernetes `ListMeta` (meta/v1).
 */
export interface ListMeta {
  /** Version of the collection: start a watch here to see every later change (the apiserver always sets it). */
  resourceVersion: string;
  /** Token for the next page when the list was limited. */
  continue?: string;
  /** Objects left after this page, when the server knows. */
  remainingItemCount?: number;
}

/**
 * A Kubernetes object: `apiVersion`, `kind`, `metadata`, and the kind's `spec`/`status` — the one
 * object model of the REST client, the controller runtime and the CRD types.
 * `Spec`/`Status` are the kind's types, e.g. `KubeObject<TinyNodeSpec, TinyNodeStatus>`; a bare
 * `KubeObject` is any object.
 */
export interface KubeObject<Spec = unknown, Status = unknown> {
  /** `<group>/<version>`, e.g. `operator.tinysystems.io/v1alpha1`. May be empty on objects from a typed list. */
  apiVersion?: string;
  /** Kind, e.g. `TinyNode`. May be empty on objects from a typed list. */
  kind?: string;
  /** Object metadata. */
  metadata: ObjectMeta;
  /** Desired state. */
  spec?: Spec;
  /** Observed state (status subresource). */
  status?: Status;
}

/**
 * A list response, e.g. `TinyNodeList`. Source: Kubernetes list convention (`items` + `ListMeta`).
 */
export interface KubeList<T> {
  /** `<group>/<version>`. */
  apiVersion?: string;
  /** `<Kind>List`. */
  kind?: string;
  /** List metadata (resourceVersion to watch from, continue token). */
  metadata: ListMeta;
  /** The objects. */
  items: T[];
}
