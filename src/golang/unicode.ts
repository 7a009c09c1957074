/**
 * Character classes and UTF-8 helpers shared by the Go codecs of this folder, with Go's
 * definitions (Go `unicode.IsSpace`, `strings.TrimSpace`, `unicode/utf8`, string order).
 */
import { compareStrings } from "./string.ts";

/**
 * Go's string order (`<` on strings, `sort.Strings`, map keys in `json.Marshal` and `fmt`): UTF-8
 * byte order, which is code-point order, not JavaScript's UTF-16 order (U+FFFF < U+1F600). The
 * expression runtime's rule (src/golang/string.ts), so the two cannot disagree.
 */
export const compareGoStrings: (a: string, b: string) => number = compareStrings;

/**
 * Go `unicode.IsSpace`: '\t', '\n', '\v', '\f', '\r', ' ', U+0085, U+00A0 and the other Unicode
 * White_Space characters (U+1680, U+2000–U+200A, U+2028, U+2029, U+202F, U+205F, U+3000).
 * U+FEFF (the byte-order mark) and U+180E are not spaces.
 */
export function isGoSpace(code: number): boolean {
  if (code <= 0xff) return code === 0x20 || (code >= 0x09 && code <= 0x0d) || code === 0x85 || code === 0xa0;
  return code === 0x1680 || (code >= 0x2000 && code <= 0x200a) || code === 0x2028 || code === 0x2029 || code === 0x202f || code === 0x205f || code === 0x3000;
}

/** Go `strings.TrimSpace`: `s` without leading and trailing {@link isGoSpace} characters. */
export function trimGoSpace(s: string): string {
  let start = 0;
  let end = s.length;
  while (start < end && isGoSpace(s.charCodeAt(start))) start++;
  while (end > start && isGoSpace(s.charCodeAt(end - 1))) end--;
  return start === 0 && end === s.length ? s : s.slice(start, end);
}

/**
 * `s` as the Go string it stands for: a lone surrogate (only a `\ud800`-style JSON escape makes
 * one) is U+FFFD, as Go's JSON decoder makes it. ES2024 `String.prototype.toWellFormed`.
 */
export function wellFormed(s: string): string {
  return (s as string & { toWellFormed(): string }).toWellFormed();
}

const encoder = new TextEncoder();
const decoder = new TextDecoder("utf-8", { fatal: false, ignoreBOM: true });

/**
 * The UTF-8 bytes of `s`, as Go holds a string that came from JSON: a lone surrogate (which only a
 * `\ud800`-style escape can produce) is U+FFFD, as Go's JSON decoder makes it.
 */
export function utf8Bytes(s: string): Uint8Array {
  return encoder.encode(s);
}

/** The string of UTF-8 `bytes`; a leading U+FEFF is kept (Go strings keep it). */
export function utf8String(bytes: Uint8Array): string {
  return decoder.decode(bytes);
}

/** Number of UTF-8 bytes of `s` (Go `len(s)`), without encoding it. */
export function utf8Length(s: string): number {
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length) {
      const d = s.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        n += 4;
        i++;
        continue;
      }
    }
    n += c < 0x80 ? 1 : c < 0x800 ? 2 : 3;
  }
  return n;
}

/** True when byte `b` of UTF-8 text starts a character (is not a continuation byte 10xxxxxx). */
export function isRuneStart(b: number): boolean {
  return (b & 0xc0) !== 0x80;
}
