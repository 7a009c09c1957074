/**
 * The `request` message http_server emits for each incoming HTTP request, built the way Go's
 * http-module (monorepo) builds it from an Echo context (components.md §2.1 `Request`).
 */
import type { Header } from "./fields.ts";
import { canonicalHeaderKey } from "./http-headers.ts";

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
  if (!raw.includes("%")) return raw;
  try {
    return decodeURIComponent(raw);
  } catch {
    return raw; // Go keeps RawPath when unescaping fails; the raw form is the closest we have
  }
}

function decodeQueryPart(s: string): string {
  if (!s.includes("%") && !s.includes("+")) return s;
  const spaced = s.replaceAll("+", " ");
  try {
    return decodeURIComponent(spaced);
  } catch {
    return spaced;
  }
}

/**
 * Go `url.ParseQuery` as `url.Values`: `&`-separated `name=value` pairs, `+` is a space,
 * percent-decoding, repeated names keep every value in order, empty pairs skipped.
 */
export function queryValues(search: string): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  const q = search.startsWith("?") ? search.slice(1) : search;
  if (q === "") return out;
  for (const pair of q.split("&")) {
    if (pair === "") continue;
    const eq = pair.indexOf("=");
    const k = decodeQueryPart(eq < 0 ? pair : pair.slice(0, eq));
    const v = eq < 0 ? "" : decodeQueryPart(pair.slice(eq + 1));
    (out[k] ??= []).push(v);
  }
  return out;
}

/** Read access to request headers by lower-case name (a fetch `Headers` satisfies it). */
export interface HeaderLookup {
  get(name: string): string | null;
}

/** Headers that decide `host`, `realIP` and `scheme`, captured while listing the headers. */
const DECIDING = new Set(["host", "x-forwarded-for", "x-real-ip", "x-forwarded-proto", "x-forwarded-protocol", "x-forwarded-ssl", "x-url-scheme"]);

function trimBrackets(ip: string): string {
  return ip.replace(/^\[/, "").replace(/\]$/, "");
}

/**
 * Echo `Context.RealIP()` without an IP extractor: first `X-Forwarded-For` entry, else
 * `X-Real-IP`, else the peer address ({@link peerIP}).
 */
export function realIP(headers: HeaderLookup, peer: string | undefined): string {
  const xff = headers.get("x-forwarded-for");
  if (xff) {
    const i = xff.indexOf(",");
    return i > 0 ? trimBrackets(xff.slice(0, i).trim()) : xff;
  }
  const xri = headers.get("x-real-ip");
  if (xri) return trimBrackets(xri);
  return peerIP(peer);
}

/** A peer address as Go's `RemoteAddr` host shows it (IPv4-mapped IPv6 as plain IPv4). */
export function peerIP(peer: string | undefined): string {
  if (!peer) return "";
  return peer.startsWith("::ffff:") && peer.includes(".") ? peer.slice(7) : peer;
}

/** Echo `Context.Scheme()`: https over TLS, else the X-Forwarded-Proto/-Protocol/-Ssl/X-Url-Scheme hints, else http. */
export function scheme(headers: HeaderLookup, tls: boolean): string {
  if (tls) return "https";
  const proto = headers.get("x-forwarded-proto") || headers.get("x-forwarded-protocol");
  if (proto) return proto;
  if (headers.get("x-forwarded-ssl") === "on") return "https";
  return headers.get("x-url-scheme") || "http";
}

/** This pod's name, read once (`HOSTNAME` never changes while the process runs). */
const POD_NAME = process.env.HOSTNAME ?? "";


/** Builds the {@link ServerRequest} for `req` whose body was already read as `body`; `peer` is the connection's address. */
export function buildServerRequest(req: Request, body: string, peer: string | undefined, tls: boolean, context: unknown): ServerRequest {
  const target = requestTarget(req.url);
  const q = target.indexOf("?");
  const rawPath = q < 0 ? target : target.slice(0, q);
  const path = decodePath(rawPath);
  // One pass over the headers (each Headers call crosses into native code).
  const headers: Header[] = [];
  const seen = new Map<string, string>();
  let cookies = false;
  req.headers.forEach((value, name) => {
    if (DECIDING.has(name)) seen.set(name, value);
    if (name === "host") return; // Go moves Host out of Header into Request.Host
    if (name === "set-cookie") cookies = true;
    else headers.push({ key: canonicalHeaderKey(name), value });
  });
  if (cookies) for (const c of req.headers.getSetCookie()) headers.push({ key: "Set-Cookie", value: c });
  if (headers.length > 1) headers.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  const lookup: HeaderLookup = { get: (name) => seen.get(name) ?? null };
  const host = seen.get("host") ?? "";
  const ip = realIP(lookup, peer);
  const sch = scheme(lookup, tls);
  const params = queryValues(q < 0 ? "" : target.slice(q));
  const ctx = context ?? null;
  const segments = pathSegments(path);
  // Two literals keep Go's field order with `headers` omitted when empty (no delete → fast objects).
  if (headers.length === 0) {
    return { context: ctx, path, pathSegments: segments, requestURI: target, requestParams: params, host, method: req.method, realIP: ip, body, scheme: sch, podName: POD_NAME };
  }
  return { context: ctx, path, pathSegments: segments, requestURI: target, requestParams: params, host, method: req.method, realIP: ip, headers, body, scheme: sch, podName: POD_NAME };
}
