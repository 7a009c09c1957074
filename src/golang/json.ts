/**
 * JSON as the Go modules read and write it: github.com/goccy/go-json v0.10.6 (the encoding-module's
 * JSON package) unmarshalling into `any` and marshalling the values that produces, for json_decode,
 * json_encode and the JWT components' claims.
 *
 * `JSON.parse` and `JSON.stringify` differ from it in what a flow observes: goccy accepts `01`,
 * `1.`, raw control characters in strings and anything after a NUL byte; refuses numbers beyond
 * float64 (`1e400`); turns lone surrogate escapes into U+FFFD; nests at most 10000 deep; reports its
 * own error texts; and writes map keys sorted, `<`, `>`, `&` as `\u003c`…, `-0`, and exponents with
 * two digits (`1e-07`). So both directions are written here from goccy's decoder and encoder
 * (internal/decoder: interface, map, slice, string, float; internal/encoder: string, float) and
 * checked against goccy itself in test/conformance/encoding.
 */
import { TinyError } from "../core/errors.ts";
import { compareGoStrings, utf8Bytes, utf8String, wellFormed } from "./unicode.ts";

/** goccy's `maxDecodeNestingDepth`: objects and arrays nest at most this deep. */
export const MAX_JSON_DEPTH = 10000;

/** A JSON text goccy refuses; `message` is goccy's error text (e.g. `expected comma after object value`). code `JSON_SYNTAX`. */
export class GoJsonError extends TinyError<"JSON_SYNTAX"> {
  /** Byte offset goccy reports with the error. */
  readonly offset: number;
  constructor(message: string, offset: number) {
    super("JSON_SYNTAX", message);
    this.offset = offset;
  }
}

const NUL = 0;
const isSpace = (b: number) => b === 0x20 || b === 0x0a || b === 0x09 || b === 0x0d;
const isDigit = (b: number) => b >= 0x30 && b <= 0x39;
const isFloatChar = (b: number) => isDigit(b) || b === 0x2e || b === 0x65 || b === 0x45 || b === 0x2b || b === 0x2d;
const isNumberEnd = (b: number) => b === NUL || isSpace(b) || b === 0x2c || b === 0x3a || b === 0x7d || b === 0x5d;
const isHex = (b: number) => isDigit(b) || (b >= 0x61 && b <= 0x66) || (b >= 0x41 && b <= 0x46);

/** Go's `%c` of one byte: the rune with that value (a byte ≥ 0x80 prints as its Latin-1 letter). */
const char = (b: number) => String.fromCharCode(b);

/** Go `strconv.ParseFloat` syntax for decimal text (the only kind goccy's number bytes can hold). */
const DECIMAL = /^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$/;

/**
 * Parses JSON text as goccy's `Unmarshal` into `any` does: objects (keys inserted in Go's sorted
 * order, so re-encoding gives Go's text), arrays, float64 numbers, strings, booleans, null.
 * @throws GoJsonError with goccy's message for text goccy refuses.
 */
export function parseGoJson(text: string): unknown {
  const buf = new Uint8Array(utf8Bytes(text).length + 1);
  buf.set(utf8Bytes(text)); // the trailing 0 is goccy's terminator: a NUL in the text ends it too
  const parser = new Parser(buf);
  const value = parser.value(0, 0);
  // goccy validateEndBuf: only white space may follow, up to a NUL.
  let cursor = parser.cursor;
  while (isSpace(buf[cursor]!)) cursor++;
  if (buf[cursor] !== NUL) throw new GoJsonError(`invalid character '${char(buf[cursor]!)}' after top-level value`, cursor + 1);
  return value;
}

class Parser {
  cursor = 0;
  constructor(private readonly buf: Uint8Array) {}

  private skip(at: number): number {
    while (isSpace(this.buf[at]!)) at++;
    return at;
  }

  /** goccy `interfaceDecoder.decodeEmptyInterface`. Objects and arrays are parsed iteratively. */
  value(at: number, depth: number): unknown {
    const buf = this.buf;
    const c = this.skip(at);
    const b = buf[c]!;
    if (b === 0x7b || b === 0x5b) return this.container(c, depth);
    if (b === 0x2d || isDigit(b)) return this.number(c);
    if (b === 0x22) return this.string(c);
    if (b === 0x74) return this.literal(c, "true", true);
    if (b === 0x66) return this.literal(c, "false", false);
    if (b === 0x6e) return this.literal(c, "null", null);
    throw new GoJsonError(`invalid character '${char(b)}' looking for beginning of value`, c);
  }

  private literal<T>(at: number, word: string, value: T): T {
    const buf = this.buf;
    if (at + word.length - 1 >= buf.length) throw new GoJsonError(`json: ${word} unexpected end of JSON input`, at);
    for (let i = 1; i < word.length; i++) {
      const b = buf[at + i]!;
      if (b !== word.charCodeAt(i))
        throw new GoJsonError(b === NUL ? `json: invalid character as ${word}` : `json: invalid character ${char(b)} as ${word}`, at);
    }
    this.cursor = at + word.length;
    return value;
  }

  /** goccy `floatDecoder.Decode`: the run of number characters, then `strconv.ParseFloat`. */
  private number(at: number): number {
    const buf = this.buf;
    let end = at + 1;
    while (isFloatChar(buf[end]!)) end++;
    if (!isNumberEnd(buf[end]!)) throw new GoJsonError("json: float unexpected end of JSON input", end);
    const text = utf8String(buf.subarray(at, end));
    if (!DECIMAL.test(text)) throw new GoJsonError(`strconv.ParseFloat: parsing ${goQuote(text)}: invalid syntax`, end);
    const n = Number(text);
    if (!Number.isFinite(n)) throw new GoJsonError(`strconv.ParseFloat: parsing ${goQuote(text)}: value out of range`, end);
    this.cursor = end;
    return n;
  }

  /** goccy `stringDecoder.decodeByte` at a `"`; sets the cursor after the closing quote. */
  string(at: number): string {
    const buf = this.buf;
    const start = at + 1;
    let cursor = start;
    let escaped = false;
    for (;;) {
      const b = buf[cursor]!;
      if (b === 0x5c) {
        escaped = true;
        cursor++;
        const e = buf[cursor]!;
        if (e === 0x22 || e === 0x5c || e === 0x2f || e === 0x62 || e === 0x66 || e === 0x6e || e === 0x72 || e === 0x74) {
          cursor++;
        } else if (e === 0x75) {
          if (cursor + 5 >= buf.length) throw new GoJsonError("json: escaped string unexpected end of JSON input", cursor);
          for (let i = 1; i <= 4; i++) {
            const h = buf[cursor + i]!;
            if (!isHex(h)) throw new GoJsonError(`json: invalid character ${char(h)} in \\u hexadecimal character escape`, cursor + i);
          }
          cursor += 5;
        } else {
          throw new GoJsonError("json: escaped string unexpected end of JSON input", cursor);
        }
        continue;
      }
      if (b === 0x22) {
        this.cursor = cursor + 1;
        return escaped ? unescape(buf, start, cursor) : utf8String(buf.subarray(start, cursor));
      }
      if (b === NUL) throw new GoJsonError("json: string unexpected end of JSON input", cursor);
      cursor++;
    }
  }

  /** A map key: goccy's string decoder, where `null` is the empty key and other values are refused. */
  private key(at: number): string {
    const buf = this.buf;
    const c = this.skip(at);
    const b = buf[c]!;
    if (b === 0x22) return this.string(c);
    if (b === 0x6e) {
      this.literal(c, "null", null);
      return "";
    }
    const kind = b === 0x5b ? "array" : b === 0x7b ? "object" : b === 0x2d || isDigit(b) ? "number" : undefined;
    if (kind) throw new GoJsonError(`json: cannot unmarshal ${kind} into Go value of type string`, c);
    throw new GoJsonError(`invalid character '${char(b)}' looking for beginning of value`, c);
  }

  /** goccy `mapDecoder.Decode` / `sliceDecoder.Decode`, nested without recursion. */
  private container(at: number, depth: number): unknown {
    const buf = this.buf;
    type Frame = { kind: "object"; entries: Map<string, unknown>; key: string } | { kind: "array"; items: unknown[] };
    const stack: Frame[] = [];
    let cursor = at;
    let result: unknown;
    // open: cursor is at `{` or `[`; returns the finished empty container or pushes a frame.
    const open = (): boolean => {
      const b = buf[cursor]!;
      if (depth + stack.length + 1 > MAX_JSON_DEPTH) throw new GoJsonError(`invalid character "${char(b)}" exceeded max depth`, cursor);
      cursor = this.skip(cursor + 1);
      if (b === 0x7b) {
        if (buf[cursor] === 0x7d) {
          cursor++;
          result = {};
          return false;
        }
        stack.push({ kind: "object", entries: new Map(), key: "" });
      } else {
        if (buf[cursor] === 0x5d) {
          cursor++;
          result = [];
          return false;
        }
        stack.push({ kind: "array", items: [] });
      }
      return true;
    };
    let pending = open(); // true: the top frame wants its next value
    while (stack.length > 0) {
      const top = stack[stack.length - 1]!;
      if (pending) {
        if (top.kind === "object") {
          top.key = this.key(cursor);
          cursor = this.skip(this.cursor);
          if (buf[cursor] !== 0x3a) throw new GoJsonError("expected colon after object key", cursor);
          cursor++;
        }
        const v = this.skip(cursor);
        const b = buf[v]!;
        if (b === 0x7b || b === 0x5b) {
          cursor = v;
          if (open()) continue; // a new frame: fill it first
        } else {
          result = this.value(v, depth + stack.length);
          cursor = this.cursor;
        }
      }
      // `result` is the finished value for the top frame.
      if (top.kind === "object") top.entries.set(top.key, result);
      else top.items.push(result);
      cursor = this.skip(cursor);
      const b = buf[cursor]!;
      if (top.kind === "object") {
        if (b === 0x7d) {
          cursor++;
          stack.pop();
          result = goObject(top.entries);
          pending = false;
          continue;
        }
        if (b !== 0x2c) throw new GoJsonError("expected comma after object value", cursor);
      } else {
        if (b === 0x5d) {
          cursor++;
          stack.pop();
          result = top.items;
          pending = false;
          continue;
        }
        if (b !== 0x2c) throw new GoJsonError(b === NUL ? "json: invalid character as slice" : `json: invalid character ${char(b)} as slice`, cursor);
      }
      cursor++;
      pending = true;
    }
    this.cursor = cursor;
    return result;
  }
}

/** goccy `unescapeString`: escapes to bytes; a surrogate pair joins, a lone surrogate is U+FFFD. */
function unescape(buf: Uint8Array, start: number, end: number): string {
  let out = "";
  let run = start;
  const hex = (i: number) => parseInt(String.fromCharCode(buf[i]!, buf[i + 1]!, buf[i + 2]!, buf[i + 3]!), 16);
  for (let i = start; i < end; ) {
    if (buf[i] !== 0x5c) {
      i++;
      continue;
    }
    out += utf8String(buf.subarray(run, i));
    const e = buf[i + 1]!;
    if (e !== 0x75) {
      out += ESCAPES[e] ?? "";
      i += 2;
    } else {
      let code = hex(i + 2);
      if (code >= 0xd800 && code < 0xdc00 && i + 11 < end && buf[i + 6] === 0x5c && buf[i + 7] === 0x75) {
        const lo = hex(i + 8);
        if (lo >= 0xdc00 && lo < 0xe000) {
          code = ((code - 0xd800) << 10) + (lo - 0xdc00) + 0x10000;
          i += 6;
        }
      }
      out += code >= 0xd800 && code < 0xe000 ? "\ufffd" : String.fromCodePoint(code);
      i += 6;
    }
    run = i;
  }
  return out + utf8String(buf.subarray(run, end));
}

const ESCAPES: Record<number, string> = { 0x22: '"', 0x5c: "\\", 0x2f: "/", 0x62: "\b", 0x66: "\f", 0x6e: "\n", 0x72: "\r", 0x74: "\t" };

/** Go's `%q` of a string that is plain ASCII number text (what ParseFloat errors quote). */
function goQuote(s: string): string {
  return JSON.stringify(s);
}

/** A JS object with `entries`' keys in Go's map order (sorted by UTF-8 bytes); `__proto__` stays a key. */
export function goObject(entries: Map<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const key of [...entries.keys()].sort(compareGoStrings)) {
    if (key === "__proto__") Object.defineProperty(out, key, { value: entries.get(key), enumerable: true, writable: true, configurable: true });
    else out[key] = entries.get(key);
  }
  return out;
}

const HEX = "0123456789abcdef";

/**
 * goccy's string escaping with HTML escaping on (its `Marshal` default); encoding/json's differs
 * only in writing `\b` and `\f` short.
 */
function appendString(s: string, flavor: JsonFlavor = "goccy"): string {
  const str = wellFormed(s);
  let out = '"';
  let run = 0;
  for (let i = 0; i < str.length; i++) {
    const c = str.charCodeAt(i);
    if (c >= 0x20 && c !== 0x22 && c !== 0x5c && c !== 0x3c && c !== 0x3e && c !== 0x26 && c !== 0x2028 && c !== 0x2029) continue;
    out += str.slice(run, i);
    run = i + 1;
    if (c === 0x22 || c === 0x5c) out += "\\" + String.fromCharCode(c);
    else if (c === 0x0a) out += "\\n";
    else if (c === 0x0d) out += "\\r";
    else if (c === 0x09) out += "\\t";
    else if (flavor === "encoding/json" && c === 0x08) out += "\\b";
    else if (flavor === "encoding/json" && c === 0x0c) out += "\\f";
    else if (c === 0x2028) out += "\\u2028";
    else if (c === 0x2029) out += "\\u2029";
    else out += "\\u00" + HEX[c >> 4]! + HEX[c & 0xf]!;
  }
  return out + str.slice(run) + '"';
}

/**
 * goccy `AppendFloat64`: `strconv.FormatFloat(v, 'f' or 'e', -1, 64)`, 'e' below 1e-6 and from
 * 1e21 on; the exponent has at least two digits (`1e-07`, `1e+21`); `-0` keeps its sign.
 */
export function formatGoJsonNumber(v: number, flavor: JsonFlavor = "goccy"): string {
  if (Object.is(v, -0)) return "-0";
  const s = String(v); // shortest round-trip digits; JS switches to exponents at the same bounds
  if (flavor === "encoding/json") return s; // encoding/json trims e-07 to e-7, as JS writes it
  const e = s.indexOf("e");
  if (e < 0) return s;
  const exp = s.slice(e + 2);
  return exp.length === 1 ? `${s.slice(0, e + 2)}0${exp}` : s;
}

/**
 * Which Go JSON package writes the text: `goccy` (github.com/goccy/go-json, the modules' own) or
 * `encoding/json` (the standard library, which golang-jwt uses for token headers and claims).
 */
export type JsonFlavor = "goccy" | "encoding/json";

/** A value that goccy cannot encode; `message` is goccy's text. code `JSON_UNSUPPORTED`. */
export class GoJsonEncodeError extends TinyError<"JSON_UNSUPPORTED"> {
  constructor(message: string) {
    super("JSON_UNSUPPORTED", message);
  }
}

/**
 * Encodes a JSON value as goccy's `Marshal` (or encoding/json's, by `flavor`) encodes the `any` it
 * was decoded into: no spaces, object keys in Go's sorted order, Go's string escaping and numbers.
 * @throws GoJsonEncodeError for a non-finite number (`json: unsupported value: +Inf`), a value that
 *   is not JSON data, or a cycle.
 */
export function marshalGoJson(value: unknown, flavor: JsonFlavor = "goccy"): string {
  const parts: string[] = [];
  const open = new Set<object>();
  // An explicit stack, so nesting as deep as goccy decodes (10000) does not exhaust the call stack.
  type Task = { value: unknown } | { text: string } | { leave: object };
  const stack: Task[] = [{ value }];
  while (stack.length > 0) {
    const task = stack.pop()!;
    if ("text" in task) {
      parts.push(task.text);
      continue;
    }
    if ("leave" in task) {
      open.delete(task.leave);
      continue;
    }
    const v = task.value;
    if (v === null || v === undefined) {
      parts.push("null");
      continue;
    }
    switch (typeof v) {
      case "boolean":
        parts.push(v ? "true" : "false");
        continue;
      case "number":
        if (!Number.isFinite(v)) throw new GoJsonEncodeError(`json: unsupported value: ${Number.isNaN(v) ? "NaN" : v > 0 ? "+Inf" : "-Inf"}`);
        parts.push(formatGoJsonNumber(v, flavor));
        continue;
      case "string":
        parts.push(appendString(v, flavor));
        continue;
      case "object":
        break;
      default:
        throw new GoJsonEncodeError(`json: unsupported type: ${typeof v}`);
    }
    const obj = v as object;
    if (open.has(obj)) throw new GoJsonEncodeError("json: unsupported value: encountered a cycle");
    open.add(obj);
    // Pushed in reverse: the stack pops the opening bracket first.
    const tasks: Task[] = [];
    if (Array.isArray(obj)) {
      tasks.push({ text: "[" });
      obj.forEach((item, i) => tasks.push(...(i > 0 ? [{ text: "," }] : []), { value: item }));
      tasks.push({ text: "]" });
    } else {
      tasks.push({ text: "{" });
      // An `undefined` member is no JSON value: left out, as JSON.stringify does (JSON-decoded data has none).
      Object.keys(obj)
        .filter((k) => (obj as Record<string, unknown>)[k] !== undefined)
        .sort(compareGoStrings)
        .forEach((k, i) => tasks.push({ text: (i > 0 ? "," : "") + appendString(k, flavor) + ":" }, { value: (obj as Record<string, unknown>)[k] }));
      tasks.push({ text: "}" });
    }
    tasks.push({ leave: obj });
    for (let i = tasks.length - 1; i >= 0; i--) stack.push(tasks[i]!);
  }
  return parts.join("");
}
