/**
 * The `request` message http_server emits for each incoming HTTP request, built the way Go's
 * http-module (monorepo) builds it from an Echo context (components.md §2.1 `Request`).
 */
import type { Header } from "../fields.ts";
import { canonicalHeaderKey } from "./headers.ts";

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
  const out: string[] = [];
  let from = 0;
  for (;;) {
    const slash = path.indexOf("/", from);
    const end = slash < 0 ? path.length : slash;
    if (end > from) out.push(path.slice(from, end));
    if (slash < 0) return out;
    from = slash + 1;
  }
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
  let from = search.startsWith("?") ? 1 : 0;
  while (from < search.length) {
    // One pair per `&`, read in place (no array of pairs per request).
    let end = search.indexOf("&", from);
    if (end < 0) end = search.length;
    if (end > from) {
      const eq = search.indexOf("=", from);
      const k = decodeQueryPart(eq < 0 || eq > end ? search.slice(from, end) : search.slice(from, eq));
      const v = eq < 0 || eq > end ? "" : decodeQueryPart(search.slice(eq + 1, end));
      // Own keys only: `constructor`, `toString` or `__proto__` as a parameter name must not reach
      // Object.prototype (a `?constructor=1` made every flow answer 500).
      if (Object.hasOwn(out, k)) out[k]!.push(v);
      else Object.defineProperty(out, k, { value: [v], enumerable: true, writable: true, configurable: true });
    }
    from = end + 1;
  }
  return out;
}

/**
 * What one pass over a request's headers yields (each `Headers` call crosses into native code, so
 * the listener reads them once): Go's header list plus the values that decide `host`, `realIP`,
 * `scheme` and how the body is read. Header names arrive lower-case from the platform.
 */
export interface HeaderScan {
  /** Go's `[]Header`: canonical keys sorted ascending, `Host` left out (Go moves it to `Request.Host`). */
  headers: Header[];
  host: string;
  forwardedFor: string;
  realIp: string;
  forwardedProto: string;
  forwardedProtocol: string;
  forwardedSsl: string;
  urlScheme: string;
  /** `Content-Length` as sent (one value when it was repeated), or undefined. */
  contentLength: string | undefined;
  /** A `Transfer-Encoding` header was sent (a chunked body may follow). */
  transferEncoding: boolean;
}

/** Reads every header of `headers` once into a {@link HeaderScan}. */
export function scanHeaders(headers: Headers): HeaderScan {
  const scan: HeaderScan = {
    headers: [],
    host: "",
    forwardedFor: "",
    realIp: "",
    forwardedProto: "",
    forwardedProtocol: "",
    forwardedSsl: "",
    urlScheme: "",
    contentLength: undefined,
    transferEncoding: false,
  };
  let cookies = false;
  headers.forEach((value, name) => {
    switch (name) {
      case "host":
        scan.host = value;
        return; // Go moves Host out of Header into Request.Host
      case "set-cookie":
        cookies = true; // listed one line per cookie below
        return;
      case "content-length":
        // Bun refuses differing repeated values (400) and joins equal ones ("5, 5"): keep one, as Go does.
        value = value.includes(",") ? value.slice(0, value.indexOf(",")).trim() : value;
        scan.contentLength = value;
        break;
      case "transfer-encoding":
        scan.transferEncoding = true;
        break;
      case "x-forwarded-for":
        scan.forwardedFor = value;
        break;
      case "x-real-ip":
        scan.realIp = value;
        break;
      case "x-forwarded-proto":
        scan.forwardedProto = value;
        break;
      case "x-forwarded-protocol":
        scan.forwardedProtocol = value;
        break;
      case "x-forwarded-ssl":
        scan.forwardedSsl = value;
        break;
      case "x-url-scheme":
        scan.urlScheme = value;
        break;
    }
    scan.headers.push({ key: canonicalHeaderKey(name), value });
  });
  if (cookies) for (const c of headers.getSetCookie()) scan.headers.push({ key: "Set-Cookie", value: c });
  if (scan.headers.length > 1) scan.headers.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  return scan;
}

/** Go `httpguts.ValidHostHeader`'s bytes: the RFC 3986 host and port characters. */
const VALID_HOST = /^[0-9A-Za-z!$%&'()*+,\-.:;=[\]_~]*$/;

/**
 * Why a `Host` header is refused (Go's `400 Bad Request: <reason>` texts), or undefined when it is
 * acceptable. Bun joins repeated `Host` lines with `", "`, which no single host contains (a space
 * is not a host character): RFC 9112 §3.2 requires a 400 for more than one `Host` and for an
 * invalid one; Bun itself only refuses a missing one.
 */
export function hostProblem(host: string): string | undefined {
  if (host.includes(", ")) return "too many Host headers";
  if (!VALID_HOST.test(host)) return "malformed Host header";
  return undefined;
}

function trimBrackets(ip: string): string {
  return ip.replace(/^\[/, "").replace(/\]$/, "");
}

/**
 * Echo `Context.RealIP()` without an IP extractor: first `X-Forwarded-For` entry, else
 * `X-Real-IP`, else the peer address ({@link peerIP}). `peer` is asked only in that last case:
 * Bun's `requestIP` is a native call, and behind an ingress the headers always decide.
 */
export function realIP(scan: Pick<HeaderScan, "forwardedFor" | "realIp">, peer: () => string | undefined): string {
  const xff = scan.forwardedFor;
  if (xff) {
    const i = xff.indexOf(",");
    return i > 0 ? trimBrackets(xff.slice(0, i).trim()) : xff;
  }
  if (scan.realIp) return trimBrackets(scan.realIp);
  return peerIP(peer());
}

/** A peer address as Go's `RemoteAddr` host shows it (IPv4-mapped IPv6 as plain IPv4). */
export function peerIP(peer: string | undefined): string {
  if (!peer) return "";
  return peer.startsWith("::ffff:") && peer.includes(".") ? peer.slice(7) : peer;
}

/** Echo `Context.Scheme()`: https over TLS, else the X-Forwarded-Proto/-Protocol/-Ssl/X-Url-Scheme hints, else http. */
export function scheme(scan: Pick<HeaderScan, "forwardedProto" | "forwardedProtocol" | "forwardedSsl" | "urlScheme">, tls: boolean): string {
  if (tls) return "https";
  const proto = scan.forwardedProto || scan.forwardedProtocol;
  if (proto) return proto;
  if (scan.forwardedSsl === "on") return "https";
  return scan.urlScheme || "http";
}

/** This pod's name, read once (`HOSTNAME` never changes while the process runs). */
const POD_NAME = process.env.HOSTNAME ?? "";

/**
 * Builds the {@link ServerRequest} for `req`, whose headers were read into `scan` and whose body
 * was read as `body`; `peer` gives the connection's address when the headers do not decide `realIP`.
 */
export function buildServerRequest(
  req: Request,
  scan: HeaderScan,
  body: string,
  peer: () => string | undefined,
  tls: boolean,
  context: unknown,
): ServerRequest {
  // CONNECT's authority-form target (`host:port`) is what Bun reports as its url: Go's RequestURI is
  // that target and its URL.Path is empty.
  const authorityForm = req.method === "CONNECT" && !req.url.includes("/");
  const target = authorityForm ? req.url : requestTarget(req.url);
  const q = authorityForm ? -1 : target.indexOf("?");
  const path = authorityForm ? "" : decodePath(q < 0 ? target : target.slice(0, q));
  const params = queryValues(q < 0 ? "" : target.slice(q));
  // Built in Go's field order, `headers` added only when there are some (no delete: JSC keeps a fast
  // shape; as quick as two literals, measured in Bun 1.4).
  const request: Omit<ServerRequest, "body" | "scheme" | "podName"> & Partial<ServerRequest> = {
    context: context ?? null,
    path,
    pathSegments: pathSegments(path),
    requestURI: target,
    requestParams: params,
    host: scan.host,
    method: req.method,
    realIP: realIP(scan, peer),
  };
  if (scan.headers.length > 0) request.headers = scan.headers;
  request.body = body;
  request.scheme = scheme(scan, tls);
  request.podName = POD_NAME;
  return request as ServerRequest;
}
