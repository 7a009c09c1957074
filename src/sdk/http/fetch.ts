/**
 * One outbound HTTP exchange as Go's http-module `http_request` performs it (components.md §2.2):
 * per-request timeout, auth headers, a capped streaming body read, and Go-shaped errors marked
 * retryable (transport/read failures, 429, 5xx) or not (bad URL, body over the cap, other 4xx).
 */
import { retryable, TinyError } from "../../core/errors.ts";
import type { Header } from "../fields.ts";
import { headerList } from "./headers.ts";
import { statusLine } from "./status-text.ts";
import { timeoutSignal } from "../../core/timer.ts";

/** What `http_request` receives on `request` (Go `Request`), after defaults for missing fields. */
export interface OutboundRequest {
  method: string;
  /** Seconds; ≤ 0 → no timeout. */
  timeout: number;
  url: string;
  bearerToken: string;
  basicAuthUser: string;
  basicAuthPassword: string;
  headers: readonly Header[];
  contentType: string;
  body: string;
}

/** Go `ResponseResponse`: what `response` (and `error`) carry. `tls` is never set under Bun. */
export interface InboundResponse {
  headers: Header[];
  status: string;
  statusCode: number;
  body: string;
}

/** An empty {@link InboundResponse} (Go's zero `ResponseResponse`, with `headers: []`). */
export function emptyResponse(): InboundResponse {
  return { headers: [], status: "", statusCode: 0, body: "" };
}

/** The request could not be built (URL unparsable or not http/https). code `"HTTP_BAD_REQUEST"`; not retryable. */
export class BadRequestError extends TinyError {
  constructor(message: string) {
    super("HTTP_BAD_REQUEST", message);
  }
}

/** The response body passed `maxResponseBytes`. code `"HTTP_RESPONSE_TOO_LARGE"`; not retryable (same size next time). */
export class ResponseTooLargeError extends TinyError {
  constructor(limit: number) {
    super("HTTP_RESPONSE_TOO_LARGE", `response body exceeds the ${limit} byte cap (maxResponseBytes setting)`);
  }
}

/** The server answered ≥ 400; the message is the body (as Go). code `"HTTP_STATUS"`. */
export class HttpStatusError extends TinyError {
  constructor(
    readonly statusCode: number,
    body: string,
  ) {
    super("HTTP_STATUS", body);
  }
}

/** The exchange failed in transport, timeout or body read. code `"HTTP_TRANSPORT"`; wrapped retryable. */
export class TransportError extends TinyError {
  constructor(message: string, cause?: unknown) {
    super("HTTP_TRANSPORT", message, { cause });
  }
}

/** Outcome of {@link performRequest}: a response (any status) or an error plus whatever response was read. */
export type ExchangeOutcome = { response: InboundResponse; error?: undefined } | { response: InboundResponse; error: Error };

/** Go's `url.Error` op: the method with only its first letter upper-case (`Get`, `Post`). */
function urlOp(method: string): string {
  return method.length === 0 ? "" : method[0]!.toUpperCase() + method.slice(1).toLowerCase();
}

function basicAuth(user: string, password: string): string {
  return "Basic " + Buffer.from(`${user}:${password}`, "utf8").toString("base64");
}

/** Reads `body` fully, failing with {@link ResponseTooLargeError} as soon as more than `limit` bytes arrive. */
async function readCapped(body: ReadableStream<Uint8Array> | null, limit: number): Promise<string> {
  if (!body) return "";
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > limit) {
      void reader.cancel().catch(() => undefined);
      throw new ResponseTooLargeError(limit);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks, total).toString("utf8");
}

/** Go's `defaultCheckRedirect`: the 10th redirect response fails the request. */
export const MAX_REDIRECTS = 10;

/** Headers Go drops on a redirect to another host that is not a subdomain of the first (net/http client.go). */
const SENSITIVE = ["Authorization", "Www-Authenticate", "Cookie", "Cookie2", "Proxy-Authorization", "Proxy-Authenticate"];
/** Headers describing the body, dropped when a redirect drops the body (Go; Fetch "request-body-header name"). */
const BODY_HEADERS = ["Content-Encoding", "Content-Language", "Content-Location", "Content-Type"];

/**
 * Go `redirectBehavior`: 301/302/303 follow with GET (HEAD stays HEAD) and without the body; 307/308
 * follow with the same method and body; anything else is final.
 */
export function redirectBehavior(method: string, status: number): { follow: boolean; method: string; keepBody: boolean } {
  if (status === 301 || status === 302 || status === 303)
    return { follow: true, method: method === "GET" || method === "HEAD" ? method : "GET", keepBody: false };
  if (status === 307 || status === 308) return { follow: true, method, keepBody: true };
  return { follow: false, method, keepBody: true };
}

/** Go `isDomainOrSubdomain`: `sub` equals `parent` or ends in `.parent` (never for IPv6 literals). */
export function isDomainOrSubdomain(sub: string, parent: string): boolean {
  if (sub === parent) return true;
  if (/[:%]/.test(sub) || sub.startsWith("[")) return false;
  return sub.endsWith("." + parent);
}

/** Go `refererForURL`: the previous URL without credentials, none from https to http; an explicit Referer stays. */
function refererFor(last: URL, next: URL, explicit: string | null): string | undefined {
  if (last.protocol === "https:" && next.protocol === "http:") return undefined;
  if (explicit) return explicit;
  const u = new URL(last.href);
  u.username = "";
  u.password = "";
  return u.href;
}

/** A URL as Go's `url.Error` shows it: the password replaced by `xxxxx`. */
function shownURL(u: URL): string {
  if (u.password === "") return u.href;
  const c = new URL(u.href);
  c.password = "xxxxx";
  return c.href;
}

/**
 * Performs `req` as Go's `http.Client` with its default Transport does. Never rejects: failures
 * come back as `{error, response}` where `error` is marked retryable for transport errors,
 * timeouts, read errors, 429 and 5xx (components.md §2.2).
 *
 * - Redirects (net/http client.go): at most {@link MAX_REDIRECTS}, then `stopped after 10
 *   redirects`; 301/302/303 turn any method but GET/HEAD into GET and drop the body and its
 *   headers, 307/308 keep both; `Authorization`, `Cookie` and the other {@link SENSITIVE} headers
 *   are dropped for good once a redirect leaves the first host and its subdomains; `Referer` is set
 *   as Go does; a 3xx without `Location` is the final response.
 * - Compression: without an `Accept-Encoding` of the caller's, `Accept-Encoding: gzip` is sent and a
 *   gzip body is decompressed, its `Content-Encoding`/`Content-Length` removed from the headers; a
 *   caller's `Accept-Encoding` gets the body as sent. The cap counts decompressed bytes.
 * - The timeout bounds the whole exchange, redirects and body included (Go's `Client.Timeout`), and
 *   is the only bound: Bun's default 5-minute idle limit on a silent server is switched off, as Go
 *   has none (a `timeout` of 10 minutes waits 10 minutes).
 * @param maxResponseBytes cap on the body, bytes (> 0).
 * @param signal the caller's cancellation (hop signal); combined with the request timeout.
 */
export async function performRequest(req: OutboundRequest, maxResponseBytes: number, signal: AbortSignal): Promise<ExchangeOutcome> {
  const op = urlOp(req.method);
  let url: URL;
  try {
    url = new URL(req.url);
  } catch {
    return { response: emptyResponse(), error: new BadRequestError(`parse ${JSON.stringify(req.url)}: invalid URL`) };
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    return {
      response: emptyResponse(),
      error: new BadRequestError(`${op} ${JSON.stringify(req.url)}: unsupported protocol scheme ${JSON.stringify(url.protocol.slice(0, -1))}`),
    };
  }
  const initialHeaders = new Headers();
  if (req.contentType !== "") initialHeaders.set("Content-Type", req.contentType);
  if (req.bearerToken !== "") initialHeaders.set("Authorization", "Bearer " + req.bearerToken);
  else if (req.basicAuthUser !== "" || req.basicAuthPassword !== "") initialHeaders.set("Authorization", basicAuth(req.basicAuthUser, req.basicAuthPassword));
  try {
    for (const h of req.headers) initialHeaders.set(h.key, h.value);
  } catch (err) {
    return { response: emptyResponse(), error: new BadRequestError(`invalid header: ${(err as Error).message}`) };
  }
  const timeoutMs = req.timeout > 0 ? req.timeout * 1000 : 0;
  const combined = timeoutMs > 0 ? AbortSignal.any([signal, timeoutSignal(timeoutMs)]) : signal;
  let method = req.method.toUpperCase();
  // fetch refuses a body on GET/HEAD; Go sends an empty one, which is the same on the wire.
  const body = req.body !== "" ? req.body : undefined;
  const callerEncoding = initialHeaders.has("Accept-Encoding");
  const reason = () => (signal.aborted ? "context canceled" : "context deadline exceeded");
  const initial = url;
  let keepBody = true;
  let stripSensitive = false;
  let headers = initialHeaders;
  let res: Response;
  for (let redirects = 0; ; ) {
    // Go's Transport asks for gzip itself (not on HEAD) and then decompresses; a caller's own Accept-Encoding gets raw bytes.
    const gzip = !callerEncoding && method !== "HEAD";
    if (gzip) headers.set("Accept-Encoding", "gzip");
    try {
      // `timeout: false`: Bun's own 5-minute idle limit is off; `timeout` (Go's Client.Timeout) is the only bound.
      res = await fetch(url, {
        method,
        headers,
        body: keepBody && method !== "GET" && method !== "HEAD" ? body : undefined,
        signal: combined,
        redirect: "manual",
        decompress: gzip,
        timeout: false,
      });
    } catch (err) {
      const text = combined.aborted ? reason() : transportReason(err, url);
      return { response: emptyResponse(), error: retryable(new TransportError(`${op} ${JSON.stringify(shownURL(url))}: ${text}`, err)) };
    }
    const next = redirectBehavior(method, res.status);
    if (!next.follow) break;
    const location = res.headers.get("Location");
    if (location === null || location === "") break; // Go: a 3xx without Location is the answer
    let target: URL;
    try {
      target = new URL(location, url);
    } catch {
      void res.body?.cancel().catch(() => undefined);
      return {
        response: emptyResponse(),
        error: retryable(new TransportError(`${op} ${JSON.stringify(shownURL(url))}: failed to parse Location header ${JSON.stringify(location)}`)),
      };
    }
    void res.body?.cancel().catch(() => undefined);
    redirects++;
    if (redirects >= MAX_REDIRECTS) {
      return { response: emptyResponse(), error: retryable(new TransportError(`${op} ${JSON.stringify(location)}: stopped after ${MAX_REDIRECTS} redirects`)) };
    }
    if (target.protocol !== "http:" && target.protocol !== "https:") {
      return {
        response: emptyResponse(),
        error: retryable(
          new TransportError(`${op} ${JSON.stringify(shownURL(target))}: unsupported protocol scheme ${JSON.stringify(target.protocol.slice(0, -1))}`),
        ),
      };
    }
    if (!next.keepBody) keepBody = false; // once a hop drops the body it is never sent again
    if (!stripSensitive && initial.host !== target.host && !isDomainOrSubdomain(target.hostname, initial.hostname)) stripSensitive = true;
    headers = new Headers(initialHeaders);
    if (stripSensitive) for (const k of SENSITIVE) headers.delete(k);
    if (!keepBody) for (const k of BODY_HEADERS) headers.delete(k);
    const referer = refererFor(url, target, headers.get("Referer"));
    if (referer !== undefined) headers.set("Referer", referer);
    else headers.delete("Referer");
    method = next.method;
    url = target;
  }
  let text: string;
  try {
    text = await readCapped(res.body, maxResponseBytes);
  } catch (err) {
    if (err instanceof ResponseTooLargeError) return { response: emptyResponse(), error: err };
    const msg = combined.aborted ? reason() : (err as Error).message;
    return { response: emptyResponse(), error: retryable(new TransportError(`read response body: ${msg}`, err)) };
  }
  const decompressed = !callerEncoding && method !== "HEAD" && /^\s*gzip\s*$/i.test(res.headers.get("Content-Encoding") ?? "");
  const response: InboundResponse = {
    headers: decompressed ? headerList(res.headers, DECOMPRESSED_SKIP) : headerList(res.headers),
    status: statusLine(res.status, res.statusText),
    statusCode: res.status,
    body: text,
  };
  if (res.status >= 400) {
    const e = new HttpStatusError(res.status, text);
    return { response, error: res.status === 429 || res.status >= 500 ? retryable(e) : e };
  }
  return { response };
}

/** Headers Go's Transport removes from a response it decompressed. */
const DECOMPRESSED_SKIP: ReadonlySet<string> = new Set(["content-encoding", "content-length"]);

/**
 * The reason of a failed fetch, as Go's words where the cause is clear: a TLS verification failure
 * names the host and the certificate problem (`tls: failed to verify certificate for <host>: …`).
 */
function transportReason(err: unknown, url: URL): string {
  const e = err as { code?: string; message?: string };
  const message = e?.message ?? String(err);
  const code = e?.code ?? "";
  if (/CERT|SELF_SIGNED|UNABLE_TO_(GET|VERIFY)|HOSTNAME|TLS|SSL/i.test(code)) {
    return `tls: failed to verify certificate for ${url.hostname}: ${message} (${code})`;
  }
  return message;
}
