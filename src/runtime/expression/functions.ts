/**
 * The function and constant tables of the expression language (runtime-spec §2.11):
 * ajson math built-ins (math.go), the v0.1.6 fork's string helpers (names and arities from the
 * module README / pkg/tools/prompt_core.go), and the SDK's `now`, `RFC3339`, `string`
 * (pkg/evaluator/functions.go). Names are case-insensitive, as in ajson (the parser lowercases).
 *
 * Each entry declares its arity; the parser rejects unknown names and wrong counts at compile
 * time. Wrong argument TYPES are evaluation errors (`EvalFailure`).
 */
import { EvalFailure } from "./errors.ts";
import { formatUnixSeconds } from "./time.ts";
import { deepEqual, isObject, toText, truthy, typeName } from "./values.ts";

/** One function: accepted argument counts and the implementation over evaluated arguments. */
export interface FunctionDef {
  /** Fewest arguments accepted. */
  readonly minArgs: number;
  /** Most arguments accepted. */
  readonly maxArgs: number;
  /** Computes the result; throws `EvalFailure` on a wrong argument type. */
  readonly call: (args: readonly unknown[]) => unknown;
}

function wrongType(fn: string, want: string, got: unknown): never {
  throw new EvalFailure(`${fn}() expects ${want}, got ${typeName(got)}`);
}

function num(fn: string, v: unknown): number {
  return typeof v === "number" ? v : wrongType(fn, "a number", v);
}

function int(fn: string, v: unknown): number {
  const n = num(fn, v);
  if (!Number.isInteger(n)) throw new EvalFailure(`${fn}() expects an integer, got ${n}`);
  return n;
}

function str(fn: string, v: unknown): string {
  return typeof v === "string" ? v : wrongType(fn, "a string", v);
}

function arr(fn: string, v: unknown): readonly unknown[] {
  return Array.isArray(v) ? v : wrongType(fn, "an array", v);
}

/** Elements of an array, or values of an object (sorted by key, as ajson `Inheritors`). */
function elements(fn: string, v: unknown): readonly unknown[] {
  if (Array.isArray(v)) return v;
  if (isObject(v)) return Object.keys(v).sort().map((k) => v[k]);
  return wrongType(fn, "an array or object", v);
}

/** Go math.Round: half away from zero (JS Math.round rounds -2.5 to -2). */
function goRound(x: number): number {
  if (!Number.isFinite(x)) return x;
  const t = Math.trunc(x);
  return Math.abs(x - t) >= 0.5 ? t + Math.sign(x) : t;
}

/** Go math.RoundToEven: half to even. */
function roundToEven(x: number): number {
  if (!Number.isFinite(x)) return x;
  const t = Math.trunc(x);
  const diff = Math.abs(x - t);
  if (diff > 0.5 || (diff === 0.5 && t % 2 !== 0)) return t + Math.sign(x);
  return t;
}

function unary(name: string, fn: (x: number) => number): [string, FunctionDef] {
  return [name, { minArgs: 1, maxArgs: 1, call: (a) => fn(num(name, a[0])) }];
}

function strFn(name: string, fn: (s: string) => unknown): [string, FunctionDef] {
  return [name, { minArgs: 1, maxArgs: 1, call: (a) => fn(str(name, a[0])) }];
}

const utf8 = new TextEncoder();
const utf8Strict = new TextDecoder("utf-8", { fatal: true });
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

function b64decode(s: string): string {
  if (!BASE64.test(s)) throw new EvalFailure("b64decode() input is not standard base64");
  try {
    return utf8Strict.decode(Buffer.from(s, "base64"));
  } catch {
    throw new EvalFailure("b64decode() result is not UTF-8 text");
  }
}

function length(v: unknown): number {
  if (typeof v === "string" || Array.isArray(v)) return v.length;
  if (isObject(v)) return Object.keys(v).length;
  return wrongType("length", "a string, array or object", v);
}

function sum(fn: string, v: unknown): number {
  let total = 0;
  for (const e of elements(fn, v)) total += num(fn, e);
  return total;
}

function toNumber(fn: string, v: unknown): number {
  if (typeof v === "number") return v;
  if (typeof v === "boolean") return v ? 1 : 0;
  if (typeof v === "string") {
    const n = v.trim() === "" ? NaN : Number(v);
    if (Number.isNaN(n)) throw new EvalFailure(`${fn}() cannot convert ${JSON.stringify(v)} to a number`);
    return n;
  }
  return wrongType(fn, "a number, string or boolean", v);
}

function factorial(n: number): number {
  if (n < 0) throw new EvalFailure(`factorial() expects a non-negative integer, got ${n}`);
  let r = 1;
  for (let i = 2; i <= n; i++) r *= i;
  return r;
}

/** The SDK's `string(x)`: strings as-is, numbers and booleans as text, arrays/objects as JSON, null → "unknown" (Go's default case). */
function stringFn(v: unknown): string {
  if (v === null || v === undefined) return "unknown";
  return toText(v);
}

/** Every callable function by lowercase name. Source per entry: ajson math.go, the v0.1.6 fork, the SDK. */
export const FUNCTIONS: ReadonlyMap<string, FunctionDef> = new Map<string, FunctionDef>([
  // ajson math.go (numeric, one argument)
  unary("abs", Math.abs),
  unary("acos", Math.acos),
  unary("acosh", Math.acosh),
  unary("asin", Math.asin),
  unary("asinh", Math.asinh),
  unary("atan", Math.atan),
  unary("atanh", Math.atanh),
  unary("cbrt", Math.cbrt),
  unary("ceil", Math.ceil),
  unary("cos", Math.cos),
  unary("cosh", Math.cosh),
  unary("exp", Math.exp),
  unary("exp2", (x) => Math.pow(2, x)),
  unary("expm1", Math.expm1),
  unary("floor", Math.floor),
  unary("log", Math.log),
  unary("log10", Math.log10),
  unary("log1p", Math.log1p),
  unary("log2", Math.log2),
  unary("round", goRound),
  unary("roundtoeven", roundToEven),
  unary("sin", Math.sin),
  unary("sinh", Math.sinh),
  unary("sqrt", Math.sqrt),
  unary("tan", Math.tan),
  unary("tanh", Math.tanh),
  unary("trunc", Math.trunc),
  ["pow10", { minArgs: 1, maxArgs: 1, call: (a) => Math.pow(10, int("pow10", a[0])) }],
  ["factorial", { minArgs: 1, maxArgs: 1, call: (a) => factorial(int("factorial", a[0])) }],
  // ajson containers
  ["length", { minArgs: 1, maxArgs: 1, call: (a) => length(a[0]) }],
  ["size", { minArgs: 1, maxArgs: 1, call: (a) => length(a[0]) }],
  ["first", { minArgs: 1, maxArgs: 1, call: (a) => arr("first", a[0])[0] ?? null }],
  ["last", { minArgs: 1, maxArgs: 1, call: (a) => { const v = arr("last", a[0]); return v[v.length - 1] ?? null; } }],
  ["sum", { minArgs: 1, maxArgs: 1, call: (a) => sum("sum", a[0]) }],
  ["avg", { minArgs: 1, maxArgs: 1, call: (a) => { const n = elements("avg", a[0]).length; return n === 0 ? 0 : sum("avg", a[0]) / n; } }],
  ["not", { minArgs: 1, maxArgs: 1, call: (a) => !truthy(a[0]) }],
  // base64 (standard alphabet; b64encoden without padding)
  strFn("b64encode", (s) => Buffer.from(utf8.encode(s)).toString("base64")),
  strFn("b64encoden", (s) => Buffer.from(utf8.encode(s)).toString("base64").replace(/=+$/, "")),
  strFn("b64decode", b64decode),
  // v0.1.6 fork string helpers
  strFn("upper", (s) => s.toUpperCase()),
  strFn("lower", (s) => s.toLowerCase()),
  strFn("trim", (s) => s.trim()),
  ["reverse", {
    minArgs: 1, maxArgs: 1,
    call: (a) => Array.isArray(a[0]) ? [...a[0]].reverse() : Array.from(str("reverse", a[0])).reverse().join(""),
  }],
  ["split", { minArgs: 2, maxArgs: 2, call: (a) => str("split", a[0]).split(str("split", a[1])) }],
  ["join", { minArgs: 2, maxArgs: 2, call: (a) => arr("join", a[0]).map(toText).join(str("join", a[1])) }],
  ["contains", {
    minArgs: 2, maxArgs: 2,
    call: (a) => {
      const [hay, needle] = a;
      if (Array.isArray(hay)) return hay.some((e) => deepEqual(e, needle));
      return str("contains", hay).includes(str("contains", needle));
    },
  }],
  ["hasprefix", { minArgs: 2, maxArgs: 2, call: (a) => str("hasprefix", a[0]).startsWith(str("hasprefix", a[1])) }],
  ["hassuffix", { minArgs: 2, maxArgs: 2, call: (a) => str("hassuffix", a[0]).endsWith(str("hassuffix", a[1])) }],
  ["replace", { minArgs: 3, maxArgs: 3, call: (a) => str("replace", a[0]).replaceAll(str("replace", a[1]), str("replace", a[2])) }],
  ["substr", {
    minArgs: 2, maxArgs: 3,
    call: (a) => {
      const s = str("substr", a[0]);
      const start = Math.min(Math.max(int("substr", a[1]), 0), s.length);
      const len = a.length > 2 ? Math.max(int("substr", a[2]), 0) : s.length;
      return s.slice(start, start + len);
    },
  }],
  ["index", { minArgs: 2, maxArgs: 2, call: (a) => str("index", a[0]).indexOf(str("index", a[1])) }],
  // conversions (tinyhost extension, cheap and commonly needed)
  ["number", { minArgs: 1, maxArgs: 1, call: (a) => toNumber("number", a[0]) }],
  ["int", { minArgs: 1, maxArgs: 1, call: (a) => Math.trunc(toNumber("int", a[0])) }],
  // SDK (pkg/evaluator/functions.go); Go's parser needs an argument for now(): now($)
  ["now", { minArgs: 0, maxArgs: 1, call: () => Math.floor(Date.now() / 1000) }],
  ["rfc3339", {
    minArgs: 1, maxArgs: 1,
    call: (a) => formatUnixSeconds(typeof a[0] === "number" && Number.isFinite(a[0]) ? a[0] : Date.now() / 1000),
  }],
  ["string", { minArgs: 1, maxArgs: 1, call: (a) => stringFn(a[0]) }],
]);

/** Named constants (ajson math.go), lowercase; `true`/`false`/`null` are constants too. */
export const CONSTANTS: ReadonlyMap<string, number | boolean | null> = new Map<string, number | boolean | null>([
  ["true", true],
  ["false", false],
  ["null", null],
  ["e", Math.E],
  ["pi", Math.PI],
  ["phi", (1 + Math.sqrt(5)) / 2],
  ["sqrt2", Math.SQRT2],
  ["sqrte", Math.sqrt(Math.E)],
  ["sqrtpi", Math.sqrt(Math.PI)],
  ["sqrtphi", Math.sqrt((1 + Math.sqrt(5)) / 2)],
  ["ln2", Math.LN2],
  ["log2e", Math.LOG2E],
  ["ln10", Math.LN10],
  ["log10e", Math.LOG10E],
]);
