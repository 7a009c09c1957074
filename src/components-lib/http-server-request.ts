/**
 * The `request` message http_server emits for each incoming HTTP request, built the way Go's
 * http-module (monorepo) builds it from an Echo context (components.md §2.1 `Request`).
 */
import type { Header } from "./fields.ts";
import { headerList } from "./http-headers.ts";

/** Go `Request` (monorepo): field order and JSON names as Go marshals them. */
export interface ServerRequest {
  context: unknown;
  /** URL path without the query string, percent-decoded (Go `URL.Path`). */
  path: string;
  /** `path` split on `/`, empty parts dropped. */
  pathSegments: string[];
  /** The request target as sent: path and query (Go `RequestURI`). */
  requestURI: string;
  /** Query parameters, every value of a repeated name kept (Go `url.Values`). */
  requestParams: Record<string, string[]>;
  host: string;
  method: string;
  realIP: string;
  /** Sorted by canonical key; omitted when there are none (Go `omitempty`). */
  headers?: Header[];
  body: string;
  scheme: string;
  /** This pod's name (`HOSTNAME`). */
  podName: string;
}

/** Go http-module `pathSegments`: split on `/`, empty parts dropped (`/a//b/` → `[a, b]`). */
export function pathSegments(path: string): string[] {
  return path.split("/").filter((p) => p !== "");
}

/** The request target of an absolute URL string: everything from the first `/` after the authority. */
export function requestTarget(url: string): string {
  const scheme = url.indexOf("://");
  const slash = url.indexOf("/", scheme < 0 ? 0 : scheme + 3);
  if (slash < 0) {
    const q = url.indexOf("?", scheme < 0 ? 0 : scheme + 3);
    return q < 0 ? "/" : "/" + url.slice(q);
  }
  return url.slice(slash);
}

function decodePath(raw: string): string {
  try {
    return decodeURIComponent(raw);
  } catch {
    return raw; // Go keeps RawPath when unescaping fails; the raw form is the closest we have
  }
}

/** Go `url.ParseQuery` as `url.Values` (`+` is a space; repeated names keep every value). */
export function queryValues(search: string): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  if (search === "" || search === "?") return out;
  for (const [k, v] of new URLSearchParams(search)) (out[k] ??= []).push(v);
  return out;
}

function trimBrackets(ip: string): string {
  return ip.replace(/^\[/, "").replace(/\]$/, "");
}

/**
 * Echo `Context.RealIP()` without an IP extractor: first `X-Forwarded-For` entry, else
 * `X-Real-IP`, else the peer address (an IPv4-mapped IPv6 peer shown as plain IPv4, as Go's
 * `RemoteAddr` does).
 */
export function realIP(headers: Headers, peer: string | undefined): string {
  const xff = headers.get("x-forwarded-for");
  if (xff) {
    const i = xff.indexOf(",");
    return i > 0 ? trimBrackets(xff.slice(0, i).trim()) : xff;
  }
  const xri = headers.get("x-real-ip");
  if (xri) return trimBrackets(xri);
  if (!peer) return "";
  return peer.startsWith("::ffff:") && peer.includes(".") ? peer.slice(7) : peer;
}

/** Echo `Context.Scheme()`: https over TLS, else the X-Forwarded-Proto/-Protocol/-Ssl/X-Url-Scheme hints, else http. */
export function scheme(headers: Headers, tls: boolean): string {
  if (tls) return "https";
  const proto = headers.get("x-forwarded-proto") || headers.get("x-forwarded-protocol");
  if (proto) return proto;
  if (headers.get("x-forwarded-ssl") === "on") return "https";
  return headers.get("x-url-scheme") || "http";
}

const SKIP = new Set(["host"]); // Go moves Host out of Header into Request.Host

/** Builds the {@link ServerRequest} for `req` whose body was already read as `body`. */
export function buildServerRequest(req: Request, body: string, peer: string | undefined, tls: boolean, context: unknown): ServerRequest {
  const target = requestTarget(req.url);
  const q = target.indexOf("?");
  const rawPath = q < 0 ? target : target.slice(0, q);
  const path = decodePath(rawPath);
  const headers = headerList(req.headers, SKIP);
  const out: ServerRequest = {
    context: context ?? null,
    path,
    pathSegments: pathSegments(path),
    requestURI: target,
    requestParams: queryValues(q < 0 ? "" : target.slice(q)),
    host: req.headers.get("host") ?? "",
    method: req.method,
    realIP: realIP(req.headers, peer),
    body,
    scheme: scheme(req.headers, tls),
    podName: process.env.HOSTNAME ?? "",
  };
  if (headers.length > 0) {
    // keep Go's field order: headers sit between realIP and body
    const { body: b, scheme: s, podName: p, ...head } = out;
    return { ...head, headers, body: b, scheme: s, podName: p };
  }
  return out;
}
