/**
 * What the watcher needs from the API: a paginated list and a watch of one resource in one scope.
 * The REST client satisfies it through {@link resourceSource}; unit tests pass a fake.
 */
import type { KubeList, KubeObject, ResourceDescriptor, WatchEvent } from "../client/types.ts";

/** Options of one LIST page (Kubernetes docs, "API Concepts › Retrieving large results sets in chunks"). */
export interface ListPageOptions {
  /** Page size; the server may return fewer. */
  limit?: number;
  /** Continue token from the previous page. */
  continue?: string;
  /** Cancels the request (the watcher's shutdown). */
  signal?: AbortSignal;
}

/** Options of one WATCH request. */
export interface WatchRequestOptions {
  /** Start after this collection version (from a list, an event or a bookmark). */
  resourceVersion: string;
  /** Ask for BOOKMARK events so the resume point stays fresh while nothing changes. */
  allowWatchBookmarks: boolean;
  /** Server-side duration of the watch, in seconds; the server then ends the stream cleanly. */
  timeoutSeconds?: number;
  /** Aborting ends the stream (the iterator finishes or throws an AbortError). */
  signal: AbortSignal;
}

/**
 * A resource as the watcher sees it.
 * `list` throws `KubeApiError` with status 410 when a continue token expired;
 * `watch` throws it when the resourceVersion is too old (see `isGone`).
 */
export interface WatchSource<T extends KubeObject> {
  /** One page of the collection; `metadata.resourceVersion` is the collection version. */
  list(opts: ListPageOptions): Promise<KubeList<T>>;
  /** The change stream after `resourceVersion`. */
  watch(opts: WatchRequestOptions): AsyncIterable<WatchEvent<T>>;
}

/** The subset of the REST client {@link resourceSource} calls. */
export interface ListWatchClient {
  list<T extends KubeObject>(
    res: ResourceDescriptor<T>,
    opts: { namespace?: string; labelSelector?: string; fieldSelector?: string; limit?: number; continue?: string; signal?: AbortSignal },
  ): Promise<KubeList<T>>;
  watch<T extends KubeObject>(
    res: ResourceDescriptor<T>,
    opts: {
      namespace?: string;
      labelSelector?: string;
      fieldSelector?: string;
      resourceVersion?: string;
      allowWatchBookmarks?: boolean;
      timeoutSeconds?: number;
      signal?: AbortSignal;
    },
  ): AsyncIterable<WatchEvent<T>>;
}

/** Scope and filters of a {@link resourceSource}. */
export interface ResourceSourceOptions {
  /** Namespace to watch; omit for all namespaces (or a cluster-scoped resource). */
  namespace?: string;
  /** Label selector, e.g. `app=x,tier!=db`. */
  labelSelector?: string;
  /** Field selector, e.g. `metadata.name=x`. */
  fieldSelector?: string;
}

/**
 * Binds a resource, a scope and filters to the client.
 * @example watcher(resourceSource(client, configMaps, { namespace: "tiny" }))
 */
export function resourceSource<T extends KubeObject>(client: ListWatchClient, res: ResourceDescriptor<T>, scope: ResourceSourceOptions = {}): WatchSource<T> {
  return {
    list: (opts) => client.list(res, { ...scope, ...opts }),
    watch: (opts) => client.watch(res, { ...scope, ...opts }),
  };
}

/**
 * The store key of an object: `namespace/name`, or `name` for cluster-scoped objects (client-go
 * `cache.MetaNamespaceKeyFunc`).
 */
export function objectKey(obj: KubeObject): string {
  const { namespace, name } = obj.metadata;
  return namespace ? `${namespace}/${name ?? ""}` : (name ?? "");
}

/** Splits a key made by {@link objectKey} into namespace (undefined when cluster-scoped) and name. */
export function splitKey(key: string): { namespace: string | undefined; name: string } {
  const slash = key.indexOf("/");
  return slash < 0 ? { namespace: undefined, name: key } : { namespace: key.slice(0, slash), name: key.slice(slash + 1) };
}
