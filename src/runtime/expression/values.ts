/**
 * The value model of the evaluator and ajson's rules over it (ajson v0.1.6 node.go, math.go).
 *
 * Values are plain JSON values (null | boolean | number | string | array | object) plus two
 * markers Go has and JSON has not:
 * - `undefined` — MISSING: a path that matched nothing (ajson pushes a nil node). Comparisons
 *   with it are false (`$.missing == null` is false in Go), most functions treat it apart from
 *   null, and a result that is still missing becomes null.
 * - {@link UnreadableNumber} — a numeric node whose value cannot be read: number text beyond
 *   float64 (`1e400`, in the payload or a literal; Go's ParseFloat fails) and the int-typed zero
 *   ajson's `pow10`/`factorial` return for a missing argument. Reading it as a number fails;
 *   comparing its type does not.
 */
import { compareStrings } from "../../golang/string.ts";
import { EvalFailure } from "./errors.ts";

/** A JSON object as produced by `JSON.parse`. */
export type JsonObject = { [key: string]: unknown };

/** A numeric value Go cannot read (see the module comment). */
export class UnreadableNumber {
  /**
   * @param reason the error Go reports on reading it, e.g.
   *   `strconv.ParseFloat: parsing "1e400": value out of range`
   */
  constructor(readonly reason: string) {}
}

const withUnreadable = new WeakSet<object>();

/**
 * Marks a decoded payload (object or array root) as holding an unreadable number somewhere, so
 * an expression result taken from it is checked (see {@link unpackProblem}); payloads without
 * one skip that walk.
 */
export function markUnreadableNumbers(root: object): void {
  withUnreadable.add(root);
}

/** True for a payload marked by {@link markUnreadableNumbers}. */
export function hasUnreadableNumbers(root: unknown): boolean {
  return typeof root === "object" && root !== null && withUnreadable.has(root);
}

/** True for a plain JSON object (not null, not an array, not an unreadable number). */
export function isObject(value: unknown): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value) && !(value instanceof UnreadableNumber);
}

/** ajson node types; MISSING for `undefined`. */
export type GoType = "missing" | "null" | "bool" | "number" | "string" | "array" | "object";

/** The ajson node type of a value (an unreadable number is a number). */
export function goType(value: unknown): GoType {
  if (value === undefined) return "missing";
  if (value === null) return "null";
  switch (typeof value) {
    case "boolean":
      return "bool";
    case "number":
      return "number";
    case "string":
      return "string";
    default:
      if (Array.isArray(value)) return "array";
      return value instanceof UnreadableNumber ? "number" : "object";
  }
}

/**
 * What a value is, for messages: `null`, `boolean`, `number`, `string`, `array`, `object`, or
 * `missing value` for a path that matched nothing.
 */
export function typeName(value: unknown): string {
  const t = goType(value);
  return t === "missing" ? "missing value" : t === "bool" ? "boolean" : t;
}

/**
 * ajson `GetNumeric`: the number, or an EvalFailure `<context> needs a number, got <type>` (the
 * read error itself for an unreadable number).
 */
export function numeric(value: unknown, context = "the operation"): number {
  if (typeof value === "number") return value;
  if (value instanceof UnreadableNumber) throw new EvalFailure(value.reason);
  throw new EvalFailure(`${context} needs a number, got ${typeName(value)}`);
}

/** ajson `GetString`: the string, or an EvalFailure `<context> needs a string, got <type>`. */
export function stringOf(value: unknown, context = "the operation"): string {
  if (typeof value === "string") return value;
  throw new EvalFailure(`${context} needs a string, got ${typeName(value)}`);
}

/** Size of a container (ajson `Size`): elements or members; 0 for anything else. */
export function size(value: unknown): number {
  if (Array.isArray(value)) return value.length;
  if (isObject(value)) return Object.keys(value).length;
  return 0;
}

/**
 * ajson `boolean()` — the truth of `&&`, `||`, `not` and filters: bool itself; number ≠ 0 (NaN
 * is true); string non-empty; null and missing false; array/object non-empty.
 * @throws EvalFailure for an unreadable number
 */
export function truthy(value: unknown): boolean {
  const scalar = scalarTruth(value);
  if (scalar !== undefined) return scalar;
  if (value instanceof UnreadableNumber) throw new EvalFailure(value.reason);
  return size(value) > 0;
}

/**
 * The truth of a `? :` condition (ajson's ternary operation): missing, null, false, 0, "" and
 * empty arrays are false; everything else is true — also an empty object, NaN, and an
 * unreadable number reads as 0 (false). Never fails.
 */
export function ternaryTruthy(value: unknown): boolean {
  const scalar = scalarTruth(value);
  if (scalar !== undefined) return scalar;
  if (value instanceof UnreadableNumber) return false;
  return Array.isArray(value) ? value.length > 0 : true;
}

/**
 * The truth both {@link truthy} and {@link ternaryTruthy} give a scalar: bool itself, number ≠ 0,
 * string non-empty, null and missing false; undefined for a container or an unreadable number,
 * where the two differ.
 */
function scalarTruth(value: unknown): boolean | undefined {
  switch (typeof value) {
    case "boolean":
      return value;
    case "number":
      return value !== 0;
    case "string":
      return value !== "";
    case "undefined":
      return false;
    default:
      return value === null ? false : undefined;
  }
}

/**
 * ajson `Node.Eq`: values of different types are unequal; numbers by float64 `==` (NaN ≠ NaN);
 * arrays element-wise; objects by the same key set and equal members.
 * @throws EvalFailure when a number compared with a number cannot be read
 */
export function goEqual(a: unknown, b: unknown): boolean {
  const ta = goType(a);
  if (ta !== goType(b)) return false;
  switch (ta) {
    case "null":
    case "missing":
      return true;
    case "number":
      return numeric(a) === numeric(b);
    case "array": {
      const x = a as unknown[];
      const y = b as unknown[];
      if (x.length !== y.length) return false;
      for (let i = 0; i < x.length; i++) if (!goEqual(x[i], y[i])) return false;
      return true;
    }
    case "object": {
      const x = a as JsonObject;
      const y = b as JsonObject;
      const keys = Object.keys(x);
      if (keys.length !== Object.keys(y).length) return false;
      for (const k of keys) {
        if (!Object.prototype.hasOwnProperty.call(y, k) || !goEqual(x[k], y[k])) return false;
      }
      return true;
    }
    default:
      return a === b;
  }
}

/**
 * ajson `Le`/`Leq`/`Ge`/`Geq`: numbers and strings (byte order) compare; values of different
 * types are not ordered (false); two values of another same type are an error.
 * @param test receives the comparison (<0, 0, >0; NaN for a NaN operand)
 * @throws EvalFailure for two booleans, nulls, arrays or objects
 */
export function goOrder(a: unknown, b: unknown, test: (c: number) => boolean): boolean {
  const ta = goType(a);
  if (ta !== goType(b)) return false;
  if (ta === "number") {
    const x = numeric(a);
    const y = numeric(b);
    return test(x < y ? -1 : x > y ? 1 : x === y ? 0 : NaN);
  }
  if (ta === "string") return test(compareStrings(a as string, b as string));
  throw new EvalFailure(`values of type ${typeName(a)} have no order (only numbers and strings compare with < <= > >=)`);
}

/**
 * Formats a number for interpolation: as JSON does (`3`, `1.5`, `1e+21`, `1000000`); NaN and
 * ±Infinity as Go prints them (`NaN`, `+Inf`, `-Inf`). Deliberately not Go's `%v`
 * (`1e+06`) — docs/compatibility.md "Expressions".
 */
export function formatNumber(n: number): string {
  if (Number.isFinite(n)) return String(n);
  if (Number.isNaN(n)) return "NaN";
  return n > 0 ? "+Inf" : "-Inf";
}

/**
 * Text of a value in an interpolated string: strings as-is, null/missing → "", numbers via
 * {@link formatNumber}, booleans `true`/`false`, arrays/objects as JSON text.
 */
export function toText(value: unknown): string {
  if (value === null || value === undefined) return "";
  switch (typeof value) {
    case "string":
      return value;
    case "number":
      return formatNumber(value);
    case "boolean":
      return value ? "true" : "false";
    default:
      return JSON.stringify(value) ?? "";
  }
}

/** A deep copy of a JSON value (arrays and plain objects copied; scalars returned). */
export function cloneJson(value: unknown): unknown {
  if (typeof value !== "object" || value === null) return value;
  if (Array.isArray(value)) {
    const out = new Array<unknown>(value.length);
    for (let i = 0; i < value.length; i++) out[i] = cloneJson(value[i]);
    return out;
  }
  if (value instanceof UnreadableNumber) return value;
  const out: JsonObject = {};
  for (const k of Object.keys(value)) setKey(out, k, cloneJson((value as JsonObject)[k]));
  return out;
}

/**
 * Sets an own property, also for the key `__proto__` (which plain assignment would turn into a
 * prototype change — a JSON configuration may legitimately contain it).
 */
export function setKey(target: JsonObject, key: string, value: unknown): void {
  if (key === "__proto__") {
    Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
  } else {
    target[key] = value;
  }
}

/** Own keys of an object in ajson order (sorted by key bytes), used by wildcards, `..` and sums. */
export function sortedKeys(obj: JsonObject): string[] {
  return Object.keys(obj).sort(compareStrings);
}

/** Values of a container in ajson `Inheritors` order: array elements, object members by sorted key. */
export function children(value: unknown): readonly unknown[] {
  if (Array.isArray(value)) return value;
  if (isObject(value)) return sortedKeys(value).map((k) => value[k]);
  return [];
}

/**
 * Why a value cannot be handed on as JSON, or undefined when it can: ajson `Unpack` fails on an
 * unreadable number anywhere inside it (Go then reports the field's expression as failed).
 */
export function unpackProblem(value: unknown): string | undefined {
  if (value instanceof UnreadableNumber) return value.reason;
  if (Array.isArray(value)) {
    for (const v of value) {
      const p = unpackProblem(v);
      if (p !== undefined) return p;
    }
  } else if (isObject(value)) {
    for (const k in value) {
      const p = unpackProblem(value[k]);
      if (p !== undefined) return p;
    }
  }
  return undefined;
}
