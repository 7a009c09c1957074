/** The two tests for "an object to walk as key → value" that JSON-shaped code needs. */

/** True for a non-null, non-array object: a JSON object as `JSON.parse` gives one (schema objects, manifests, merge patches). */
export function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** True when `v`'s prototype is `Object.prototype` or null: an object literal, not a class instance, Date, Map or array. */
export function hasPlainPrototype(v: object): v is Record<string, unknown> {
  const proto = Object.getPrototypeOf(v) as unknown;
  return proto === Object.prototype || proto === null;
}
