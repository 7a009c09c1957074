/**
 * Binary operators with Go's semantics: ajson v0.1.6 math.go `operations`, and the SDK's `+`/`-`
 * (pkg/evaluator/functions.go) that add RFC3339 times and Go durations.
 *
 * - `+`: string + string concatenates, unless one side is an RFC3339 time and the other a
 *   duration (→ time) or both are durations (→ `"<seconds>s"`); number + number adds; anything
 *   else fails (`'a' + 1`, `1 + 'a'`, `null + 1`).
 * - `-`: number − number; time − duration, duration − time (= time − duration), duration −
 *   duration; anything else fails.
 * - `* / **`: numbers; `/` by zero fails. `% << >> & | ^ &^`: integers (Go `int`, 64-bit); `%` by
 *   zero fails (Go panics), a negative shift count fails.
 * - `== !=`: false when either side is MISSING (both operators!); otherwise ajson `Eq`.
 * - `< <= > >=`: false when either side is MISSING or the types differ; ajson `Le`…
 * - `=~`: both strings (RE2, regex.ts); `&&`, `||`: ajson `boolean()` of both sides, which were
 *   both evaluated (no short circuit, as Go's RPN evaluation).
 */
import type { BinaryOp } from "./ast.ts";
import { EvalFailure } from "./errors.ts";
import { concat } from "../../golang/string.ts";
import { pow } from "./gomath/index.ts";
import { compileRegex } from "./regex.ts";
import { formatRFC3339, formatSecondsSum, parseGoDuration, parseRFC3339 } from "./time.ts";
import { goEqual, goOrder, typeName, truthy, UnreadableNumber } from "./values.ts";

/** A compiled binary operator. */
export type BinaryFn = (left: unknown, right: unknown) => unknown;

const MIN_INT = -(2 ** 63);

function mismatch(op: string, left: unknown, right: unknown, want: string): never {
  for (const v of [left, right]) if (v instanceof UnreadableNumber) throw new EvalFailure(v.reason);
  void want;
  throw new EvalFailure(`cannot apply ${JSON.stringify(op)} to ${typeName(left)} and ${typeName(right)}`);
}

/** Both operands as numbers (ajson `_floats`). */
function numbers(op: string, left: unknown, right: unknown): [number, number] {
  if (typeof left !== "number" || typeof right !== "number") mismatch(op, left, right, "numbers");
  return [left as number, right as number];
}

/** ajson `getInteger` of both: integral numbers as Go's `int(float64)` (out of range → -2^63). */
function integers(op: string, left: unknown, right: unknown): [bigint, bigint] {
  const [a, b] = numbers(op, left, right);
  for (const n of [a, b]) {
    if (n % 1 !== 0 || !Number.isFinite(n)) throw new EvalFailure(`${JSON.stringify(op)} needs integers, got ${a} and ${b}`);
  }
  const int = (n: number) => (n >= 2 ** 63 || n < MIN_INT ? -(1n << 63n) : BigInt(n));
  return [int(a), int(b)];
}

function shiftCount(op: string, b: bigint): bigint {
  if (b < 0n) throw new EvalFailure(`${JSON.stringify(op)} needs a non-negative shift count, got ${b}`);
  return b;
}

/** A 64-bit signed result back to float64, as Go's `float64(int)`. */
function toFloat(n: bigint): number {
  return Number(BigInt.asIntN(64, n));
}

/** Duration text can only end in a unit letter (or be "0"); skips parsing ordinary text. */
function mayBeDuration(s: string): boolean {
  const last = s.charCodeAt(s.length - 1);
  return last === 115 /* s */ || last === 109 /* m */ || last === 104 /* h */ || s === "0" || s === "-0" || s === "+0";
}

function duration(s: string): bigint | undefined {
  return mayBeDuration(s) ? parseGoDuration(s) : undefined;
}

/**
 * The SDK's time rules for two strings: `time ± duration`, `duration + time`,
 * `duration - time` (the time minus the duration), `duration ± duration`; undefined otherwise.
 */
function timeArithmetic(left: string, right: string, sign: 1 | -1): string | undefined {
  const rd = duration(right);
  if (rd !== undefined) {
    const t = parseRFC3339(left);
    if (t !== undefined) return formatRFC3339({ ns: t.ns + BigInt(sign) * rd, offsetSeconds: t.offsetSeconds });
  }
  const ld = duration(left);
  if (ld !== undefined) {
    const t = parseRFC3339(right);
    if (t !== undefined) return formatRFC3339({ ns: t.ns + BigInt(sign) * ld, offsetSeconds: t.offsetSeconds });
    if (rd !== undefined) return formatSecondsSum(ld, rd, sign);
  }
  return undefined;
}

function add(left: unknown, right: unknown): unknown {
  if (typeof left === "string") {
    if (typeof right !== "string") mismatch("+", left, right, "two strings or two numbers");
    return timeArithmetic(left, right as string, 1) ?? concat(left, right as string);
  }
  const [a, b] = numbers("+", left, right);
  return a + b;
}

function subtract(left: unknown, right: unknown): unknown {
  if (typeof left === "string" && typeof right === "string") {
    const t = timeArithmetic(left, right, -1);
    if (t !== undefined) return t;
    throw new EvalFailure(
      `cannot apply "-" to two strings unless they are a time and a duration or two durations, got ${JSON.stringify(left)} and ${JSON.stringify(right)}`,
    );
  }
  const [a, b] = numbers("-", left, right);
  return a - b;
}

function compare(test: (c: number) => boolean): BinaryFn {
  return (l, r) => {
    if (typeof l === "number" && typeof r === "number") return test(l < r ? -1 : l > r ? 1 : l === r ? 0 : NaN);
    return l === undefined || r === undefined ? false : goOrder(l, r, test);
  };
}

/** Binary operators except `=~` with a constant pattern (compiled once in evaluate.ts). */
export const BINARY: Readonly<Record<BinaryOp, BinaryFn>> = {
  "+": add,
  "-": subtract,
  "*": (l, r) => {
    const [a, b] = numbers("*", l, r);
    return a * b;
  },
  "/": (l, r) => {
    const [a, b] = numbers("/", l, r);
    if (b === 0) throw new EvalFailure("division by zero");
    return a / b;
  },
  "**": (l, r) => {
    const [a, b] = numbers("**", l, r);
    return pow(a, b);
  },
  "%": (l, r) => {
    const [a, b] = integers("%", l, r);
    // Go panics (integer divide by zero); we report it.
    if (b === 0n) throw new EvalFailure("division by zero");
    return toFloat(a % b);
  },
  "<<": (l, r) => {
    const [a, b] = integers("<<", l, r);
    return shiftCount("<<", b) >= 64n ? 0 : toFloat(a << b);
  },
  ">>": (l, r) => {
    const [a, b] = integers(">>", l, r);
    return toFloat(a >> (shiftCount(">>", b) >= 64n ? 63n : b));
  },
  "&": (l, r) => {
    const [a, b] = integers("&", l, r);
    return toFloat(a & b);
  },
  "|": (l, r) => {
    const [a, b] = integers("|", l, r);
    return toFloat(a | b);
  },
  "^": (l, r) => {
    const [a, b] = integers("^", l, r);
    return toFloat(a ^ b);
  },
  "&^": (l, r) => {
    const [a, b] = integers("&^", l, r);
    return toFloat(a & ~b);
  },
  "==": (l, r) => (l === undefined || r === undefined ? false : goEqual(l, r)),
  "!=": (l, r) => (l === undefined || r === undefined ? false : !goEqual(l, r)),
  "<": compare((c) => c < 0),
  "<=": compare((c) => c <= 0),
  ">": compare((c) => c > 0),
  ">=": compare((c) => c >= 0),
  "=~": (l, r) => {
    if (typeof l !== "string" || typeof r !== "string") mismatch("=~", l, r, "a string and a pattern string");
    return compileRegex(r as string).test(l as string);
  },
  "&&": (l, r) => truthy(l) && truthy(r),
  "||": (l, r) => truthy(l) || truthy(r),
};
