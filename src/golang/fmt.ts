/**
 * Go's `fmt` printing (Go 1.26 fmt/print.go, format.go; strconv/ftoa.go, quote.go) for the values a
 * Go component sees when its data came from JSON — `nil`, `bool`, `float64`, `string`,
 * `[]interface {}`, `map[string]interface {}` — plus `int` (a JavaScript `bigint`: template literals,
 * `len`) and values with a `String()` method ({@link GoStringer}: `time.Time`, `time.Month`).
 * csv_encode writes non-scalar cells with `fmt.Sprint`; go_template prints with it and offers
 * `print`, `printf`, `println`. Checked against Go in test/conformance/encoding (op `sprint`).
 *
 * Supported: `Sprint`, `Sprintln`, `Sprintf` with the flags `+ - # 0 space`, width and precision
 * (also `*`), the verbs `v +v #v T t d b o O x X c q U e E f F g G s %` (`x X` of floats: hex), Go's `%!verb(type=value)`,
 * `%!verb(MISSING)` and `%!(EXTRA …)` texts. Not supported (printed as a bad verb): explicit
 * argument indexes `%[n]d`, `%p`, `%b` of floats, `%w`.
 */
import { wellFormed } from "./unicode.ts";

/** A Go value with a `String()` method and a Go type name (time.Time, time.Month …). */
export interface GoStringer {
  /** Go's type name as `%T` prints it, e.g. `time.Time`. */
  readonly goType: string;
  /** What Go's `String()` returns. */
  goString(): string;
  /** The integer a `%d` prints, for named integer types (time.Month); undefined otherwise. */
  readonly goInt?: bigint;
}

/** True for a {@link GoStringer}. */
export function isGoStringer(v: unknown): v is GoStringer {
  return typeof v === "object" && v !== null && typeof (v as GoStringer).goString === "function" && typeof (v as GoStringer).goType === "string";
}

/** Go's `%T` of a value. */
export function goTypeName(v: unknown): string {
  if (v === null || v === undefined) return "<nil>";
  if (typeof v === "boolean") return "bool";
  if (typeof v === "number") return "float64";
  if (typeof v === "bigint") return "int";
  if (typeof v === "string") return "string";
  if (Array.isArray(v)) return "[]interface {}";
  if (isGoStringer(v)) return v.goType;
  if (typeof v === "function") return "func()";
  return "map[string]interface {}";
}

// ---- strconv.FormatFloat ---------------------------------------------------------------------

/** Decimal digits `d` (no leading zeros unless the value is 0) with the point after `dp` digits. */
interface Decimal {
  d: string;
  dp: number;
}

/** The shortest digits that read back as `x` (|x| > 0, finite): JavaScript's and Go's agree. */
function shortest(x: number): Decimal {
  const s = Math.abs(x).toExponential(); // "d.ddde±n", shortest round-trip digits
  const [mant, exp] = s.split("e") as [string, string];
  const d = mant.replace(".", "");
  return { d, dp: Number(exp) + 1 };
}

/** The exact decimal expansion of finite `x` ≠ 0 (every double is a finite decimal). */
function exact(x: number): Decimal {
  const view = new DataView(new ArrayBuffer(8));
  view.setFloat64(0, Math.abs(x));
  const bits = view.getBigUint64(0);
  const expBits = Number((bits >> 52n) & 0x7ffn);
  let mant = bits & 0xfffffffffffffn;
  let e2: number;
  if (expBits === 0) e2 = -1074;
  else {
    mant |= 1n << 52n;
    e2 = expBits - 1075;
  }
  let digits: string;
  let dp: number;
  if (e2 >= 0) {
    digits = (mant << BigInt(e2)).toString();
    dp = digits.length;
  } else {
    // mant / 2^-e2 = mant * 5^-e2 / 10^-e2
    digits = (mant * 5n ** BigInt(-e2)).toString();
    dp = digits.length + e2;
  }
  digits = digits.replace(/0+$/, "");
  const lead = digits.length - digits.replace(/^0+/, "").length;
  return { d: digits.slice(lead), dp: dp - lead };
}

/** `dec` rounded to `n` significant digits, half to even (strconv's decimal.Round). */
function round(dec: Decimal, n: number): Decimal {
  if (n < 0) return { d: "", dp: dec.dp };
  if (n >= dec.d.length) return dec;
  const next = dec.d.charCodeAt(n) - 48;
  const rest = dec.d.slice(n + 1);
  let up = next > 5 || (next === 5 && (/[1-9]/.test(rest) || (n > 0 && (dec.d.charCodeAt(n - 1) - 48) % 2 === 1)));
  if (next === 5 && !/[1-9]/.test(rest) && n === 0) up = false; // 0.5 of the last kept digit "0": even
  let d = dec.d.slice(0, n);
  let dp = dec.dp;
  if (up) {
    let i = d.length - 1;
    while (i >= 0 && d[i] === "9") i--;
    if (i < 0) {
      d = "1";
      dp++;
    } else d = d.slice(0, i) + String.fromCharCode(d.charCodeAt(i) + 1);
  }
  d = d.replace(/0+$/, "");
  return { d, dp };
}

function fmtE(neg: boolean, dec: Decimal, prec: number, e: string): string {
  let s = neg ? "-" : "";
  s += dec.d.length === 0 ? "0" : dec.d[0]!;
  if (prec > 0) {
    s += ".";
    const frac = dec.d.slice(1, 1 + prec);
    s += frac + "0".repeat(prec - frac.length);
  }
  let exp = dec.d.length === 0 ? 0 : dec.dp - 1;
  s += e;
  if (exp < 0) {
    s += "-";
    exp = -exp;
  } else s += "+";
  return s + (exp < 10 ? "0" + exp : String(exp));
}

function fmtF(neg: boolean, dec: Decimal, prec: number): string {
  let s = neg ? "-" : "";
  if (dec.dp > 0) {
    const int = dec.d.slice(0, dec.dp);
    s += int + "0".repeat(dec.dp - int.length);
  } else s += "0";
  if (prec > 0) {
    s += ".";
    for (let i = 0; i < prec; i++) {
      const j = dec.dp + i;
      s += j < 0 || j >= dec.d.length ? "0" : dec.d[j]!;
    }
  }
  return s;
}

/**
 * Go `strconv.FormatFloat(x, fmt, prec, 64)` for the formats `e E f g G`; `prec` -1 is the
 * shortest representation that reads back as `x`.
 */
export function formatFloat(x: number, fmt: "e" | "E" | "f" | "g" | "G", prec: number): string {
  if (Number.isNaN(x)) return "NaN";
  if (x === Infinity) return "+Inf";
  if (x === -Infinity) return "-Inf";
  const neg = x < 0 || Object.is(x, -0);
  const shortestForm = prec < 0;
  let dec: Decimal;
  if (x === 0) dec = { d: "", dp: 0 };
  else if (shortestForm) dec = shortest(x);
  else {
    dec = exact(x);
    if (fmt === "e" || fmt === "E") dec = round(dec, prec + 1);
    else if (fmt === "f") dec = round(dec, dec.dp + prec);
    else dec = round(dec, prec === 0 ? 1 : prec);
  }
  const nd = dec.d.length;
  if (shortestForm) {
    if (fmt === "e" || fmt === "E") prec = Math.max(nd - 1, 0);
    else if (fmt === "f") prec = Math.max(nd - dec.dp, 0);
    else prec = nd;
  }
  if (fmt === "e" || fmt === "E") return fmtE(neg, dec, prec, fmt);
  if (fmt === "f") return fmtF(neg, dec, prec);
  // %g
  let eprec = prec;
  if (eprec > nd && nd >= dec.dp) eprec = nd;
  if (shortestForm) eprec = 6;
  const exp = dec.dp - 1;
  if (x !== 0 && (exp < -4 || exp >= eprec)) {
    let p = prec;
    if (p > nd) p = nd;
    return fmtE(neg, dec, p - 1, fmt === "g" ? "e" : "E");
  }
  if (x === 0) return fmtF(neg, dec, 0);
  let p = prec;
  if (p > dec.dp) p = nd;
  return fmtF(neg, dec, Math.max(p - dec.dp, 0));
}

/** Go `strconv.FormatFloat(x, 'x' or 'X', prec, 64)`: `0x1.cp+01`; `prec` -1 is as few hex digits as exact. */
export function formatHexFloat(x: number, prec: number, upper: boolean): string {
  if (!Number.isFinite(x)) return formatFloat(x, "g", -1);
  const neg = x < 0 || Object.is(x, -0);
  let mant = 0n;
  let exp = 0;
  if (x !== 0) {
    const view = new DataView(new ArrayBuffer(8));
    view.setFloat64(0, Math.abs(x));
    const bits = view.getBigUint64(0);
    const e = Number((bits >> 52n) & 0x7ffn);
    mant = bits & 0xfffffffffffffn;
    if (e === 0) exp = -1022;
    else {
      mant |= 1n << 52n;
      exp = e - 1023;
    }
    // Normalise to 1.xxx: the leading 1 at bit 60 (15 hex digits after the point).
    let len = mant.toString(2).length;
    exp += len - 53;
    mant <<= BigInt(61 - len);
    len = 61;
  }
  if (prec >= 0 && prec < 15) {
    const shift = BigInt(4 * (15 - prec));
    const extra = mant & ((1n << shift) - 1n);
    const half = 1n << (shift - 1n);
    mant >>= shift;
    if (extra > half || (extra === half && (mant & 1n) === 1n)) mant++;
    if (mant >> BigInt(4 * prec + 1) !== 0n) {
      mant >>= 1n;
      exp++;
    }
    mant <<= shift;
  }
  let frac = (mant & ((1n << 60n) - 1n)).toString(16).padStart(15, "0");
  if (prec < 0) frac = frac.replace(/0+$/, "");
  else frac = frac.slice(0, prec).padEnd(prec, "0");
  const lead = x === 0 ? "0" : "1";
  const e = Math.abs(exp);
  let out = (neg ? "-" : "") + "0x" + lead + (frac ? "." + frac : "") + "p" + (exp < 0 ? "-" : "+") + (e < 10 ? "0" + e : String(e));
  if (upper) out = out.toUpperCase();
  return out;
}

// ---- strconv.Quote -----------------------------------------------------------------------------

const PRINTABLE = /^[\p{L}\p{M}\p{N}\p{P}\p{S} ]$/u;

/** Go `strconv.Quote` (or `QuoteToASCII` with `ascii`). */
export function goQuote(s: string, ascii = false): string {
  let out = '"';
  for (const ch of wellFormed(s)) out += quoteRune(ch, '"', ascii);
  return out + '"';
}

function quoteRune(ch: string, quote: string, ascii: boolean): string {
  const cp = ch.codePointAt(0)!;
  if (ch === quote || ch === "\\") return "\\" + ch;
  if (ascii ? cp < 0x80 && PRINTABLE.test(ch) : PRINTABLE.test(ch)) return ch;
  switch (cp) {
    case 7:
      return "\\a";
    case 8:
      return "\\b";
    case 12:
      return "\\f";
    case 10:
      return "\\n";
    case 13:
      return "\\r";
    case 9:
      return "\\t";
    case 11:
      return "\\v";
  }
  if (cp < 0x20 || cp === 0x7f) return "\\x" + cp.toString(16).padStart(2, "0");
  if (cp === 0xfffd && !ascii) return ch;
  if (cp < 0x10000) return "\\u" + cp.toString(16).padStart(4, "0");
  return "\\U" + cp.toString(16).padStart(8, "0");
}

/** Go `strconv.QuoteRune`. */
function quoteRuneLiteral(cp: number, ascii: boolean): string {
  const ch = cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff) ? "\ufffd" : String.fromCodePoint(cp);
  return "'" + quoteRune(ch, "'", ascii) + "'";
}

// ---- the printer -------------------------------------------------------------------------------

interface Flags {
  plus: boolean;
  minus: boolean;
  sharp: boolean;
  space: boolean;
  zero: boolean;
  plusV: boolean;
  sharpV: boolean;
  wid?: number;
  prec?: number;
}

const noFlags = (): Flags => ({ plus: false, minus: false, sharp: false, space: false, zero: false, plusV: false, sharpV: false });

function runeCount(s: string): number {
  let n = 0;
  for (const _ of s) n++;
  return n;
}

function padding(f: Flags, n: number): string {
  if (n <= 0) return "";
  return (f.zero && !f.minus ? "0" : " ").repeat(n);
}

function pad(f: Flags, s: string): string {
  if (f.wid === undefined || f.wid === 0) return s;
  const n = f.wid - runeCount(s);
  return f.minus ? s + padding(f, n) : padding(f, n) + s;
}

/** Go `fmt.padString` for strings: zero padding applies to strings too. */
function truncate(f: Flags, s: string): string {
  if (f.prec === undefined) return s;
  let n = f.prec;
  let i = 0;
  for (const ch of s) {
    if (--n < 0) return s.slice(0, i);
    i += ch.length;
  }
  return s;
}

function fmtInteger(f: Flags, value: bigint, base: number, verb: string, upper: boolean): string {
  const negative = value < 0n;
  let u = negative ? -value : value;
  if (!negative && u >= 1n << 63n) u = BigInt.asIntN(64, u); // Go int is 64-bit
  let prec = 0;
  if (f.prec !== undefined) {
    prec = f.prec;
    if (prec === 0 && u === 0n) return padding({ ...f, zero: false }, f.wid ?? 0);
  } else if (f.zero && !f.minus && f.wid !== undefined) {
    prec = f.wid;
    if (negative || f.plus || f.space) prec--;
  }
  let digits = u.toString(base);
  if (upper) digits = digits.toUpperCase();
  if (digits.length < prec) digits = "0".repeat(prec - digits.length) + digits;
  if (f.sharp) {
    if (base === 2) digits = "0b" + digits;
    else if (base === 8 && digits[0] !== "0") digits = "0" + digits;
    else if (base === 16) digits = (upper ? "0X" : "0x") + digits;
  }
  if (verb === "O") digits = "0o" + digits;
  if (negative) digits = "-" + digits;
  else if (f.plus) digits = "+" + digits;
  else if (f.space) digits = " " + digits;
  return pad({ ...f, zero: false }, digits);
}

function fmtFloatVerb(f: Flags, v: number, verb: string, defaultPrec: number): string {
  const prec = f.prec ?? defaultPrec;
  const fmt = (verb === "F" ? "f" : verb === "v" ? "g" : verb) as "e" | "E" | "f" | "g" | "G" | "x" | "X";
  let num = fmt === "x" || fmt === "X" ? formatHexFloat(v, prec, fmt === "X") : formatFloat(v, fmt, prec);
  if (num[0] !== "-" && num[0] !== "+") num = "+" + num;
  if (f.space && num[0] === "+" && !f.plus) num = " " + num.slice(1);
  if (num[1] === "I" || num[1] === "N") {
    if (num[1] === "N" && !f.space && !f.plus) num = num.slice(1);
    return pad({ ...f, zero: false }, num);
  }
  if (f.sharp) {
    let digits = verb === "v" || verb === "g" || verb === "G" || verb === "x" ? (prec === -1 ? 6 : prec) : 0;
    let tail = "";
    let body = num;
    // Go counts every character but the point as a digit (even the `x` of `0x`); e is a hex digit.
    const e = body.search(verb === "x" || verb === "X" ? /[pP]/ : /[eEpP]/);
    if (e >= 0) {
      tail = body.slice(e);
      body = body.slice(0, e);
    }
    let sawNonzero = false;
    for (let i = 1; i < body.length; i++) {
      const c = body[i]!;
      if (c === ".") continue;
      if (c !== "0") sawNonzero = true;
      if (sawNonzero) digits--;
    }
    if (!body.includes(".")) {
      if (body.length === 2 && body[1] === "0") digits--;
      body += ".";
    }
    while (digits-- > 0) body += "0";
    num = body + tail;
  }
  if (f.plus || num[0] !== "+") {
    if (f.zero && !f.minus && f.wid !== undefined && f.wid > num.length) return num[0] + padding(f, f.wid - num.length) + num.slice(1);
    return pad(f, num);
  }
  return pad(f, num.slice(1));
}

function badVerb(verb: string, v: unknown, value: () => string): string {
  if (v === null || v === undefined) return `%!${verb}(<nil>)`;
  return `%!${verb}(${goTypeName(v)}=${value()})`;
}

function fmtString(f: Flags, s: string, verb: string, arg: unknown): string {
  switch (verb) {
    case "v":
      if (f.sharpV) return pad(f, goQuote(s));
      return pad(f, truncate(f, s));
    case "s":
      return pad(f, truncate(f, s));
    case "x":
    case "X":
      return fmtHexString(f, truncate(f, s), verb === "X");
    case "q": {
      const t = truncate(f, s);
      if (f.sharp && !/[`\u0000-\u0008\u000a-\u001f\u007f\ufeff]/.test(t)) return pad(f, "`" + t + "`");
      return pad(f, goQuote(t, f.plus));
    }
    default:
      return badVerb(verb, arg, () => print(s, "v", noFlags()));
  }
}

function fmtHexString(f: Flags, s: string, upper: boolean): string {
  const bytes = new TextEncoder().encode(s);
  if (bytes.length === 0) return padding(f, f.wid ?? 0);
  const digits = upper ? "0123456789ABCDEF" : "0123456789abcdef";
  const parts: string[] = [];
  for (const b of bytes) parts.push((f.sharp && (f.space || parts.length === 0) ? (upper ? "0X" : "0x") : "") + digits[b >> 4] + digits[b & 15]);
  const out = parts.join(f.space ? " " : "");
  return pad({ ...f, zero: false }, out);
}

/** One operand printed with `verb` under `f` (Go `printArg` + `printValue`). */
function print(arg: unknown, verb: string, f: Flags, depth = 0): string {
  if (verb === "T") return pad(f, truncate(f, goTypeName(arg)));
  if (arg === null || arg === undefined) {
    if (depth > 0) return pad(f, "<nil>");
    return verb === "v" ? pad(f, "<nil>") : badVerb(verb, arg, () => "");
  }
  if (isGoStringer(arg)) {
    if (arg.goInt !== undefined && verb !== "v" && verb !== "s" && verb !== "q" && verb !== "x" && verb !== "X")
      return print(arg.goInt, verb, f, depth).replace(/\(int=/, `(${arg.goType}=`);
    if (verb === "v" || verb === "s" || verb === "q" || verb === "x" || verb === "X") return fmtString(f, arg.goString(), verb === "v" ? "s" : verb, arg);
    return badVerb(verb, arg, () => arg.goString());
  }
  switch (typeof arg) {
    case "boolean":
      return verb === "t" || verb === "v" ? pad(f, String(arg)) : badVerb(verb, arg, () => String(arg));
    case "bigint":
      switch (verb) {
        case "v":
        case "d":
          return fmtInteger(f, arg, 10, verb, false);
        case "b":
          return fmtInteger(f, arg, 2, verb, false);
        case "o":
        case "O":
          return fmtInteger(f, arg, 8, verb, false);
        case "x":
          return fmtInteger(f, arg, 16, verb, false);
        case "X":
          return fmtInteger(f, arg, 16, verb, true);
        case "c":
          return pad(f, String.fromCodePoint(validRune(arg)));
        case "q":
          return pad(f, quoteRuneLiteral(Number(arg), f.plus));
        case "U": {
          const hex = (arg < 0n ? BigInt.asUintN(64, arg) : arg)
            .toString(16)
            .toUpperCase()
            .padStart(f.prec ?? 4, "0");
          const u = "U+" + hex;
          return pad(f, f.sharp && arg >= 0n && arg <= 0x10ffffn ? `${u} '${String.fromCodePoint(validRune(arg))}'` : u);
        }
        default:
          return badVerb(verb, arg, () => arg.toString());
      }
    case "number":
      switch (verb) {
        case "v":
          return f.sharpV ? fmtFloatVerb(f, arg, "g", -1).replace(/^(-?\d+)$/, "$1") : fmtFloatVerb(f, arg, "g", -1);
        case "g":
        case "G":
          return fmtFloatVerb(f, arg, verb, -1);
        case "e":
        case "E":
        case "f":
        case "F":
          return fmtFloatVerb(f, arg, verb, 6);
        case "x":
        case "X":
          return fmtFloatVerb(f, arg, verb, -1);
        default:
          return badVerb(verb, arg, () => fmtFloatVerb(noFlags(), arg, "g", -1));
      }
    case "string":
      return fmtString(f, arg, verb, arg);
    case "object":
      break;
    default:
      return badVerb(verb, arg, () => "?");
  }
  if (Array.isArray(arg)) {
    if (f.sharpV) return "[]interface {}{" + arg.map((x) => printSharpV(x)).join(", ") + "}";
    return "[" + arg.map((x) => print(x, verb, f, depth + 1)).join(" ") + "]";
  }
  const obj = arg as Record<string, unknown>;
  const keys = Object.keys(obj).sort(compareCodePoints);
  if (f.sharpV) return "map[string]interface {}{" + keys.map((k) => `${goQuote(k)}:${printSharpV(obj[k])}`).join(", ") + "}";
  return "map[" + keys.map((k) => `${print(k, verb, f, depth + 1)}:${print(obj[k], verb, f, depth + 1)}`).join(" ") + "]";
}

function validRune(v: bigint): number {
  return v < 0n || v > 0x10ffffn || (v >= 0xd800n && v <= 0xdfffn) ? 0xfffd : Number(v);
}

/** `%#v` of an element inside a container (an interface value: Go syntax with its type). */
function printSharpV(v: unknown): string {
  if (v === null || v === undefined) return "interface {}(nil)";
  const f = { ...noFlags(), sharpV: true };
  if (typeof v === "number") return fmtFloatVerb(noFlags(), v, "g", -1);
  return print(v, "v", f, 1);
}

function compareCodePoints(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0; // map keys from JSON: UTF-16 order equals Go's for the BMP
}

/** Go `fmt.Sprint`: operands with spaces between two neither of which is a string. */
export function goSprint(...args: unknown[]): string {
  let out = "";
  for (let i = 0; i < args.length; i++) {
    const isString = typeof args[i] === "string";
    if (i > 0 && !isString && typeof args[i - 1] !== "string") out += " ";
    out += print(args[i], "v", noFlags());
  }
  return out;
}

/** Go `fmt.Sprintln`: operands separated by spaces, then a newline. */
export function goSprintln(...args: unknown[]): string {
  return args.map((a) => print(a, "v", noFlags())).join(" ") + "\n";
}

/** Go `fmt.Sprintf` (see the module comment for the verbs supported). */
export function goSprintf(format: string, ...args: unknown[]): string {
  let out = "";
  let argNum = 0;
  let i = 0;
  const end = format.length;
  const intArg = (): number | undefined => {
    if (argNum >= args.length) return undefined;
    const a = args[argNum++];
    if (typeof a === "bigint") return Number(a);
    return undefined;
  };
  while (i < end) {
    const next = format.indexOf("%", i);
    if (next < 0) {
      out += format.slice(i);
      break;
    }
    out += format.slice(i, next);
    i = next + 1;
    const f = noFlags();
    for (; i < end; i++) {
      const c = format[i];
      if (c === "#") f.sharp = true;
      else if (c === "0") f.zero = true;
      else if (c === "+") f.plus = true;
      else if (c === "-") f.minus = true;
      else if (c === " ") f.space = true;
      else break;
    }
    if (format[i] === "*") {
      i++;
      const w = intArg();
      if (w === undefined) out += "%!(BADWIDTH)";
      else {
        f.wid = Math.abs(w);
        if (w < 0) {
          f.minus = true;
          f.zero = false;
        }
      }
    } else {
      const m = /^\d+/.exec(format.slice(i));
      if (m) {
        f.wid = Number(m[0]);
        i += m[0].length;
      }
    }
    if (i + 1 < end && format[i] === ".") {
      i++;
      if (format[i] === "*") {
        i++;
        const p = intArg();
        if (p === undefined) out += "%!(BADPREC)";
        else f.prec = p < 0 ? undefined : p;
      } else {
        const m = /^\d+/.exec(format.slice(i));
        f.prec = m ? Number(m[0]) : 0;
        if (m) i += m[0].length;
      }
    }
    if (i >= end) {
      out += "%!(NOVERB)";
      break;
    }
    const verb = String.fromCodePoint(format.codePointAt(i)!);
    i += verb.length;
    if (verb === "%") {
      out += "%";
      continue;
    }
    if (argNum >= args.length) {
      out += `%!${verb}(MISSING)`;
      continue;
    }
    if (verb === "v") {
      f.sharpV = f.sharp;
      f.sharp = false;
      f.plusV = f.plus;
      f.plus = false;
    }
    out += print(args[argNum++], verb, f);
  }
  if (argNum < args.length) {
    out +=
      "%!(EXTRA " +
      args
        .slice(argNum)
        .map((a) => (a === null || a === undefined ? "<nil>" : `${goTypeName(a)}=${print(a, "v", noFlags())}`))
        .join(", ") +
      ")";
  }
  return out;
}
