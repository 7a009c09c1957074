/**
 * Operators on JSON values (runtime-spec §2.11): ajson arithmetic/comparison plus the SDK's
 * `+`/`-` overrides for RFC3339 times and Go durations (pkg/evaluator/functions.go) and `=~`.
 *
 * Rules: arithmetic needs numbers (else an evaluation error naming the operand types);
 * `+` with a string concatenates strings, numbers and booleans; comparisons of different JSON
 * types are false, never an error (ajson `Node.Eq/Le`); `==`/`!=` compare deeply.
 */
import type { BinaryOp } from "./ast.ts";
import { EvalFailure } from "./errors.ts";
import { formatRFC3339, formatSeconds, parseGoDuration, parseRFC3339 } from "./time.ts";
import { deepEqual, toText, typeName } from "./values.ts";

/** A compiled binary operator (not `&&`/`||`, which short-circuit in evaluate.ts). */
export type BinaryFn = (left: unknown, right: unknown) => unknown;

function mismatch(op: string, left: unknown, right: unknown): never {
  throw new EvalFailure(`cannot apply ${JSON.stringify(op)} to ${typeName(left)} and ${typeName(right)}`);
}

function numbers(op: string, left: unknown, right: unknown): void {
  if (typeof left !== "number" || typeof right !== "number") mismatch(op, left, right);
}

function integers(op: string, left: unknown, right: unknown): [bigint, bigint] {
  numbers(op, left, right);
  const l = left as number;
  const r = right as number;
  if (!Number.isInteger(l) || !Number.isInteger(r)) {
    throw new EvalFailure(`${JSON.stringify(op)} needs integers, got ${l} and ${r}`);
  }
  return [BigInt(l), BigInt(r)];
}

/** Duration text can only end in a unit letter (or be "0"); skips BigInt work for ordinary text. */
function mayBeDuration(s: string): boolean {
  const last = s.charCodeAt(s.length - 1);
  return last === 115 /* s */ || last === 109 /* m */ || last === 104 /* h */ || s === "0";
}

/** `time ± duration` → RFC3339, `duration ± duration` → "<seconds>s", else undefined. */
function timeArithmetic(left: string, right: string, sign: 1n | -1n): string | undefined {
  if (!mayBeDuration(right)) return undefined;
  const time = parseRFC3339(left);
  if (time !== undefined) {
    const d = parseGoDuration(right);
    return d === undefined ? undefined : formatRFC3339({ ns: time.ns + sign * d, offsetMinutes: time.offsetMinutes });
  }
  if (!mayBeDuration(left)) return undefined;
  const dl = parseGoDuration(left);
  if (dl === undefined) return undefined;
  const dr = parseGoDuration(right);
  return dr === undefined ? undefined : formatSeconds(dl + sign * dr);
}

function isConcatenable(v: unknown): boolean {
  const t = typeof v;
  return t === "string" || t === "number" || t === "boolean";
}

function add(left: unknown, right: unknown): unknown {
  if (typeof left === "number" && typeof right === "number") return left + right;
  if (typeof left === "string" && typeof right === "string") {
    return timeArithmetic(left, right, 1n) ?? left + right;
  }
  if ((typeof left === "string" || typeof right === "string") && isConcatenable(left) && isConcatenable(right)) {
    return toText(left) + toText(right);
  }
  return mismatch("+", left, right);
}

function subtract(left: unknown, right: unknown): unknown {
  if (typeof left === "number" && typeof right === "number") return left - right;
  if (typeof left === "string" && typeof right === "string") {
    const r = timeArithmetic(left, right, -1n);
    if (r !== undefined) return r;
  }
  return mismatch("-", left, right);
}

function ordered(test: (c: number) => boolean): BinaryFn {
  return (left, right) => {
    if (typeof left === "number" && typeof right === "number") {
      return test(left < right ? -1 : left > right ? 1 : left === right ? 0 : NaN);
    }
    if (typeof left === "string" && typeof right === "string") {
      return test(left < right ? -1 : left > right ? 1 : 0);
    }
    return false; // different or unordered types: false, not an error (ajson Node.Le)
  };
}

const regexCache = new Map<string, RegExp>();
const REGEX_CACHE_LIMIT = 256;

/**
 * Compiles a Go (RE2) pattern as a JS RegExp. A leading inline flag group such as `(?i)` — common
 * in Go patterns and not valid JS — becomes RegExp flags.
 *
 * @throws EvalFailure when the pattern is not a valid regular expression
 */
export function compileRegex(pattern: string): RegExp {
  const cached = regexCache.get(pattern);
  if (cached !== undefined) return cached;
  let source = pattern;
  let flags = "u";
  const inline = /^\(\?([imsU]+)\)/.exec(source);
  if (inline !== null) {
    source = source.slice(inline[0].length);
    for (const f of inline[1] as string) if (f !== "U" && !flags.includes(f)) flags += f;
  }
  let re: RegExp;
  try {
    re = new RegExp(source, flags);
  } catch (err) {
    throw new EvalFailure(`invalid regular expression ${JSON.stringify(pattern)}: ${(err as Error).message}`);
  }
  if (regexCache.size >= REGEX_CACHE_LIMIT) regexCache.clear();
  regexCache.set(pattern, re);
  return re;
}

/** `text =~ pattern`: true when the pattern matches anywhere in text (Go `regexp.MatchString`); non-strings → false. */
export function regexMatch(left: unknown, right: unknown): boolean {
  if (typeof left !== "string" || typeof right !== "string") return false;
  return compileRegex(right).test(left);
}

/** Binary operators except `&&`/`||`. */
export const BINARY: Readonly<Record<Exclude<BinaryOp, "&&" | "||">, BinaryFn>> = {
  "+": add,
  "-": subtract,
  "*": (l, r) => (numbers("*", l, r), (l as number) * (r as number)),
  "/": (l, r) => {
    numbers("/", l, r);
    if (r === 0) throw new EvalFailure("division by zero");
    return (l as number) / (r as number);
  },
  "%": (l, r) => {
    const [a, b] = integers("%", l, r);
    if (b === 0n) throw new EvalFailure("division by zero");
    return Number(a % b);
  },
  "**": (l, r) => (numbers("**", l, r), Math.pow(l as number, r as number)),
  "<<": (l, r) => {
    const [a, b] = integers("<<", l, r);
    if (b < 0n) throw new EvalFailure(`negative shift count ${b}`);
    return Number(BigInt.asIntN(64, a << b));
  },
  ">>": (l, r) => {
    const [a, b] = integers(">>", l, r);
    if (b < 0n) throw new EvalFailure(`negative shift count ${b}`);
    return Number(a >> b);
  },
  "&": (l, r) => {
    const [a, b] = integers("&", l, r);
    return Number(a & b);
  },
  "&^": (l, r) => {
    const [a, b] = integers("&^", l, r);
    return Number(a & ~b);
  },
  "|": (l, r) => {
    const [a, b] = integers("|", l, r);
    return Number(a | b);
  },
  "^": (l, r) => {
    const [a, b] = integers("^", l, r);
    return Number(a ^ b);
  },
  "==": (l, r) => deepEqual(l, r),
  "!=": (l, r) => !deepEqual(l, r),
  "<": ordered((c) => c < 0),
  "<=": ordered((c) => c <= 0),
  ">": ordered((c) => c > 0),
  ">=": ordered((c) => c >= 0),
  "=~": regexMatch,
};
