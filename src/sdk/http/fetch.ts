/**
 * One outbound HTTP exchange as Go's http-module `http_request` performs it (components.md §2.2):
 * per-request timeout, auth headers, a capped streaming body read, and Go-shaped errors marked
 * retryable (transport/read failures, 429, 5xx) or not (bad URL, body over the cap, other 4xx).
 */
import { retryable, TinyError } from "../errors.ts";
import type { Header } from "../fields.ts";
import { headerList } from "./headers.ts";
import { statusLine } from "./status-text.ts";
import { timeoutSignal } from "../timer.ts";

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

/**
 * Performs `req`. Never rejects: failures come back as `{error, response}` where `error` is marked
 * retryable for transport errors, timeouts, read errors, 429 and 5xx (components.md §2.2).
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
    return { response: emptyResponse(), error: new BadRequestError(`${op} ${JSON.stringify(req.url)}: unsupported protocol scheme ${JSON.stringify(url.protocol.slice(0, -1))}`) };
  }
  const headers = new Headers();
  if (req.contentType !== "") headers.set("Content-Type", req.contentType);
  if (req.bearerToken !== "") headers.set("Authorization", "Bearer " + req.bearerToken);
  else if (req.basicAuthUser !== "" || req.basicAuthPassword !== "") headers.set("Authorization", basicAuth(req.basicAuthUser, req.basicAuthPassword));
  try {
    for (const h of req.headers) headers.set(h.key, h.value);
  } catch (err) {
    return { response: emptyResponse(), error: new BadRequestError(`invalid header: ${(err as Error).message}`) };
  }
  const timeoutMs = req.timeout > 0 ? req.timeout * 1000 : 0;
  const combined = timeoutMs > 0 ? AbortSignal.any([signal, timeoutSignal(timeoutMs)]) : signal;
  const method = req.method.toUpperCase();
  // fetch refuses a body on GET/HEAD; Go sends an empty one, which is the same on the wire.
  const body = req.body !== "" && method !== "GET" && method !== "HEAD" ? req.body : undefined;
  const reason = () => (signal.aborted ? "context canceled" : "context deadline exceeded");
  let res: Response;
  try {
    res = await fetch(url, { method, headers, body, signal: combined, redirect: "follow" });
  } catch (err) {
    const text = combined.aborted ? reason() : (err as Error).message;
    return { response: emptyResponse(), error: retryable(new TransportError(`${op} ${JSON.stringify(req.url)}: ${text}`, err)) };
  }
  let text: string;
  try {
    text = await readCapped(res.body, maxResponseBytes);
  } catch (err) {
    if (err instanceof ResponseTooLargeError) return { response: emptyResponse(), error: err };
    const msg = combined.aborted ? reason() : (err as Error).message;
    return { response: emptyResponse(), error: retryable(new TransportError(`read response body: ${msg}`, err)) };
  }
  const response: InboundResponse = {
    headers: headerList(res.headers),
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
