/**
 * Go's `encoding/json` `omitempty`, for components whose published configuration and emitted
 * payloads must read as the Go component's `json.Marshal` of its struct (runtime-spec §10.1: a
 * port's configuration is the marshalled value; an edge's expressions read the marshalled source
 * message, where an omitted field is a missing path, not its zero value). Go's `json.Marshal` of a
 * JSON value itself is `marshalGoJson` in json.ts.
 */

/**
 * Go's "empty value" for `omitempty` on a concrete (non-interface) field: `false`, `0`, `""`, a
 * nil or empty slice or map. A struct is never empty (Go keeps `{}`), so objects count only when
 * they stand for a map: pass such keys in `maps` of {@link omitEmpty}.
 */
function isEmptyScalarOrList(v: unknown): boolean {
  return v === undefined || v === null || v === false || v === 0 || v === "" || (Array.isArray(v) && v.length === 0);
}

/** Which fields of {@link omitEmpty} carry `omitempty`, by the Go type of the field. */
export interface OmitEmptyFields<T> {
  /** Scalar and slice fields (`bool`, numbers, `string`, `[]T`): dropped when `false`, `0`, `""`, `[]` or null. */
  values?: readonly (keyof T)[];
  /** Interface fields (`any`, e.g. `context`): dropped only when nil (`null`/absent); a `0` or `""` inside stays, as in Go. */
  interfaces?: readonly (keyof T)[];
  /** Map fields (`map[string]T`): dropped when null or without keys. */
  maps?: readonly (keyof T)[];
}

/**
 * A shallow copy of `value` without the fields Go's `json.Marshal` omits (`omitempty` on them and
 * an empty value, per the field's Go kind in `fields`). Key order is kept. Source of the rules:
 * Go `encoding/json` "The 'omitempty' option specifies that the field should be omitted from the
 * encoding if the field has an empty value, defined as false, 0, a nil pointer, a nil interface
 * value, and any array, slice, map, or string of length zero."
 *
 * @example
 * omitEmpty({ context: null, iteration: 0, reason: "x" }, { interfaces: ["context"], values: ["iteration"] }) // → { reason: "x" }
 */
export function omitEmpty<T extends object>(value: T, fields: OmitEmptyFields<T>): Partial<T> {
  const out: Partial<T> = { ...value };
  for (const k of fields.values ?? []) if (isEmptyScalarOrList(out[k])) delete out[k];
  for (const k of fields.interfaces ?? []) if (out[k] === undefined || out[k] === null) delete out[k];
  for (const k of fields.maps ?? []) {
    const v = out[k] as unknown;
    if (v === undefined || v === null || (typeof v === "object" && Object.keys(v).length === 0)) delete out[k];
  }
  return out;
}
