/**
 * A small Kubernetes REST client on Bun's `fetch`: TLS material goes in `fetch(url, { tls })`
 * because @kubernetes/client-node's transport drops the CA and client certificate under Bun
 * (docs/reference/test-control-plane.md §4, landscape.md §D.1). Verbs and content types follow the
 * Kubernetes docs "API Concepts" and "Server-Side Apply".
 */
import { version } from "../../core/version.ts";
import type { ClusterConnection, Credentials } from "../config/types.ts";
import { KubeApiError, KubeConnectionError, KubeDecodeError, KubeInputError, isStatus } from "./errors.ts";
import { apiVersionOf, resourcePath } from "./paths.ts";
import type { ApplyConfiguration, DeepPartial, JsonPatchOperation, KubeList, KubeObject, KubeStatus, ResourceDescriptor, WatchEvent } from "./types.ts";
import { decodeWatchEvents } from "./watch-stream.ts";

/** Request kinds counted in {@link KubeClient.stats} (the apiserver's own verb split, with APPLY apart from PATCH). */
export type KubeVerb = "get" | "list" | "watch" | "create" | "update" | "patch" | "apply" | "delete" | "raw";

/** Requests sent per verb since the client was made (each HTTP attempt counts, including a 401 retry). */
export type RequestStats = Record<KubeVerb, number>;

/** Default per-request timeout, ms (client-go has none; we prefer a bound so a stuck call surfaces). Watches have none. */
export const DEFAULT_TIMEOUT_MS = 30_000;

/** Default page size of {@link KubeClient.listAll} (kube-rs and client-go pagers use 500). */
export const DEFAULT_PAGE_SIZE = 500;

/** Options of the {@link KubeClient} constructor. */
export interface KubeClientOptions {
  /** Per-request timeout in ms for everything but watches. Default {@link DEFAULT_TIMEOUT_MS}; 0 disables. */
  timeoutMs?: number;
  /** `User-Agent` header. Default `tinyhost/<version>`. */
  userAgent?: string;
}

/** Options every non-watch call accepts. */
export interface CallOptions {
  /** Cancels the request; the call then rejects with the signal's reason. */
  signal?: AbortSignal;
  /** Overrides the client's timeout for this call, ms; 0 disables. */
  timeoutMs?: number;
}

/** Options of {@link KubeClient.get}. */
export interface GetOptions extends CallOptions {
  /** Read a subresource instead, e.g. `status`. */
  subresource?: string;
}

/** Options of {@link KubeClient.list} (Kubernetes docs "API Concepts › Retrieving large results sets in chunks"). */
export interface ListOptions extends CallOptions {
  /** Namespace of a namespaced resource; omitted means all namespaces. */
  namespace?: string;
  /** e.g. `app=web,tier!=db`. */
  labelSelector?: string;
  /** e.g. `metadata.name=foo`. */
  fieldSelector?: string;
  /** Page size (objects). */
  limit?: number;
  /** Continue token from the previous page's `metadata.continue`. */
  continue?: string;
  /** `0` reads from the watch cache; empty means the newest (a quorum read). */
  resourceVersion?: string;
  /** How `resourceVersion` is matched. */
  resourceVersionMatch?: "Exact" | "NotOlderThan";
}

/** Options of writes: create, update, mergePatch, jsonPatch. */
export interface WriteOptions extends CallOptions {
  /** Namespace; defaults to the object's `metadata.namespace`, then the connection's namespace. */
  namespace?: string;
  /** Field manager recorded in managedFields. */
  fieldManager?: string;
  /** Validate and answer without persisting (`dryRun=All`). */
  dryRun?: boolean;
  /** How unknown or duplicate fields are treated. */
  fieldValidation?: "Strict" | "Warn" | "Ignore";
  /** Write a subresource, e.g. `status` (not for create). */
  subresource?: string;
}

/** Options of {@link KubeClient.apply} (Kubernetes docs "Server-Side Apply"). */
export interface ApplyOptions extends WriteOptions {
  /** Required: the manager that owns the applied fields. */
  fieldManager: string;
  /** Take ownership of fields other managers own instead of failing with a Conflict. */
  force?: boolean;
}

/** Options of {@link KubeClient.delete} (`meta/v1` DeleteOptions). */
export interface DeleteOptions extends CallOptions {
  /** Namespace; defaults to the connection's namespace. */
  namespace?: string;
  /** What happens to dependents. */
  propagationPolicy?: "Foreground" | "Background" | "Orphan";
  /** Seconds before the object is deleted; 0 means now. */
  gracePeriodSeconds?: number;
  /** Delete only if the object still has this uid / resourceVersion (else Conflict). */
  preconditions?: { uid?: string; resourceVersion?: string };
  /** Validate without deleting. */
  dryRun?: boolean;
}

/** Options of {@link KubeClient.watch}. */
export interface WatchOptions {
  /** Namespace of a namespaced resource; omitted means all namespaces. */
  namespace?: string;
  /** Start after this version (usually a list's `metadata.resourceVersion`); omitted means "now", preceded by synthetic ADDED events. */
  resourceVersion?: string;
  labelSelector?: string;
  fieldSelector?: string;
  /** Server-side end of the watch, seconds; the stream then ends normally. */
  timeoutSeconds?: number;
  /** Ask for BOOKMARK events. Default true. */
  allowWatchBookmarks?: boolean;
  /** Aborting it ends the iteration cleanly (no error). */
  signal?: AbortSignal;
}

/** The escape hatch: any request against the apiserver. */
export interface RawRequest extends CallOptions {
  /** HTTP method, e.g. `GET`. */
  method: string;
  /** Absolute API path, e.g. `/version` or `/apis/apps/v1`. */
  path: string;
  /** Query parameters; arrays repeat the key; undefined values are left out. */
  query?: Record<string, QueryValue>;
  /** A string is sent as is; anything else is JSON-encoded. */
  body?: unknown;
  /** `Content-Type` when there is a body. Default `application/json`. */
  contentType?: string;
}

/** A query-parameter value. */
export type QueryValue = string | number | boolean | undefined | readonly string[];

/** A 2xx response, and the mapper for errors while reading its body. */
type Opened = { response: Response; fail: (e: unknown) => never };

const JSON_TYPE = "application/json";
const MERGE_PATCH = "application/merge-patch+json";
const JSON_PATCH = "application/json-patch+json";
const APPLY_PATCH = "application/apply-patch+yaml";

/**
 * Kubernetes REST client for one {@link ClusterConnection}. Every call is typed by a
 * {@link ResourceDescriptor}; errors are {@link KubeApiError} (non-2xx), {@link KubeConnectionError}
 * (no answer, TLS failure, timeout), {@link KubeInputError} (bad argument) and
 * {@link KubeDecodeError} (a body that is not the promised JSON). A 401 drops cached credentials
 * (token file, exec plugin) and retries once.
 */
export class KubeClient {
  /** The connection this client talks to. */
  readonly connection: ClusterConnection;
  /** Requests sent per verb; read by the scale benchmark. */
  readonly stats: RequestStats = { get: 0, list: 0, watch: 0, create: 0, update: 0, patch: 0, apply: 0, delete: 0, raw: 0 };
  readonly #timeoutMs: number;
  readonly #userAgent: string;

  /** @param connection - from `loadKubeConfig`. @param options - timeout and User-Agent. */
  constructor(connection: ClusterConnection, options: KubeClientOptions = {}) {
    this.connection = connection;
    this.#timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.#userAgent = options.userAgent ?? `tinyhost/${version}`;
  }

  /** The default namespace (from the kubeconfig context or the service account). */
  get namespace(): string {
    return this.connection.namespace;
  }

  /**
   * Reads one object (`GET .../{name}`).
   * @param namespace - for namespaced resources; default the connection's namespace.
   * @throws KubeApiError (`isNotFound` when absent), KubeConnectionError, KubeInputError.
   */
  async get<T extends KubeObject>(res: ResourceDescriptor<T>, name: string, namespace?: string, options: GetOptions = {}): Promise<T> {
    const path = resourcePath(res, this.#ns(res, namespace), name, options.subresource);
    return this.#json<T>("get", "GET", path, {}, undefined, undefined, options);
  }

  /**
   * Lists one page of objects.
   * @returns the items and the list's `resourceVersion` / `continue` token.
   * @throws KubeApiError (410 `isGone` when a continue token expired), KubeConnectionError.
   */
  async list<T extends KubeObject>(res: ResourceDescriptor<T>, options: ListOptions = {}): Promise<KubeList<T>> {
    const path = resourcePath(res, this.#nsOrAll(res, options.namespace));
    const query = {
      labelSelector: options.labelSelector,
      fieldSelector: options.fieldSelector,
      limit: options.limit,
      continue: options.continue || undefined,
      resourceVersion: options.resourceVersion,
      resourceVersionMatch: options.resourceVersionMatch,
    };
    const list = await this.#json<{ items?: T[] | null; metadata?: { resourceVersion?: string; continue?: string; remainingItemCount?: number } }>(
      "list",
      "GET",
      path,
      query,
      undefined,
      undefined,
      options,
    );
    const meta = list.metadata ?? {};
    // Items of a typed list omit apiVersion/kind; restore them so objects are self-describing.
    const items = (list.items ?? []).map((o) => ({ apiVersion: apiVersionOf(res), kind: res.kind, ...o }));
    return {
      items,
      metadata: {
        resourceVersion: meta.resourceVersion ?? "",
        ...(meta.continue ? { continue: meta.continue } : {}),
        ...(meta.remainingItemCount !== undefined ? { remainingItemCount: meta.remainingItemCount } : {}),
      },
    };
  }

  /**
   * Lists every object, following `continue` tokens page by page.
   * @param options - as {@link list}; `limit` is the page size (default {@link DEFAULT_PAGE_SIZE}).
   * @returns all items and the first page's `resourceVersion` (a consistent snapshot for all pages).
   * @throws as {@link list}.
   */
  async listAll<T extends KubeObject>(res: ResourceDescriptor<T>, options: Omit<ListOptions, "continue"> = {}): Promise<KubeList<T>> {
    const items: T[] = [];
    let page = await this.list(res, { ...options, limit: options.limit ?? DEFAULT_PAGE_SIZE });
    const resourceVersion = page.metadata.resourceVersion;
    items.push(...page.items);
    while (page.metadata.continue) {
      page = await this.list(res, { ...options, limit: options.limit ?? DEFAULT_PAGE_SIZE, continue: page.metadata.continue, resourceVersion: undefined });
      items.push(...page.items);
    }
    return { items, metadata: { resourceVersion } };
  }

  /**
   * Creates an object (`POST` to the collection). `apiVersion`/`kind` are filled from the descriptor when absent.
   * @throws KubeApiError (`isAlreadyExists`), KubeConnectionError, KubeInputError when neither name nor generateName is set.
   */
  async create<T extends KubeObject>(res: ResourceDescriptor<T>, object: T, options: WriteOptions = {}): Promise<T> {
    if (!object?.metadata?.name && !object?.metadata?.generateName) {
      throw new KubeInputError("metadata.name", `is required to create a ${res.kind} (or set metadata.generateName)`);
    }
    const path = resourcePath(res, this.#ns(res, options.namespace ?? object.metadata.namespace));
    return this.#json<T>("create", "POST", path, writeQuery(options), this.#withType(res, object), JSON_TYPE, options);
  }

  /**
   * Replaces an object (`PUT`). The object's `metadata.resourceVersion`, when set, makes this a
   * compare-and-swap: a stale one fails with `isConflict`. Use `subresource: "status"` for status.
   * @throws KubeApiError (`isConflict`, `isNotFound`), KubeConnectionError, KubeInputError.
   */
  async update<T extends KubeObject>(res: ResourceDescriptor<T>, object: T, options: WriteOptions = {}): Promise<T> {
    const name = requireName(object, res);
    const path = resourcePath(res, this.#ns(res, options.namespace ?? object.metadata.namespace), name, options.subresource);
    return this.#json<T>("update", "PUT", path, writeQuery(options), this.#withType(res, object), JSON_TYPE, options);
  }

  /**
   * JSON merge patch (RFC 7386, `application/merge-patch+json`): `null` deletes a field, lists are replaced.
   * @throws KubeApiError, KubeConnectionError, KubeInputError.
   */
  async mergePatch<T extends KubeObject>(res: ResourceDescriptor<T>, name: string, patch: DeepPartial<T>, options: WriteOptions = {}): Promise<T> {
    const path = resourcePath(res, this.#ns(res, options.namespace), name, options.subresource);
    return this.#json<T>("patch", "PATCH", path, writeQuery(options), patch, MERGE_PATCH, options);
  }

  /**
   * JSON patch (RFC 6902, `application/json-patch+json`); a failing `test` op rejects the whole patch.
   * @throws KubeApiError, KubeConnectionError, KubeInputError.
   */
  async jsonPatch<T extends KubeObject>(res: ResourceDescriptor<T>, name: string, operations: JsonPatchOperation[], options: WriteOptions = {}): Promise<T> {
    const path = resourcePath(res, this.#ns(res, options.namespace), name, options.subresource);
    return this.#json<T>("patch", "PATCH", path, writeQuery(options), operations, JSON_PATCH, options);
  }

  /**
   * Server-side apply (`PATCH`, `application/apply-patch+yaml`, body sent as JSON, which is YAML):
   * creates the object or merges the fields this `fieldManager` owns. Applying the same
   * configuration again changes nothing (same resourceVersion). Rule: Kubernetes docs "Server-Side Apply".
   * @throws KubeApiError (`isConflict` when another manager owns a field and `force` is not set),
   *   KubeConnectionError, KubeInputError when `fieldManager` or `metadata.name` is missing.
   */
  async apply<T extends KubeObject>(res: ResourceDescriptor<T>, configuration: ApplyConfiguration<T>, options: ApplyOptions): Promise<T> {
    if (!options?.fieldManager) throw new KubeInputError("fieldManager", "is required for server-side apply");
    const name = configuration?.metadata?.name;
    if (!name) throw new KubeInputError("metadata.name", `is required to apply a ${res.kind}`);
    const ns = this.#ns(res, options.namespace ?? configuration.metadata.namespace ?? undefined);
    const path = resourcePath(res, ns, name, options.subresource);
    const query = { ...writeQuery(options), force: options.force ? true : undefined };
    return this.#json<T>("apply", "PATCH", path, query, this.#withType(res, configuration), APPLY_PATCH, options);
  }

  /**
   * Deletes an object. The answer is the object (while finalizers or a grace period hold it) or a Status.
   * @throws KubeApiError (`isNotFound`; `isConflict` when a precondition fails), KubeConnectionError.
   */
  async delete<T extends KubeObject>(res: ResourceDescriptor<T>, name: string, options: DeleteOptions = {}): Promise<T | KubeStatus> {
    const path = resourcePath(res, this.#ns(res, options.namespace), name);
    const body = {
      apiVersion: "v1",
      kind: "DeleteOptions",
      ...(options.propagationPolicy ? { propagationPolicy: options.propagationPolicy } : {}),
      ...(options.gracePeriodSeconds !== undefined ? { gracePeriodSeconds: options.gracePeriodSeconds } : {}),
      ...(options.preconditions ? { preconditions: options.preconditions } : {}),
      ...(options.dryRun ? { dryRun: ["All"] } : {}),
    };
    return this.#json<T | KubeStatus>("delete", "DELETE", path, {}, body, JSON_TYPE, options);
  }

  /**
   * Watches a collection: `GET ...?watch=true`, decoded line by line. No client timeout; the
   * iteration ends when the server closes the stream (e.g. after `timeoutSeconds`) or the signal
   * aborts. Reconnecting is the caller's job (the watcher stage).
   * @throws KubeApiError — the initial request failed, or status 410 / reason `Gone` when the
   *   resourceVersion is too old (relist); KubeConnectionError when the stream breaks;
   *   KubeDecodeError on a malformed line.
   */
  watch<T extends KubeObject>(res: ResourceDescriptor<T>, options: WatchOptions = {}): AsyncIterable<WatchEvent<T>> {
    return this.#watch(res, options);
  }

  /**
   * Sends any request; the answer is parsed as JSON when its content type says so, else returned as text.
   * @returns the parsed body, or undefined when empty.
   * @throws KubeApiError (non-2xx), KubeConnectionError, KubeDecodeError.
   */
  async request<R = unknown>(req: RawRequest): Promise<R> {
    if (!req.path?.startsWith("/")) throw new KubeInputError("path", `must start with "/", got ${JSON.stringify(req.path)}`);
    const body = req.body === undefined ? undefined : typeof req.body === "string" ? req.body : JSON.stringify(req.body);
    const method = req.method.toUpperCase();
    const { response, fail } = await this.#send(
      "raw",
      method,
      req.path,
      req.query ?? {},
      body,
      body === undefined ? undefined : (req.contentType ?? JSON_TYPE),
      req,
    );
    const text = await response.text().catch(fail);
    if (!text) return undefined as R;
    if (!(response.headers.get("content-type") ?? "").includes("json")) return text as R;
    return parseJson<R>(text, `${method} ${req.path}`);
  }

  async *#watch<T extends KubeObject>(res: ResourceDescriptor<T>, options: WatchOptions): AsyncGenerator<WatchEvent<T>> {
    const path = resourcePath(res, this.#nsOrAll(res, options.namespace));
    const query = {
      watch: true,
      allowWatchBookmarks: options.allowWatchBookmarks ?? true,
      resourceVersion: options.resourceVersion,
      labelSelector: options.labelSelector,
      fieldSelector: options.fieldSelector,
      timeoutSeconds: options.timeoutSeconds,
    };
    const signal = options.signal;
    let opened: Opened;
    try {
      opened = await this.#send("watch", "GET", path, query, undefined, undefined, { timeoutMs: 0, ...(signal ? { signal } : {}) }, "WATCH");
    } catch (e) {
      if (signal?.aborted) return;
      throw e;
    }
    const body = opened.response.body;
    if (!body) return;
    try {
      yield* decodeWatchEvents<T>(body, { verb: "WATCH", path });
    } catch (e) {
      if (signal?.aborted) return; // the caller stopped the watch: end quietly
      if (e instanceof KubeApiError || e instanceof KubeDecodeError) throw e;
      opened.fail(e);
    }
  }

  /** Sends a JSON request and parses the JSON answer. */
  async #json<R>(
    verb: KubeVerb,
    method: string,
    path: string,
    query: Record<string, QueryValue>,
    body: unknown,
    contentType: string | undefined,
    options: CallOptions,
  ): Promise<R> {
    const payload = body === undefined ? undefined : JSON.stringify(body);
    const { response, fail } = await this.#send(verb, method, path, query, payload, contentType, options);
    const text = await response.text().catch(fail);
    return parseJson<R>(text, `${method} ${path}`);
  }

  /**
   * One HTTP exchange up to the response headers, with auth, TLS, timeout and one retry after 401.
   * @returns the 2xx response and `fail`, which maps a later body-read error the same way.
   */
  async #send(
    verb: KubeVerb,
    method: string,
    path: string,
    query: Record<string, QueryValue>,
    body: string | undefined,
    contentType: string | undefined,
    options: CallOptions,
    label: string = method,
  ): Promise<Opened> {
    const url = this.connection.server + path + queryString(query);
    const timeoutMs = options.timeoutMs ?? this.#timeoutMs;
    let retried = false;
    for (;;) {
      const timeout = timeoutMs > 0 ? AbortSignal.timeout(timeoutMs) : undefined;
      const signal = timeout && options.signal ? AbortSignal.any([options.signal, timeout]) : (timeout ?? options.signal);
      const fail = (e: unknown): never => {
        if (options.signal?.aborted) throw options.signal.reason;
        if (e instanceof KubeApiError || e instanceof KubeConnectionError) throw e;
        throw new KubeConnectionError(this.connection.server, `${label} ${path}`, e, timeout?.aborted ? timeoutMs : undefined);
      };
      const creds = await this.connection.credentials.current();
      const init: BunFetchRequestInit = {
        method,
        headers: this.#headers(creds, contentType),
        tls: this.#tls(creds),
        ...(body !== undefined ? { body } : {}),
        ...(signal ? { signal } : {}),
        ...(this.connection.proxyUrl ? { proxy: this.connection.proxyUrl } : {}),
      };
      this.stats[verb]++;
      let response: Response;
      try {
        response = await fetch(url, init);
      } catch (e) {
        return fail(e);
      }
      if (response.status === 401 && !retried && this.connection.credentials.invalidate()) {
        // The token file rotated or the exec credential expired early: fetch fresh credentials once.
        retried = true;
        await response.body?.cancel().catch(() => undefined);
        continue;
      }
      if (!response.ok) {
        const text = await response.text().catch(fail);
        let status: KubeStatus | undefined;
        try {
          const parsed: unknown = JSON.parse(text);
          if (isStatus(parsed)) status = parsed;
        } catch {
          // not JSON: the raw text becomes the message
        }
        throw new KubeApiError({ verb: label, path, status: response.status, body: status, text, retryAfter: response.headers.get("retry-after") });
      }
      return { response, fail };
    }
  }

  #headers(creds: Credentials, contentType: string | undefined): Record<string, string> {
    const headers: Record<string, string> = { Accept: JSON_TYPE, "User-Agent": this.#userAgent };
    if (contentType) headers["Content-Type"] = contentType;
    if (creds.token) headers.Authorization = `Bearer ${creds.token}`;
    else if (creds.basic) headers.Authorization = `Basic ${Buffer.from(`${creds.basic.username}:${creds.basic.password}`).toString("base64")}`;
    return headers;
  }

  #tls(creds: Credentials): BunFetchRequestInitTLS {
    const c = this.connection;
    return {
      rejectUnauthorized: !c.insecureSkipTlsVerify,
      ...(c.caPem ? { ca: c.caPem } : {}),
      ...(creds.clientCertPem && creds.clientKeyPem ? { cert: creds.clientCertPem, key: creds.clientKeyPem } : {}),
      ...(c.tlsServerName ? { serverName: c.tlsServerName } : {}),
    };
  }

  /** Namespace for an object call: explicit → default; none for cluster-scoped resources. */
  #ns(res: ResourceDescriptor<never> | ResourceDescriptor, namespace: string | undefined): string | undefined {
    if (!res.namespaced) {
      return undefined;
    }
    return namespace || this.connection.namespace;
  }

  /** Namespace for a collection call: explicit, or all namespaces. */
  #nsOrAll(res: ResourceDescriptor<never> | ResourceDescriptor, namespace: string | undefined): string | undefined {
    if (namespace !== undefined && !res.namespaced) {
      throw new KubeInputError("namespace", `${JSON.stringify(namespace)} was given for cluster-scoped ${res.plural}`);
    }
    return namespace || undefined;
  }

  #withType<O extends object>(res: ResourceDescriptor<never> | ResourceDescriptor, object: O): O {
    return { apiVersion: apiVersionOf(res), kind: res.kind, ...object };
  }
}

function requireName(object: KubeObject, res: ResourceDescriptor<never> | ResourceDescriptor): string {
  const name = object?.metadata?.name;
  if (!name) throw new KubeInputError("metadata.name", `is required to update a ${res.kind}`);
  return name;
}

function writeQuery(options: WriteOptions): Record<string, QueryValue> {
  return {
    fieldManager: options.fieldManager,
    dryRun: options.dryRun ? "All" : undefined,
    fieldValidation: options.fieldValidation,
  };
}

function queryString(query: Record<string, QueryValue>): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) {
    if (value === undefined || value === "") continue;
    if (Array.isArray(value)) for (const v of value) params.append(key, v);
    else params.append(key, String(value));
  }
  const s = params.toString();
  return s ? `?${s}` : "";
}

function parseJson<R>(text: string, what: string): R {
  try {
    return JSON.parse(text) as R;
  } catch {
    throw new KubeDecodeError(what, `answer is not JSON: ${JSON.stringify(text.slice(0, 200))}`);
  }
}
