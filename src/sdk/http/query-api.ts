/**
 * Calling the query API of a metrics or logs backend (Prometheus and Loki, and what speaks their
 * APIs: Thanos, Mimir, Cortex, Grafana Cloud, VictoriaMetrics) the way the http-module's
 * promql_query and logql_query do (components.md §2.4; Go http-module components/promql, logql):
 * the settings they share, per-request credentials (`username` + `token` → Basic, `token` →
 * Bearer), the `X-Scope-OrgID` tenant header and extra headers, and failures classified for the
 * retry machinery — a 429, a 5xx or a transport failure retryable, anything else permanent.
 */
import { Type } from "typebox";
import { permanent, retryable } from "../../core/errors.ts";
import { omitEmpty } from "../../golang/omitempty.ts";
import { errorMessagePortSetting } from "../error-message-port.ts";
import { HeaderSchema, type Header } from "../fields.ts";
import { HttpStatusError, performRequest, TransportError } from "./fetch.ts";

/** Settings shared by the query components (Go `Settings` of promql and logql), after decoding. */
export interface QueryApiSettings {
  /** Root of the API (`/api/v1` or `/loki/api/v1` is appended by the component). */
  baseURL: string;
  /** Tenant for `X-Scope-OrgID`; "" = none. */
  orgID: string;
  /** Sent with every request, after the others (a header named here wins). */
  headers: Header[];
  /** Seconds; ≤ 0 → 30. */
  timeoutSeconds: number;
  enableErrorPort: boolean;
}

/** Field texts that differ between the query components (Go tags). */
export interface QueryApiSettingsText {
  baseURL: string;
  orgID: string;
}

/** The `_settings` schema of a query component (Go `Settings`: baseURL, orgID, headers, timeoutSeconds, enableErrorPort). */
export function queryApiSettingsSchema(text: QueryApiSettingsText) {
  return Type.Object(
    {
      baseURL: Type.String({ title: "Base URL", description: text.baseURL }),
      orgID: Type.Optional(Type.String({ title: "Tenant (X-Scope-OrgID)", description: text.orgID })),
      headers: Type.Optional(
        Type.Union([Type.Array(HeaderSchema), Type.Null()], {
          title: "Extra Headers",
          description: "Sent with every request, for backends that authenticate with a custom header.",
        }),
      ),
      timeoutSeconds: Type.Integer({ title: "Timeout (seconds)" }),
      enableErrorPort: errorMessagePortSetting(),
    },
    { $id: "Settings" },
  );
}

/** A query component's settings before any arrive (Go's zero `Settings` with the 30 s timeout). */
export function defaultQueryApiSettings(): QueryApiSettings {
  return { baseURL: "", orgID: "", headers: [], timeoutSeconds: 30, enableErrorPort: false };
}

/** The `_settings` port's default: `settings` as Go publishes them (`orgID` and `headers` omitted when empty). */
export function queryApiSettingsDefault(settings: QueryApiSettings): QueryApiSettings {
  return omitEmpty(settings, { values: ["orgID", "headers"] }) as QueryApiSettings;
}

/**
 * The per-request credential fields of a query component's `request` (Go `Request.Token`, `Username`):
 * carried from the trigger widget so the flow stores no credential; see {@link QueryApiCall}.
 */
export function queryApiCredentialFields() {
  return {
    token: Type.Optional(
      Type.String({
        format: "password",
        title: "Bearer Token",
        description: "Carried per-request from the trigger widget the user fills, so the credential is not stored in the flow.",
      }),
    ),
    username: Type.Optional(
      Type.String({
        title: "Username",
        description: "For backends using basic auth (Grafana Cloud uses the instance id here, with the token as the password).",
      }),
    ),
  };
}

/** Why a request cannot be sent (a permanent error naming the empty field), or undefined when it can. */
export function queryApiRequestProblem(query: string, settings: QueryApiSettings): Error | undefined {
  if (query.trim() === "") return permanent(new Error('query is required: field "query" is empty'));
  if (settings.baseURL.trim() === "") return permanent(new Error('base URL is required: settings field "baseURL" is empty'));
  return undefined;
}

/**
 * Checks decoded settings (Go `OnSettings`) and fills their defaults.
 * @throws Error naming the field and value when `baseURL` is empty or not http(s).
 */
export function checkQueryApiSettings(s: {
  baseURL: string;
  orgID?: string;
  headers?: Header[] | null;
  timeoutSeconds: number;
  enableErrorPort?: boolean;
}): QueryApiSettings {
  const base = s.baseURL.trim();
  if (base === "") throw new Error('base URL is required: settings field "baseURL" is empty');
  if (!base.startsWith("http://") && !base.startsWith("https://")) throw new Error(`base URL must be http:// or https://, got ${JSON.stringify(base)}`);
  return { baseURL: s.baseURL, orgID: s.orgID ?? "", headers: s.headers ?? [], timeoutSeconds: s.timeoutSeconds, enableErrorPort: s.enableErrorPort ?? false };
}

/** One call of {@link callQueryApi}. */
export interface QueryApiCall {
  method: "GET" | "POST";
  url: string;
  /** Form body of a POST (sent `application/x-www-form-urlencoded`). */
  form?: URLSearchParams;
  /** Per-request credential; with `username`, the Basic password. */
  token: string;
  username: string;
  /** What the errors call the backend: `metrics API` → "metrics API 400: …". */
  backend: string;
  /** What a transport error is prefixed with, e.g. `query http://…` or `query loki`. */
  transportPrefix: string;
  /** Cap on the response body, bytes. */
  maxBodyBytes: number;
}

/**
 * Performs `call` with the settings' timeout, tenant and headers.
 * @returns the response body of a status < 400.
 * @throws a retryable error for a transport failure, a 429 or a 5xx (`<backend> <status>: <body,
 *   400 chars>`), a permanent one for any other status, a body over the cap or a bad URL.
 */
export async function callQueryApi(settings: QueryApiSettings, call: QueryApiCall, signal: AbortSignal): Promise<string> {
  const basic = call.token !== "" && call.username !== ""; // Grafana Cloud: instance id as user, token as password
  const { response, error } = await performRequest(
    {
      method: call.method,
      timeout: settings.timeoutSeconds > 0 ? settings.timeoutSeconds : 30,
      url: call.url,
      bearerToken: basic ? "" : call.token,
      basicAuthUser: basic ? call.username : "",
      basicAuthPassword: basic ? call.token : "",
      headers: [...(settings.orgID ? [{ key: "X-Scope-OrgID", value: settings.orgID }] : []), ...settings.headers.filter((h) => h.key !== "")],
      contentType: call.form ? "application/x-www-form-urlencoded" : "",
      body: call.form ? call.form.toString() : "",
    },
    call.maxBodyBytes,
    signal,
  );
  if (!error) return response.body;
  let cause: unknown = error;
  while (cause instanceof Error && !(cause instanceof HttpStatusError) && !(cause instanceof TransportError)) cause = cause.cause;
  if (cause instanceof HttpStatusError) {
    // A bad query answers 400 every time; a 429 or a 5xx is the backend asking for time.
    const e = new Error(`${call.backend} ${response.statusCode}: ${response.body.trim().slice(0, 400)}`);
    throw response.statusCode === 429 || response.statusCode >= 500 ? retryable(e) : permanent(e);
  }
  if (cause instanceof TransportError) throw retryable(new Error(`${call.transportPrefix}: ${error.message}`, { cause: error }));
  throw permanent(error);
}
