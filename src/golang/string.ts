/**
 * Go strings are byte strings: `len`, slicing and `strings.Index` count UTF-8 bytes, and a slice
 * may cut a character in two (ajson `length`/`substr`/`index`, math.go). We keep JS strings and
 * represent each byte that is not part of valid UTF-8 by one lone low surrogate U+DC80+byte
 * (Python's "surrogateescape"). Text from JSON never holds lone surrogates (payload decoding
 * replaces them by U+FFFD, as Go's decoder does), so the mapping is unambiguous.
 *
 * Such escapes only appear after a byte-level cut (`substr`, `b64decode`); Go's `json.Marshal`
 * then writes each invalid byte as U+FFFD, which {@link toValidText} does at the end of a hop.
 */

const ESCAPE_BASE = 0xdc00;

let escapesMade = 0;

/**
 * How many escaped bytes {@link fromBytes} has produced so far in this process: an evaluator
 * compares it before and after a hop's evaluation to know whether results need cleaning.
 */
export function escapeCount(): number {
  return escapesMade;
}

/** ES2024 `String.prototype.isWellFormed` / `toWellFormed` (Bun has them; the project's TS lib is older). */
interface WellFormed {
  isWellFormed(): boolean;
  toWellFormed(): string;
}

/** True when the string holds a lone surrogate (an escaped byte). Cheap for ordinary text. */
export function hasEscapes(s: string): boolean {
  return !(s as unknown as WellFormed).isWellFormed();
}

/** The text Go's `json.Marshal` would write for `s`: each escaped byte (any lone surrogate) → U+FFFD. */
export function toValidText(s: string): string {
  return hasEscapes(s) ? (s as unknown as WellFormed).toWellFormed() : s;
}

function isAscii(s: string): boolean {
  for (let i = 0; i < s.length; i++) if (s.charCodeAt(i) > 0x7f) return false;
  return true;
}

/** Length in UTF-8 bytes, as Go's `len(string)`. */
export function byteLength(s: string): number {
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80) n += 1;
    else if (c < 0x800) n += 2;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length && (s.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      n += 4;
      i++;
    } else if (c >= 0xdc80 && c <= 0xdcff)
      n += 1; // an escaped byte
    else n += 3;
  }
  return n;
}

/** The Go bytes of `s` (escaped bytes restored). */
export function toBytes(s: string): Uint8Array {
  const out = new Uint8Array(byteLength(s));
  let w = 0;
  for (let i = 0; i < s.length; i++) {
    let c = s.charCodeAt(i);
    if (c < 0x80) {
      out[w++] = c;
      continue;
    }
    if (c < 0x800) {
      out[w++] = 0xc0 | (c >> 6);
      out[w++] = 0x80 | (c & 0x3f);
      continue;
    }
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length && (s.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      c = 0x10000 + ((c - 0xd800) << 10) + (s.charCodeAt(++i) - 0xdc00);
      out[w++] = 0xf0 | (c >> 18);
      out[w++] = 0x80 | ((c >> 12) & 0x3f);
      out[w++] = 0x80 | ((c >> 6) & 0x3f);
      out[w++] = 0x80 | (c & 0x3f);
      continue;
    }
    if (c >= 0xdc80 && c <= 0xdcff) {
      out[w++] = c - ESCAPE_BASE;
      continue;
    }
    if (c >= 0xd800 && c <= 0xdfff) c = 0xfffd; // any other lone surrogate: Go would hold U+FFFD
    out[w++] = 0xe0 | (c >> 12);
    out[w++] = 0x80 | ((c >> 6) & 0x3f);
    out[w++] = 0x80 | (c & 0x3f);
  }
  return out;
}

/**
 * Length of the valid UTF-8 sequence at `i`, or 0 when the byte there starts none — Go's
 * `utf8.DecodeRune` rules: no overlong forms, no surrogates, nothing above U+10FFFF.
 */
function sequenceLength(b: Uint8Array, i: number): number {
  const c = b[i]!;
  if (c < 0x80) return 1;
  const n = b.length;
  const cont = (k: number) => i + k < n && (b[i + k]! & 0xc0) === 0x80;
  if (c >= 0xc2 && c <= 0xdf) return cont(1) ? 2 : 0;
  if (c >= 0xe0 && c <= 0xef) {
    if (!cont(1) || !cont(2)) return 0;
    const c1 = b[i + 1]!;
    if (c === 0xe0 && c1 < 0xa0) return 0; // overlong
    if (c === 0xed && c1 > 0x9f) return 0; // surrogate
    return 3;
  }
  if (c >= 0xf0 && c <= 0xf4) {
    if (!cont(1) || !cont(2) || !cont(3)) return 0;
    const c1 = b[i + 1]!;
    if (c === 0xf0 && c1 < 0x90) return 0;
    if (c === 0xf4 && c1 > 0x8f) return 0;
    return 4;
  }
  return 0;
}

const utf8 = new TextDecoder("utf-8");

/** Bytes → string: valid UTF-8 as text, every other byte as its escape. */
export function fromBytes(b: Uint8Array): string {
  let out = "";
  let runStart = 0;
  let i = 0;
  while (i < b.length) {
    const len = sequenceLength(b, i);
    if (len > 0) {
      i += len;
      continue;
    }
    if (i > runStart) out += utf8.decode(b.subarray(runStart, i));
    out += String.fromCharCode(ESCAPE_BASE + b[i]!);
    escapesMade++;
    i++;
    runStart = i;
  }
  if (runStart === 0) return utf8.decode(b);
  if (i > runStart) out += utf8.decode(b.subarray(runStart, i));
  return out;
}

/**
 * Re-reads a string's bytes, so escaped bytes that now stand next to each other and form a
 * character become it (Go joins bytes); then each remaining escaped byte becomes U+FFFD.
 */
export function joinedText(s: string): string {
  return hasEscapes(s) ? toValidText(fromBytes(toBytes(s))) : s;
}

/** Go `s[start:end]` on byte offsets (already clamped by the caller). */
export function byteSlice(s: string, start: number, end: number): string {
  if (isAscii(s)) return s.slice(start, end);
  return fromBytes(toBytes(s).subarray(start, end));
}

/** Go string concatenation: bytes joined, so two halves of a character become that character. */
export function concat(a: string, b: string): string {
  if (escapesMade === 0) return a + b; // no escaped byte exists anywhere yet: nothing can join
  if (a.length === 0) return b;
  if (b.length === 0) return a;
  const last = a.charCodeAt(a.length - 1);
  const first = b.charCodeAt(0);
  // Only an escaped byte at each side of the seam can complete a sequence.
  if (last >= 0xdc80 && last <= 0xdcff && first >= 0xdc80 && first <= 0xdcff) {
    return fromBytes(new Uint8Array([...toBytes(a), ...toBytes(b)]));
  }
  return a + b;
}

function bytesIndexOf(hay: Uint8Array, needle: Uint8Array, from = 0): number {
  outer: for (let i = from; i + needle.length <= hay.length; i++) {
    for (let j = 0; j < needle.length; j++) if (hay[i + j] !== needle[j]) continue outer;
    return i;
  }
  return -1;
}

/** Go `strings.Index`: byte offset of the first `sub` in `s`, or -1. */
export function byteIndexOf(s: string, sub: string): number {
  if (hasEscapes(s) || hasEscapes(sub)) return bytesIndexOf(toBytes(s), toBytes(sub));
  const i = s.indexOf(sub);
  return i <= 0 ? i : byteLength(s.slice(0, i));
}

/** Go `strings.Contains`. */
export function byteContains(s: string, sub: string): boolean {
  return hasEscapes(s) || hasEscapes(sub) ? bytesIndexOf(toBytes(s), toBytes(sub)) >= 0 : s.includes(sub);
}

/** Go `strings.HasPrefix`. */
export function byteHasPrefix(s: string, prefix: string): boolean {
  if (!hasEscapes(s) && !hasEscapes(prefix)) return s.startsWith(prefix);
  const a = toBytes(s);
  const p = toBytes(prefix);
  return p.length <= a.length && bytesIndexOf(a.subarray(0, p.length), p) === 0;
}

/** Go `strings.HasSuffix`. */
export function byteHasSuffix(s: string, suffix: string): boolean {
  if (!hasEscapes(s) && !hasEscapes(suffix)) return s.endsWith(suffix);
  const a = toBytes(s);
  const p = toBytes(suffix);
  return p.length <= a.length && bytesIndexOf(a.subarray(a.length - p.length), p) === 0;
}

/**
 * The UTF-8 sequences of `s` as Go iterates them (`for range`, `strings.Split(s, "")`): each
 * character, and each invalid byte on its own.
 */
export function runes(s: string): string[] {
  return Array.from(s); // escapes are single code points already
}

/** Go `strings.Split(s, sep)`. */
export function byteSplit(s: string, sep: string): string[] {
  if (sep === "") return runes(s);
  if (!hasEscapes(s) && !hasEscapes(sep)) return s.split(sep);
  const a = toBytes(s);
  const p = toBytes(sep);
  const out: string[] = [];
  let from = 0;
  for (;;) {
    const i = bytesIndexOf(a, p, from);
    if (i < 0) break;
    out.push(fromBytes(a.subarray(from, i)));
    from = i + p.length;
  }
  out.push(fromBytes(a.subarray(from)));
  return out;
}

/** Go `strings.ReplaceAll(s, old, repl)`; an empty `old` inserts `repl` around every character. */
export function byteReplaceAll(s: string, old: string, repl: string): string {
  if (old === "") {
    const parts = runes(s);
    let out = repl;
    for (const p of parts) out = concat(concat(out, p), repl);
    return out;
  }
  return byteSplit(s, old).reduce((acc, part, i) => (i === 0 ? part : concat(concat(acc, repl), part)), "");
}

/** Replaces each escaped byte by U+FFFD: how Go's `[]rune(s)` and `strings.Map` read invalid bytes. */
export function runesOf(s: string): string {
  return toValidText(s);
}

/** Go byte-wise string order (`<` on strings): code point order, which is UTF-8 byte order. */
export function compareStrings(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x === y) continue;
    return codeUnitRank(x) - codeUnitRank(y);
  }
  return a.length - b.length;
}

/**
 * Rank of a code unit at the first difference: surrogates (characters above U+FFFF, and escaped
 * bytes) sort above U+E000–U+FFFF in UTF-8; escaped bytes (0x80–0xFF) sort by their byte value
 * relative to each other. Close enough to byte order for every valid text.
 */
function codeUnitRank(c: number): number {
  if (c >= 0xd800 && c <= 0xdfff) return c + 0x2800; // above U+FFFF
  return c;
}

/** Go `unicode.IsSpace`, for `strings.TrimSpace`. */
function isGoSpace(c: number): boolean {
  return (
    (c >= 9 && c <= 13) ||
    c === 32 ||
    c === 0x85 ||
    c === 0xa0 ||
    c === 0x1680 ||
    (c >= 0x2000 && c <= 0x200a) ||
    c === 0x2028 ||
    c === 0x2029 ||
    c === 0x202f ||
    c === 0x205f ||
    c === 0x3000
  );
}

/** Go `strings.TrimSpace`: strips Unicode white space (not U+FEFF) at both ends. */
export function goTrimSpace(s: string): string {
  let a = 0;
  let b = s.length;
  while (a < b && isGoSpace(s.charCodeAt(a))) a++;
  while (b > a && isGoSpace(s.charCodeAt(b - 1))) b--;
  return s.slice(a, b);
}
