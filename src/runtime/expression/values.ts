/**
 * JSON value helpers shared by operators, functions and the template: type names, truthiness,
 * deep equality, text formatting and cloning. Values are plain JS JSON values
 * (null | boolean | number | string | array | object); `undefined` counts as null.
 */

/** A JSON object as produced by `JSON.parse`. */
export type JsonObject = { [key: string]: unknown };

/** True for a plain JSON object (not null, not an array). */
export function isObject(value: unknown): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The JSON type name of a value, used in error messages: null|boolean|number|string|array|object. */
export function typeName(value: unknown): string {
  if (value === null || value === undefined) return "null";
  if (Array.isArray(value)) return "array";
  const t = typeof value;
  return t === "object" ? "object" : t;
}

/**
 * Truthiness as ajson's `boolean()` (used by `&&`, `||`, `!`, `not`, `? :` and filters):
 * bool itself; number ≠ 0; string non-empty; null false; array/object non-empty.
 */
export function truthy(value: unknown): boolean {
  if (value === null || value === undefined) return false;
  switch (typeof value) {
    case "boolean":
      return value;
    case "number":
      return value !== 0 && !Number.isNaN(value);
    case "string":
      return value !== "";
    case "object":
      return Array.isArray(value) ? value.length > 0 : Object.keys(value).length > 0;
    default:
      return true;
  }
}

/**
 * Deep JSON equality (ajson `Node.Eq`): values of different JSON types are unequal (no error,
 * no coercion); arrays element-wise; objects by the same key set and equal values.
 */
export function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  const an = a === null || a === undefined;
  const bn = b === null || b === undefined;
  if (an || bn) return an && bn;
  if (typeof a !== "object" || typeof b !== "object") return false;
  const aa = Array.isArray(a);
  if (aa !== Array.isArray(b)) return false;
  if (aa) {
    const x = a as unknown[];
    const y = b as unknown[];
    if (x.length !== y.length) return false;
    for (let i = 0; i < x.length; i++) if (!deepEqual(x[i], y[i])) return false;
    return true;
  }
  const x = a as JsonObject;
  const y = b as JsonObject;
  const keys = Object.keys(x);
  if (keys.length !== Object.keys(y).length) return false;
  for (const k of keys) {
    if (!Object.prototype.hasOwnProperty.call(y, k) || !deepEqual(x[k], y[k])) return false;
  }
  return true;
}

/**
 * Formats a number as JSON does (`3`, `1.5`, `1e+21`); NaN and ±Infinity, which JSON cannot
 * carry, print as Go does (`NaN`, `+Inf`, `-Inf`). Deliberately not Go's `%v`
 * (which prints 1000000 as `1e+06`) — docs/compatibility.md "Expressions".
 */
export function formatNumber(n: number): string {
  if (Number.isFinite(n)) return String(n);
  if (Number.isNaN(n)) return "NaN";
  return n > 0 ? "+Inf" : "-Inf";
}

/**
 * Text of a value for string interpolation and `string()`: strings as-is, null → "",
 * numbers via {@link formatNumber}, booleans `true`/`false`, arrays/objects as JSON text.
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

/** Own keys of an object in ajson order (sorted by key), used by wildcards and recursive descent. */
export function sortedKeys(obj: JsonObject): string[] {
  const keys = Object.keys(obj);
  keys.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  return keys;
}
