/**
 * `http_request` (Go package `client`) — "HTTP Client": one outbound HTTP request per message
 * (components.md §2.2, Go http-module `components/client`).
 *
 * Success (status < 400) emits `{context, response}` on `response` and returns the downstream
 * result. Failures (transport, timeout, body over `maxResponseBytes`, status ≥ 400 with the body as
 * error text) either fail the hop (retryable for transport/read errors, 429 and 5xx) or, with
 * `enableErrorPort`, emit `{context, error, retryable, response}` on `error` and return its result.
 * TLS certificate details (`response.tls`) are not available under Bun and are never set.
 */
import { defineComponent, fail, isRetryable, source, target, Type, type Static } from "tinyhost";
import { contextField, contentTypeField, HeaderSchema, HTTP_METHODS, stringEnum, type Header } from "../src/components-lib/fields.ts";
import { performRequest } from "../src/components-lib/http-fetch.ts";
import { publishAs } from "../src/components-lib/published-schema.ts";

/** Go `defaultMaxResponseBytes`: 10 MiB. */
export const DEFAULT_MAX_RESPONSE_BYTES = 10 * 1024 * 1024;

const Settings = Type.Object({
  enableErrorPort: Type.Boolean({
    title: "Enable Error Port",
    description: "If request fail, error port will emit an error message. HTTP responses with status code >= 400 will emit an error message.",
  }),
  maxResponseBytes: Type.Optional(
    Type.Integer({
      title: "Max Response Bytes",
      description: "Cap on response body size; larger responses fail rather than OOM the pod. Defaults to 10485760 (10MB).",
    }),
  ),
});
type Settings = Static<typeof Settings>;

/** `request` as the editor shows it (Go `Request`). */
const RequestPublished = Type.Object({
  context: Type.Optional(contextField("Message to be sent further")),
  method: stringEnum(HTTP_METHODS, { title: "Method", enumTitles: [...HTTP_METHODS], colSpan: "col-span-6" }),
  timeout: Type.Integer({ title: "Request Timeout", colSpan: "col-span-6" }),
  url: Type.String({ title: "URL", format: "uri" }),
  bearerToken: Type.Optional(Type.String({ format: "password", title: "Bearer Token", description: "Sets the Authorization: Bearer header. Wins over basic auth if both are set; an explicit Authorization header below overrides either." })),
  basicAuthUser: Type.Optional(Type.String({ title: "Basic Auth User", colSpan: "col-span-6" })),
  basicAuthPassword: Type.Optional(Type.String({ format: "password", title: "Basic Auth Password", colSpan: "col-span-6" })),
  headers: Type.Optional(Type.Array(HeaderSchema, { title: "Headers" })),
  contentType: contentTypeField("Request content type"),
  body: Type.Optional(Type.String({ title: "Request Body", format: "textarea" })),
});

const OptStr = Type.Optional(Type.Union([Type.String(), Type.Null()]));
/** What `request` accepts: any method/content type string; missing or null fields are zero values (Go decode). */
const RequestAccepted = Type.Object({
  context: Type.Optional(Type.Unknown()),
  method: OptStr,
  timeout: Type.Optional(Type.Union([Type.Integer(), Type.Null()])),
  url: OptStr,
  bearerToken: OptStr,
  basicAuthUser: OptStr,
  basicAuthPassword: OptStr,
  headers: Type.Optional(Type.Union([Type.Array(Type.Object({ key: Type.String(), value: Type.String() })), Type.Null()])),
  contentType: OptStr,
  body: OptStr,
});

const ResponseResponse = Type.Object({
  headers: Type.Array(HeaderSchema, { title: "Headers" }),
  status: Type.String(),
  statusCode: Type.Integer(),
  body: Type.String({ title: "Body", configurable: false }),
  tls: Type.Optional(
    Type.Object(
      {
        notAfter: Type.String({ title: "Not After", description: "Certificate expiry date in RFC3339 format" }),
        notBefore: Type.String({ title: "Not Before", description: "Certificate start date in RFC3339 format" }),
        issuer: Type.String({ title: "Issuer" }),
        subject: Type.String({ title: "Subject" }),
        dnsNames: Type.Array(Type.String(), { title: "DNS Names" }),
        daysUntilExpiry: Type.Integer({ title: "Days Until Expiry" }),
      },
      { title: "TLS", description: "TLS certificate information (HTTPS only)" },
    ),
  ),
}, { title: "Response", description: "HTTP Response" });

const ResponseOut = Type.Object({
  context: contextField("Message to be sent further"),
  response: ResponseResponse,
});

const ErrorOut = Type.Object({
  context: contextField("Message to be sent further"),
  error: Type.String(),
  retryable: Type.Boolean({
    title: "Retryable",
    description: "True for network failures, 429 (rate limit), and 5xx responses — wire the error port into the retry component to retry these with backoff. False for 4xx (client errors won't get better on retry).",
  }),
  response: ResponseResponse,
});

/** Go `Request` default configuration (`headers` and credentials are omitempty). */
const REQUEST_DEFAULT = { method: "GET", timeout: 10, url: "", contentType: "application/json", body: "" };

function str(v: string | null | undefined): string {
  return v ?? "";
}

export default defineComponent({
  info: {
    name: "http_request",
    description: "HTTP Client",
    info:
      "Outbound HTTP request maker. Request port receives: context, method, timeout (s), URL, bearerToken, basicAuthUser/basicAuthPassword, headers, contentType, body. " +
      "Bearer wins over basic auth; an explicit Authorization header overrides both. Blocks until the response arrives. Bodies are capped by maxResponseBytes (default 10MB). " +
      "Status < 400: emits context + response on Response. Failure or status >= 400: returns an error, or with enableErrorPort emits on Error instead.",
    tags: ["HTTP", "Client"],
  },
  state: () => ({ settings: { enableErrorPort: false, maxResponseBytes: DEFAULT_MAX_RESPONSE_BYTES } as Settings }),
  ports: (self) => [
    publishAs(target("request", RequestAccepted, { label: "Request", position: "left", default: REQUEST_DEFAULT }), RequestPublished),
    source("response", ResponseOut, { label: "Response", position: "right", default: { context: null, response: { headers: [], status: "", statusCode: 0, body: "" } } }),
    target("_settings", Settings, { label: "Settings", default: self.settings }),
    ...(self.settings.enableErrorPort
      ? [source("error", ErrorOut, { label: "Error", position: "bottom", default: { context: null, error: "", retryable: false, response: { headers: [], status: "", statusCode: 0, body: "" } } })]
      : []),
  ],
  onSettings(ctx, settings) {
    ctx.self.settings = { ...settings };
  },
  async handle(ctx, output, _port, data) {
    const context = data.context ?? null;
    const max = ctx.self.settings.maxResponseBytes && ctx.self.settings.maxResponseBytes > 0 ? ctx.self.settings.maxResponseBytes : DEFAULT_MAX_RESPONSE_BYTES;
    const outcome = await performRequest(
      {
        method: str(data.method),
        timeout: data.timeout ?? 0,
        url: str(data.url),
        bearerToken: str(data.bearerToken),
        basicAuthUser: str(data.basicAuthUser),
        basicAuthPassword: str(data.basicAuthPassword),
        headers: (data.headers ?? []) as Header[],
        contentType: str(data.contentType),
        body: str(data.body),
      },
      max,
      ctx.signal,
    );
    if (!outcome.error) return output("response", { context, response: outcome.response });
    if (!ctx.self.settings.enableErrorPort) return fail(outcome.error);
    return output("error", { context, error: outcome.error.message, retryable: isRetryable(outcome.error), response: outcome.response });
  },
});

