/**
 * Header helpers that reproduce what Go's `net/http` shows a component: canonical header keys
 * (`textproto.CanonicalMIMEHeaderKey`) and the `[{key, value}]` list form of `etc.Header`.
 */
import type { Header } from "../fields.ts";

function isTokenChar(c: number): boolean {
  // RFC 9110 §5.6.2 tchar
  return (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a) || "!#$%&'*+-.^_`|~".includes(String.fromCharCode(c));
}

/**
 * Go `textproto.CanonicalMIMEHeaderKey`: first letter and every letter after `-` upper-case, the rest
 * lower-case (`content-type` → `Content-Type`); a key with a non-token character is returned as is.
 */
export function canonicalHeaderKey(key: string): string {
  const hit = cache.get(key);
  if (hit !== undefined) return hit;
  const canonical = computeCanonical(key);
  if (cache.size < CACHE_MAX) cache.set(key, canonical);
  return canonical;
}

/** Header names repeat across requests: remember up to this many canonical forms. */
const CACHE_MAX = 1024;
const cache = new Map<string, string>();

function computeCanonical(key: string): string {
  for (let i = 0; i < key.length; i++) if (!isTokenChar(key.charCodeAt(i))) return key;
  let out = "";
  let upper = true;
  for (const ch of key) {
    out += upper ? ch.toUpperCase() : ch.toLowerCase();
    upper = ch === "-";
  }
  return out;
}

/**
 * A fetch `Headers` as Go's `[]etc.Header`: canonical keys sorted ascending, one entry per value
 * (`Set-Cookie` lines stay separate; other repeated headers arrive joined by `, ` from the
 * platform). `skip` names lower-case keys Go keeps out of `Header` (e.g. `host`).
 */
export function headerList(headers: Headers, skip: ReadonlySet<string> = new Set()): Header[] {
  const out: Header[] = [];
  headers.forEach((value, name) => {
    if (skip.has(name) || name === "set-cookie") return;
    out.push({ key: canonicalHeaderKey(name), value });
  });
  for (const cookie of headers.getSetCookie()) out.push({ key: "Set-Cookie", value: cookie });
  out.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  return out;
}
