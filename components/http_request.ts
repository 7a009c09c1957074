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
import {
  contentTypeField,
  contextField,
  defineComponent,
  fail,
  HeaderSchema,
  HTTP_METHODS,
  isRetryable,
  performRequest,
  source,
  stringEnum,
  target,
  Type,
  type Static,
} from "tinyhost";

/** Go `defaultMaxResponseBytes`: 10 MiB. */
export const DEFAULT_MAX_RESPONSE_BYTES = 10 * 1024 * 1024;

// Go `client` port types (http-module); `$id`s are the Go type names.
const Settings = Type.Object(
  {
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
  },
  { $id: "Settings" },
);
type Settings = Static<typeof Settings>;

/** `request` (Go `Request`): any method and content type string decode; missing fields are zero values. */
const Request = Type.Object(
  {
    context: Type.Optional(contextField("Message to be sent further")),
    method: stringEnum(HTTP_METHODS, { title: "Method", enumTitles: [...HTTP_METHODS], colSpan: "col-span-6" }),
    timeout: Type.Integer({ title: "Request Timeout", colSpan: "col-span-6" }),
    url: Type.String({ title: "URL", format: "uri" }),
    bearerToken: Type.Optional(
      Type.String({
        format: "password",
        title: "Bearer Token",
        description: "Sets the Authorization: Bearer header. Wins over basic auth if both are set; an explicit Authorization header below overrides either.",
      }),
    ),
    basicAuthUser: Type.Optional(Type.String({ title: "Basic Auth User", colSpan: "col-span-6" })),
    basicAuthPassword: Type.Optional(Type.String({ format: "password", title: "Basic Auth Password", colSpan: "col-span-6" })),
    headers: Type.Optional(Type.Union([Type.Array(HeaderSchema), Type.Null()], { title: "Headers" })),
    contentType: contentTypeField("Request Content Type"),
    body: Type.Optional(Type.String({ title: "Request Body", format: "textarea" })),
  },
  { $id: "Request" },
);

const TLSInfo = Type.Object({
  notAfter: Type.Optional(Type.String({ title: "Not After", description: "Certificate expiry date in RFC3339 format" })),
  notBefore: Type.Optional(Type.String({ title: "Not Before", description: "Certificate start date in RFC3339 format" })),
  issuer: Type.Optional(Type.String({ title: "Issuer" })),
  subject: Type.Optional(Type.String({ title: "Subject" })),
  dnsNames: Type.Optional(Type.Union([Type.Array(Type.String()), Type.Null()], { title: "DNS Names" })),
  daysUntilExpiry: Type.Optional(Type.Integer({ title: "Days Until Expiry" })),
});

/** Go `ResponseResponse`; `options` are the tags of the field holding it (`title`, `description`). */
function responseResponse(options: { title?: string; description?: string } = {}) {
  return Type.Object(
    {
      headers: Type.Union([Type.Array(HeaderSchema), Type.Null()], { title: "Headers" }),
      status: Type.Optional(Type.String()),
      statusCode: Type.Optional(Type.Integer()),
      body: Type.Optional(Type.String({ title: "Body", configurable: false })),
      tls: Type.Optional(Type.Union([TLSInfo, Type.Null()], { $id: "TLSInfo", title: "TLS", description: "TLS certificate information (HTTPS only)" })),
    },
    { $id: "ResponseResponse", ...options },
  );
}

const ResponseOut = Type.Object(
  {
    context: contextField("Message to be sent further"),
    response: responseResponse({ title: "Response", description: "HTTP Response" }),
  },
  { $id: "Response" },
);

const ErrorOut = Type.Object(
  {
    context: contextField("Message to be sent further"),
    error: Type.String(),
    retryable: Type.Optional(
      Type.Boolean({
        title: "Retryable",
        description:
          "True for network failures, 429 (rate limit), and 5xx responses — wire the error port into the retry component to retry these with backoff. False for 4xx (client errors won't get better on retry).",
      }),
    ),
    response: Type.Optional(responseResponse()),
  },
  { $id: "Error" },
);

/** Go `Request` default configuration (`headers` and credentials are omitempty). */
const REQUEST_DEFAULT = { method: "GET", timeout: 10, url: "", contentType: "application/json", body: "" };
/** An optional string field of the decoded request (always present after decoding; typed optional). */
function str(v: string | undefined): string {
  return v ?? "";
}

/** Go's zero `ResponseResponse` as it marshals (nil headers → null, `tls` omitted). */
const RESPONSE_ZERO = { headers: null, status: "", statusCode: 0, body: "" };

export default defineComponent({
  info: {
    name: "http_request",
    description: "HTTP Client",
    info:
      "Outbound HTTP request maker. Request port receives: context, method, timeout, URL, bearerToken, basicAuthUser/basicAuthPassword, headers, contentType, body. " +
      "Auth fields set the Authorization header (bearer wins over basic; an explicit Authorization header overrides both). Blocks until HTTP response received. " +
      "Response bodies are capped by maxResponseBytes in settings (default 10MB); larger responses fail rather than OOM the pod. " +
      "On success (status < 400): emits context + response on Response port. On failure or status >= 400: returns error, or if enableErrorPort=true in settings, emits on Error port instead.",
    tags: ["HTTP", "Client"],
  },
  state: () => ({ settings: { enableErrorPort: false, maxResponseBytes: DEFAULT_MAX_RESPONSE_BYTES } as Settings }),
  ports: (self) => [
    target("request", Request, { label: "Request", position: "left", default: REQUEST_DEFAULT }),
    source("response", ResponseOut, { label: "Response", position: "right", default: { context: null, response: RESPONSE_ZERO } }),
    target("_settings", Settings, { label: "Settings", default: self.settings }),
    ...(self.settings.enableErrorPort
      ? [source("error", ErrorOut, { label: "Error", position: "bottom", default: { context: null, error: "", retryable: false, response: RESPONSE_ZERO } })]
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
        // Decoded by the runner: every field present, missing ones as Go's zero values.
        method: data.method,
        timeout: data.timeout,
        url: data.url,
        bearerToken: str(data.bearerToken),
        basicAuthUser: str(data.basicAuthUser),
        basicAuthPassword: str(data.basicAuthPassword),
        headers: data.headers ?? [],
        contentType: data.contentType,
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
