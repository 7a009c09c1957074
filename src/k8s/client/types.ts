/**
 * The shapes the REST client reads and writes: object metadata, lists, Status, watch events and the
 * resource descriptor that types every call. Field names follow `meta/v1` (Kubernetes API reference).
 */

// The object model has one definition, next to the CRD types (src/core/api/meta.ts, resources.ts).
export type { KubeList, KubeObject, ListMeta, ObjectMeta, OwnerReference, ManagedFieldsEntry } from "../../core/api/meta.ts";
export type { ResourceDescriptor } from "../../core/api/resources.ts";
import type { KubeObject, ListMeta, ObjectMeta } from "../../core/api/meta.ts";
import type { ResourceDescriptor } from "../../core/api/resources.ts";

/** The object type a descriptor stands for. */
export type ObjectOf<R> = R extends ResourceDescriptor<infer T> ? T : never;

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
export type WatchEvent<T> = { type: "ADDED" | "MODIFIED" | "DELETED" | "BOOKMARK"; object: T } | { type: "ERROR"; object: KubeStatus };

/** The `type` values a watch event may carry. */
export type WatchEventType = WatchEvent<unknown>["type"];

/** One RFC 6902 JSON Patch operation. */
export type JsonPatchOperation =
  | { op: "add" | "replace" | "test"; path: string; value: unknown }
  | { op: "remove"; path: string }
  | { op: "move" | "copy"; from: string; path: string };

/** Recursively optional, for merge patches and apply configurations. */
export type DeepPartial<T> = T extends (infer U)[] ? DeepPartial<U>[] : T extends object ? { [K in keyof T]?: DeepPartial<T[K]> | null } : T;

/**
 * A server-side apply configuration: the fields this manager owns. `metadata.name` is required;
 * `apiVersion`/`kind` are filled from the descriptor when absent.
 */
export type ApplyConfiguration<T extends KubeObject> = DeepPartial<Omit<T, "metadata">> & {
  metadata: DeepPartial<ObjectMeta> & { name: string };
};
