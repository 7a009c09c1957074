/**
 * Turning the flow's Result into the HTTP answer of http_server (components.md §2.1 "Request →
 * response flow"): a valid Response is written as Go's `writeResponse` does; anything else is an
 * error answer naming what was wrong.
 */
import { isTimeout, TinyError } from "../../core/errors.ts";
import type { Result } from "../../core/result.ts";
import type { Header } from "../fields.ts";

/** A checked Go `Response`. */
export interface ServerResponse {
  statusCode: number;
  contentType: string;
  headers: Header[];
  body: string;
}

/** {@link checkResponse} outcome. */
export type ResponseCheck = { ok: true; response: ServerResponse } | { ok: false; problem: string };

function kind(v: unknown): string {
  if (v === null) return "null";
  if (Array.isArray(v)) return "array";
  return typeof v;
}

/**
 * Checks that `value` (the Result value of the `request` emit) is a Response: `statusCode` an
 * integer 200–599 (absent/0 → 200, as Go; a 1xx is informational and cannot be a request's final
 * answer, RFC 9110 §15.2 — a 101 without an upgrade would make a proxy treat the connection as a
 * tunnel), `contentType` a string, `headers` a list of
 * `{key, value}` strings, `body` a string. Bytes or a JSON string (a reply that crossed a transport
 * undecoded) are parsed first.
 */
export function checkResponse(value: unknown): ResponseCheck {
  let v = value;
  if (v instanceof Uint8Array) v = Buffer.from(v).toString("utf8");
  if (typeof v === "string") {
    try {
      v = JSON.parse(v);
    } catch {
      return { ok: false, problem: "the flow returned a string that is not a Response object" };
    }
  }
  if (v === undefined || v === null) {
    return { ok: false, problem: "the flow returned no response (every branch of the chain must end at this node's response port)" };
  }
  if (typeof v !== "object" || Array.isArray(v)) return { ok: false, problem: `the flow returned ${kind(v)}, not a Response object` };
  const r = v as Record<string, unknown>;
  let statusCode = 200;
  if (r.statusCode !== undefined && r.statusCode !== null && r.statusCode !== 0) {
    if (typeof r.statusCode !== "number" || !Number.isInteger(r.statusCode) || r.statusCode < 100 || r.statusCode > 599) {
      return { ok: false, problem: `statusCode must be an integer 100–599, got ${JSON.stringify(r.statusCode)}` };
    }
    if (r.statusCode < 200) {
      return { ok: false, problem: `statusCode ${r.statusCode} is informational (1xx) and cannot be the final answer to a request; use 200–599` };
    }
    statusCode = r.statusCode;
  }
  const contentType = r.contentType ?? "";
  if (typeof contentType !== "string") return { ok: false, problem: `contentType must be a string, got ${kind(contentType)}` };
  const body = r.body ?? "";
  if (typeof body !== "string") return { ok: false, problem: `body must be a string, got ${kind(body)}` };
  const rawHeaders = r.headers ?? [];
  if (!Array.isArray(rawHeaders)) return { ok: false, problem: `headers must be a list of {key, value}, got ${kind(rawHeaders)}` };
  const headers: Header[] = [];
  for (let i = 0; i < rawHeaders.length; i++) {
    const h = rawHeaders[i] as Record<string, unknown> | null;
    if (h === null || typeof h !== "object" || typeof h.key !== "string" || typeof h.value !== "string") {
      return { ok: false, problem: `headers[${i}] must be {key: string, value: string}, got ${JSON.stringify(h)}` };
    }
    headers.push({ key: h.key, value: h.value });
  }
  return { ok: true, response: { statusCode, contentType, headers, body } };
}

/** Statuses that carry no content (RFC 9110 §15.3.5 204, §15.3.6 205, §15.4.5 304). */
const NO_BODY = new Set([204, 205, 304]);

/** Plain-text error answer (`text/plain; charset=UTF-8`, as Echo's `c.String`); `close` adds `Connection: close`. */
export function textResponse(status: number, text: string, close = false): Response {
  const headers: Record<string, string> = { "Content-Type": "text/plain; charset=UTF-8" };
  if (close) headers.Connection = "close";
  return new Response(text, { status, headers });
}

/** Content types seen, with a `Headers` holding only that `Content-Type` (a Response copies its init headers). */
const contentTypes = new Map<string, Headers>();
const CONTENT_TYPES_MAX = 64;

/** The headers of a response that sets only `Content-Type` (cached: cheaper than an init object per response). */
function contentTypeHeaders(contentType: string): Headers {
  let h = contentTypes.get(contentType);
  if (h) return h;
  h = new Headers({ "Content-Type": contentType }); // throws TypeError for an invalid value, as before
  if (contentTypes.size >= CONTENT_TYPES_MAX) contentTypes.clear();
  contentTypes.set(contentType, h);
  return h;
}

/**
 * Bodies of at least this many characters (so at least as many bytes) may not fit the socket's
 * send buffer at once (Linux starts a TCP send buffer at 16 KiB, `net.ipv4.tcp_wmem`): what the
 * kernel has not taken stays in the process until the client reads it, so the listener bounds its
 * write by `writeTimeout` ({@link isLargeAnswer}). Smaller answers cost no timer.
 */
export const LARGE_BODY_CHARS = 16 * 1024;

/** Answers built by {@link writeResponse} with a body of at least {@link LARGE_BODY_CHARS} characters. */
const largeAnswers = new WeakSet<Response>();

/** Whether `response` came from {@link writeResponse} with a body of at least {@link LARGE_BODY_CHARS} characters. */
export function isLargeAnswer(response: Response): boolean {
  return largeAnswers.has(response);
}

/** Records a large body's answer ({@link isLargeAnswer}) and returns it. */
function marked(response: Response, body: string | null): Response {
  if (body !== null && body.length >= LARGE_BODY_CHARS) largeAnswers.add(response);
  return response;
}

/**
 * Go `writeResponse`: each header set (last wins), `Content-Type` from `contentType` when
 * non-empty, else `text/plain; charset=UTF-8` unless a header set one; status; body. A 204, 205
 * or 304 carries no body; a 304 no `Content-Type` either (Go's `suppressedHeaders304`, RFC 9110
 * §15.4.5). Framing headers a flow sets (`Content-Length`, `Transfer-Encoding`) are ignored: Bun
 * frames the body it is given.
 * @throws TypeError when a header name or value is not valid HTTP (the caller answers 500).
 */
export function writeResponse(r: ServerResponse): Response {
  const body = NO_BODY.has(r.statusCode) ? null : r.body;
  if (r.statusCode === 304) {
    const headers = new Headers();
    for (const h of r.headers) headers.set(h.key, h.value);
    headers.delete("Content-Type");
    return new Response(null, { status: 304, headers });
  }
  if (r.headers.length === 0)
    return marked(
      new Response(body, { status: r.statusCode, headers: contentTypeHeaders(r.contentType !== "" ? r.contentType : "text/plain; charset=UTF-8") }),
      body,
    );
  const headers = new Headers();
  for (const h of r.headers) headers.set(h.key, h.value);
  if (r.contentType !== "") headers.set("Content-Type", r.contentType);
  else if (!headers.has("Content-Type")) headers.set("Content-Type", "text/plain; charset=UTF-8");
  return marked(new Response(body, { status: r.statusCode, headers }), body);
}

/** Why a flow ended without a response in time: the write timeout elapsed. code `"FLOW_TIMEOUT"`. */
export class FlowTimeoutError extends TinyError {
  constructor(seconds: number) {
    super("FLOW_TIMEOUT", `the flow did not respond within ${seconds}s (writeTimeout)`);
  }
}

/**
 * The HTTP answer for the flow's `result` (components.md §2.1; statuses: docs/compatibility.md
 * "Components"): a valid Response as written by {@link writeResponse}; a chain error → 500 with
 * the error text, or 504 when it was a timeout ({@link isTimeout}: edge `timeoutMs`, the write timeout, a wire deadline); an invalid
 * or missing Response → 500 `invalid response: <problem>`.
 */
export function answerFor(result: Result): Response {
  if (result.kind === "fail") return textResponse(isTimeout(result.error) ? 504 : 500, result.error.message);
  const check = checkResponse(result.kind === "ok" ? result.value : undefined);
  if (!check.ok) return textResponse(500, `invalid response: ${check.problem}`);
  try {
    return writeResponse(check.response);
  } catch (err) {
    return textResponse(500, `invalid response: ${(err as Error).message}`);
  }
}
