/**
 * The functions and constants of the expression language with Go's semantics: ajson v0.1.6
 * math.go (numeric functions, `length`, `size`, `sum`, `avg`, base64, the string helpers, `first`,
 * `last`, `not`, `rand`, `randint`) and the SDK's `now`, `RFC3339`, `string`
 * (pkg/evaluator/functions.go). Names are case-insensitive (the parser lowercases them).
 *
 * Arguments arrive evaluated: JSON values, `undefined` for a path that matched nothing (MISSING),
 * {@link UnreadableNumber} for a number Go cannot read. A function fails with `EvalFailure`;
 * the field then evaluates to null and the error is reported, as in Go. Functions of one
 * argument take exactly one; functions of several take at least their minimum and ignore extra
 * arguments (they are still evaluated), as ajson does. `parent`, `root` and `key` need to know
 * where a value sits in the payload: evaluate.ts compiles them (see {@link LOCATED_FUNCTIONS}).
 */
import { EvalFailure } from "./errors.ts";
import { formatGoFloat } from "./goformat.ts";
import * as gm from "./gomath/index.ts";
import {
  byteContains,
  byteHasPrefix,
  byteHasSuffix,
  byteIndexOf,
  byteLength,
  byteReplaceAll,
  byteSlice,
  byteSplit,
  fromBytes,
  goTrimSpace,
  runesOf,
  toBytes,
} from "../../golang/string.ts";
import { formatUnixSeconds } from "./time.ts";
import { children, isObject, numeric, truthy, typeName, UnreadableNumber } from "./values.ts";

/** One function: how many arguments it takes and its implementation. */
export interface FunctionDef {
  /** Fewest arguments accepted. */
  readonly minArgs: number;
  /** Most arguments used; extra ones of a multi-argument function are evaluated and ignored. */
  readonly maxArgs: number;
  /** True for ajson's multi-argument functions (they accept extra arguments). */
  readonly multi: boolean;
  /** Computes the result; throws `EvalFailure`. */
  readonly call: (args: readonly unknown[]) => unknown;
}

/** `pow10`/`factorial` of a missing value: ajson returns an int-typed zero that cannot be read. */
function unreadableZero(fn: string): UnreadableNumber {
  return new UnreadableNumber(`${fn}() of a missing value has no number (Go returns an unreadable zero)`);
}

/** ajson `getInteger`: a number without fraction, as Go's `int`. */
function integer(fn: string, v: unknown): number {
  const n = numeric(v, `${fn}()`);
  if (n % 1 !== 0 || !Number.isFinite(n)) throw new EvalFailure(`${fn}() needs an integer, got ${n}`);
  return n;
}

function uinteger(fn: string, v: unknown): number {
  const n = integer(fn, v);
  if (n < 0) throw new EvalFailure(`${fn}() needs a non-negative integer, got ${n}`);
  return n;
}

function one(name: string, call: (v: unknown) => unknown): [string, FunctionDef] {
  return [name, { minArgs: 1, maxArgs: 1, multi: false, call: (a) => call(a[0]) }];
}

function multi(name: string, minArgs: number, maxArgs: number, call: (a: readonly unknown[]) => unknown): [string, FunctionDef] {
  return [name, { minArgs, maxArgs, multi: true, call }];
}

/** ajson `numericFunction`: the argument must be a number (Go's `math` function of the same name). */
function numericFn(name: string, fn: (x: number) => number): [string, FunctionDef] {
  return one(name, (v) => {
    if (typeof v !== "number" && !(v instanceof UnreadableNumber)) {
      throw new EvalFailure(`${name}() needs a number, got ${typeName(v)}`);
    }
    return fn(numeric(v, `${name}()`));
  });
}

/** ajson's single-argument string helpers: missing → null, another type fails. */
function stringFn(name: string, fn: (s: string) => unknown): [string, FunctionDef] {
  return one(name, (v) => {
    if (v === undefined) return null;
    if (typeof v !== "string") throw new EvalFailure(`${name}() needs a string, got ${typeName(v)}`);
    return fn(v);
  });
}

/** Argument `i` of a multi-argument helper as a string, with ajson's message. */
function stringArg(fn: string, args: readonly unknown[], i: number): string {
  const v = args[i];
  if (typeof v === "string") return v;
  throw new EvalFailure(`${fn}() needs a string as its ${ORDINAL[i]} argument, got ${typeName(v)}`);
}

const ORDINAL = ["first", "second", "third"];

function integerArg(fn: string, args: readonly unknown[], i: number): number {
  const v = args[i];
  if (typeof v === "number" && v % 1 === 0 && Number.isFinite(v)) return v;
  const got = typeof v === "number" ? String(v) : typeName(v);
  throw new EvalFailure(`${fn}() needs an integer as its ${ORDINAL[i]} argument, got ${got}`);
}

function tooFew(fn: string, args: readonly unknown[], min: number, usage: string): void {
  if (args.length < min) throw new EvalFailure(`${fn}() needs ${usage}`);
}

// ---- Go string functions on byte strings (src/golang/string.ts) -------------------------------

const ASCII = /^[\x00-\x7f]*$/;

/**
 * Go's per-character case mapping (`unicode.ToUpper`/`ToLower`, used by `strings.ToUpper`): one
 * character maps to one character. JS `toUpperCase` uses the full mapping (`ß` → `SS`); where
 * that yields more than one character, Go keeps the character or uses its simple mapping, which
 * for the titlecase-able Greek letters with ypogegrammeni is the next code point.
 */
function mapCase(s: string, upper: boolean): string {
  if (ASCII.test(s)) return upper ? s.toUpperCase() : s.toLowerCase(); // same as Go for ASCII
  s = runesOf(s); // strings.Map reads invalid bytes as U+FFFD
  let out = "";
  for (const ch of s) {
    const m = upper ? ch.toUpperCase() : ch.toLowerCase();
    if (m.length === ch.length || [...m].length === 1) {
      out += m;
      continue;
    }
    const c = ch.codePointAt(0)!;
    if (!upper) out += c === 0x130 ? "i" : ch;
    else if ((c >= 0x1f80 && c <= 0x1faf && (c & 0xf) < 8) || c === 0x1fb3 || c === 0x1fc3 || c === 0x1ff3) {
      out += String.fromCodePoint(c === 0x1fb3 || c === 0x1fc3 || c === 0x1ff3 ? c + 9 : c + 8);
    } else out += ch;
  }
  return out;
}

const B64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
const B64_INDEX = new Int16Array(128).fill(-1);
for (let i = 0; i < B64.length; i++) B64_INDEX[B64.charCodeAt(i)] = i;

/**
 * Go's `base64.StdEncoding.DecodeString` (strict padding) then, on failure, the unpadded
 * encoding — ajson `b64decode`. `\r` and `\n` are skipped, as Go's decoder does.
 * @returns the bytes, or the error text (`illegal base64 data at input byte N`)
 */
function decodeBase64(text: string, padded: boolean): Uint8Array | string {
  const out: number[] = [];
  let acc = 0;
  let bits = 0;
  let i = 0;
  let quantum = 0; // characters of the current 4-character group
  let pos = -1;
  const illegal = () => `illegal base64 data at input byte ${pos}`;
  for (; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 10 || c === 13) continue;
    pos = i;
    if (c === 61 /* = */) break;
    const v = c < 128 ? B64_INDEX[c]! : -1;
    if (v < 0) return illegal();
    acc = (acc << 6) | v;
    bits += 6;
    quantum = (quantum + 1) % 4;
    if (bits >= 8) {
      bits -= 8;
      out.push((acc >> bits) & 0xff);
    }
  }
  if (i < text.length) {
    // Padding: only in the padded encoding, only after 2 or 3 characters, exactly to a group end.
    if (!padded || quantum < 2) return illegal();
    let need = 4 - quantum;
    for (; i < text.length; i++) {
      const c = text.charCodeAt(i);
      if (c === 10 || c === 13) continue;
      pos = i;
      if (c !== 61 || need === 0) return illegal();
      need--;
    }
    if (need !== 0) return `illegal base64 data at input byte ${text.length}`;
    return Uint8Array.from(out);
  }
  if (quantum === 1 || (padded && quantum !== 0)) return `illegal base64 data at input byte ${text.length}`;
  return Uint8Array.from(out);
}

function b64decode(s: string): string {
  let r = decodeBase64(s, true);
  if (typeof r === "string") r = decodeBase64(s, false);
  if (typeof r === "string") throw new EvalFailure(`b64decode(): ${r}`);
  return fromBytes(r);
}

function b64encode(s: string, pad: boolean): string {
  const text = Buffer.from(toBytes(s)).toString("base64");
  return pad ? text : text.replace(/=+$/, "");
}

/** ajson `length`: array size, string bytes, 0 for missing, 1 for anything else. */
function length(v: unknown): number {
  if (v === undefined) return 0;
  if (Array.isArray(v)) return v.length;
  if (typeof v === "string") return byteLength(v);
  return 1;
}

/** ajson `sum`/`avg` over a container, a number itself, null for anything else. */
function total(v: unknown, average: boolean): unknown {
  if (v === undefined) return null;
  if (Array.isArray(v) || isObject(v)) {
    const items = children(v);
    if (items.length === 0) return 0;
    let sum = 0;
    for (const e of items) sum += numeric(e, average ? "avg()" : "sum()");
    return average ? sum / items.length : sum;
  }
  if (typeof v === "number" || v instanceof UnreadableNumber) return numeric(v);
  return null;
}

/** Go `mathFactorial` on `uint`: the product wraps modulo 2^64 (and is 0 from 66! on). */
function factorial(v: unknown): unknown {
  if (v === undefined) return unreadableZero("factorial");
  const n = uinteger("factorial", v);
  if (n >= 66) return 0;
  let r = 1n;
  for (let i = 2n; i <= BigInt(n); i++) r = (r * i) & 0xffffffffffffffffn;
  return Number(r);
}

/** The SDK's `string(x)`: numbers as Go `%v`, booleans, objects as compact JSON, strings as-is, else "unknown". */
function sdkString(v: unknown): string {
  if (typeof v === "number" || v instanceof UnreadableNumber) return formatGoFloat(numeric(v));
  if (typeof v === "boolean") return v ? "true" : "false";
  if (typeof v === "string") return v;
  if (isObject(v)) return JSON.stringify(v);
  return "unknown";
}

function substr(a: readonly unknown[]): string {
  tooFew("substr", a, 2, "2 or 3 arguments (string, start[, length])");
  const s = stringArg("substr", a, 0);
  let start = integerArg("substr", a, 1);
  const len = byteLength(s);
  if (start < 0) start = Math.max(len + start, 0);
  if (start >= len) return "";
  let end = len;
  if (a.length >= 3) {
    const count = integerArg("substr", a, 2);
    // Go slices str[start:start+count] and panics on a negative count; we report it instead.
    if (count < 0) throw new EvalFailure(`substr() needs a non-negative length, got ${count}`);
    end = Math.min(start + count, len);
  }
  return byteSlice(s, start, end);
}

/** Every callable function by lowercase name (ajson math.go and the SDK's additions). */
export const FUNCTIONS: ReadonlyMap<string, FunctionDef> = new Map<string, FunctionDef>([
  numericFn("abs", Math.abs),
  numericFn("acos", gm.acos),
  numericFn("acosh", gm.acosh),
  numericFn("asin", gm.asin),
  numericFn("asinh", gm.asinh),
  numericFn("atan", gm.atan),
  numericFn("atanh", gm.atanh),
  numericFn("cbrt", gm.cbrt),
  numericFn("ceil", Math.ceil),
  numericFn("cos", gm.cos),
  numericFn("cosh", gm.cosh),
  numericFn("exp", gm.exp),
  numericFn("exp2", gm.exp2),
  numericFn("expm1", gm.expm1),
  numericFn("erf", gm.erf),
  numericFn("erfc", gm.erfc),
  numericFn("erfcinv", gm.erfcinv),
  numericFn("erfinv", gm.erfinv),
  numericFn("floor", Math.floor),
  numericFn("gamma", gm.gamma),
  numericFn("j0", gm.j0),
  numericFn("j1", gm.j1),
  numericFn("log", gm.log),
  numericFn("log10", gm.log10),
  numericFn("log1p", gm.log1p),
  numericFn("log2", gm.log2),
  numericFn("logb", gm.logb),
  numericFn("round", gm.round),
  numericFn("roundtoeven", gm.roundToEven),
  numericFn("sin", gm.sin),
  numericFn("sinh", gm.sinh),
  numericFn("sqrt", Math.sqrt),
  numericFn("tan", gm.tan),
  numericFn("tanh", gm.tanh),
  numericFn("trunc", Math.trunc),
  numericFn("y0", gm.y0),
  numericFn("y1", gm.y1),
  one("pow10", (v) => (v === undefined ? unreadableZero("pow10") : gm.pow10(integer("pow10", v)))),
  one("factorial", factorial),
  one("length", length),
  one("size", (v) => (Array.isArray(v) || isObject(v) ? children(v).length : 0)),
  one("sum", (v) => total(v, false)),
  one("avg", (v) => total(v, true)),
  one("not", (v) => !truthy(v)),
  one("first", (v) => (Array.isArray(v) && v.length > 0 ? v[0] : null)),
  one("last", (v) => (Array.isArray(v) && v.length > 0 ? v[v.length - 1] : null)),
  one("b64decode", (v) => (typeof v === "string" ? b64decode(v) : null)),
  one("b64encode", (v) => (typeof v === "string" ? b64encode(v, true) : null)),
  one("b64encoden", (v) => (typeof v === "string" ? b64encode(v, false) : null)),
  one("rand", (v) => Math.random() * numeric(v, "rand()")),
  one("randint", (v) => {
    const n = integer("randint", v);
    // Go's rand.Intn panics for n <= 0; we report it.
    if (n <= 0) throw new EvalFailure(`randint() needs a positive integer, got ${n}`);
    return Math.floor(Math.random() * n);
  }),
  stringFn("upper", (s) => mapCase(s, true)),
  stringFn("lower", (s) => mapCase(s, false)),
  stringFn("trim", goTrimSpace),
  stringFn("reverse", (s) => Array.from(runesOf(s)).reverse().join("")),
  multi("split", 2, 2, (a) => {
    tooFew("split", a, 2, "2 arguments (string, separator)");
    return byteSplit(stringArg("split", a, 0), stringArg("split", a, 1));
  }),
  multi("join", 2, 2, (a) => {
    tooFew("join", a, 2, "2 arguments (array, separator)");
    if (!Array.isArray(a[0])) throw new EvalFailure(`join() needs an array as its first argument, got ${typeName(a[0])}`);
    const sep = stringArg("join", a, 1);
    return (a[0] as unknown[])
      .map((e, i) => {
        if (typeof e !== "string") throw new EvalFailure(`join() needs an array of strings, element ${i} is ${typeName(e)}`);
        return e;
      })
      .join(sep);
  }),
  multi("contains", 2, 2, (a) => {
    tooFew("contains", a, 2, "2 arguments (string, substring)");
    return byteContains(stringArg("contains", a, 0), stringArg("contains", a, 1));
  }),
  multi("hasprefix", 2, 2, (a) => {
    tooFew("hasprefix", a, 2, "2 arguments (string, prefix)");
    return byteHasPrefix(stringArg("hasprefix", a, 0), stringArg("hasprefix", a, 1));
  }),
  multi("hassuffix", 2, 2, (a) => {
    tooFew("hassuffix", a, 2, "2 arguments (string, suffix)");
    return byteHasSuffix(stringArg("hassuffix", a, 0), stringArg("hassuffix", a, 1));
  }),
  multi("replace", 3, 3, (a) => {
    tooFew("replace", a, 3, "3 arguments (string, old, new)");
    return byteReplaceAll(stringArg("replace", a, 0), stringArg("replace", a, 1), stringArg("replace", a, 2));
  }),
  multi("substr", 2, 3, substr),
  multi("index", 2, 2, (a) => {
    tooFew("index", a, 2, "2 arguments (string, substring)");
    return byteIndexOf(stringArg("index", a, 0), stringArg("index", a, 1));
  }),
  // SDK (pkg/evaluator/functions.go). ajson functions take one argument, so Go writes now($).
  one("now", () => Math.floor(Date.now() / 1000)),
  one("rfc3339", (v) => {
    if (typeof v === "number" || v instanceof UnreadableNumber) return formatUnixSeconds(numeric(v));
    return formatUnixSeconds(Date.now() / 1000);
  }),
  one("string", sdkString),
]);

/**
 * Functions that return a node of the payload tree (or its key): `parent(x)`, `root(x)`,
 * `key(x)`. They need the argument's location, so evaluate.ts compiles them; listed here so the
 * parser knows the names.
 */
export const LOCATED_FUNCTIONS: ReadonlySet<string> = new Set(["parent", "root", "key"]);

/** Named constants (ajson math.go), lowercase; `true`/`false`/`null` are constants too. */
export const CONSTANTS: ReadonlyMap<string, number | boolean | null> = new Map<string, number | boolean | null>([
  ["true", true],
  ["false", false],
  ["null", null],
  ["e", 2.71828182845904523536028747135266249775724709369995957496696763],
  ["pi", 3.14159265358979323846264338327950288419716939937510582097494459],
  ["phi", 1.61803398874989484820458683436563811772030917980576286213544862],
  ["sqrt2", 1.41421356237309504880168872420969807856967187537694807317667974],
  ["sqrte", 1.64872127070012814684865078781416357165377610071014801157507931],
  ["sqrtpi", 1.77245385090551602729816748334114518279754945612238712821380779],
  ["sqrtphi", 1.27201964951406896425242246173749149171560804184009624861664038],
  ["ln2", 0.693147180559945309417232121458176568075500134360255254120680009],
  ["log2e", 1.44269504088896340735992468100189213742664595415298593413544940693110921918118507988552662289350634449699],
  ["ln10", 2.3025850929940456840179914546843642076011014886287729760333279],
  ["log10e", 0.43429448190325182765112891891660508229439700580366656611445378316586464920887077472922494933843174831870610674476630373364167928715896],
]);
