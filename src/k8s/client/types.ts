/**
 * The shapes the REST client reads and writes: object metadata, lists, Status, watch events and the
 * resource descriptor that types every call. Field names follow `meta/v1` (Kubernetes API reference).
 */

// ObjectMeta and friends have one definition, next to the CRD types (src/core/api/meta.ts).
export type { ObjectMeta, OwnerReference, ManagedFieldsEntry } from "../../core/api/meta.ts";
import type { ObjectMeta } from "../../core/api/meta.ts";

/** Any Kubernetes object: `apiVersion`, `kind` and `metadata` (spec/status vary by kind). */
export interface KubeObject {
  apiVersion?: string;
  kind?: string;
  metadata: ObjectMeta;
}

/**
 * Describes one REST resource and, through `T`, the object type its calls return.
 * Rule: the API path is `/api/{version}` for the core group (group "") and
 * `/apis/{group}/{version}` otherwise, then `/namespaces/{ns}` when namespaced, then `/{plural}`
 * (Kubernetes docs, "API Concepts").
 */
export interface ResourceDescriptor<T extends KubeObject = KubeObject> {
  /** API group; `""` for the core group (`v1`). */
  readonly group: string;
  /** API version within the group, e.g. `v1`. */
  readonly version: string;
  /** Lower-case plural used in paths, e.g. `configmaps`. */
  readonly plural: string;
  /** Whether objects live in a namespace. */
  readonly namespaced: boolean;
  /** `kind` of the objects, e.g. `ConfigMap`. */
  readonly kind: string;
  /** Type-only marker carrying `T`; never set at run time. */
  readonly __object?: T;
}

/** The object type a descriptor stands for. */
export type ObjectOf<R> = R extends ResourceDescriptor<infer T> ? T : never;

/** `meta/v1` ListMeta. */
export interface ListMeta {
  /** The collection's resourceVersion: start a watch here to see every later change. */
  resourceVersion: string;
  /** Token for the next page; empty or absent on the last page. */
  continue?: string;
  /** Objects remaining after this page (an estimate, only with `limit`). */
  remainingItemCount?: number;
}

/** What {@link KubeClient.list} returns. */
export interface KubeList<T> {
  items: T[];
  metadata: ListMeta;
}

/** `meta/v1` StatusCause. */
export interface StatusCause {
  reason?: string;
  message?: string;
  field?: string;
}

/** `meta/v1` StatusDetails. */
export interface StatusDetails {
  name?: string;
  group?: string;
  kind?: string;
  uid?: string;
  causes?: StatusCause[];
  /** Seconds the client should wait before retrying (TooManyRequests, ServerTimeout). */
  retryAfterSeconds?: number;
}

/** `meta/v1` Status: the body of every API error, and of some successful deletes. */
export interface KubeStatus {
  apiVersion?: string;
  kind: "Status";
  status?: "Success" | "Failure";
  message?: string;
  /** Machine-readable reason, e.g. `NotFound`, `Conflict`, `AlreadyExists`, `Expired`. */
  reason?: string;
  details?: StatusDetails;
  /** HTTP status code the Status stands for. */
  code?: number;
  metadata?: ListMeta | Record<string, never>;
}

/**
 * One event of a watch stream (Kubernetes docs, "API Concepts › Efficient detection of changes").
 * BOOKMARK objects carry only `metadata.resourceVersion`; an ERROR carries a Status (410 ones are
 * thrown as `KubeApiError` with reason `Gone` instead of yielded).
 */
export type WatchEvent<T> =
  | { type: "ADDED" | "MODIFIED" | "DELETED" | "BOOKMARK"; object: T }
  | { type: "ERROR"; object: KubeStatus };

/** The `type` values a watch event may carry. */
export type WatchEventType = WatchEvent<unknown>["type"];

/** One RFC 6902 JSON Patch operation. */
export type JsonPatchOperation =
  | { op: "add" | "replace" | "test"; path: string; value: unknown }
  | { op: "remove"; path: string }
  | { op: "move" | "copy"; from: string; path: string };

/** Recursively optional, for merge patches and apply configurations. */
export type DeepPartial<T> = T extends (infer U)[]
  ? DeepPartial<U>[]
  : T extends object
    ? { [K in keyof T]?: DeepPartial<T[K]> | null }
    : T;

/**
 * A server-side apply configuration: the fields this manager owns. `metadata.name` is required;
 * `apiVersion`/`kind` are filled from the descriptor when absent.
 */
export type ApplyConfiguration<T extends KubeObject> = DeepPartial<Omit<T, "metadata">> & {
  metadata: DeepPartial<ObjectMeta> & { name: string };
};
