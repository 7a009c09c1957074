/**
 * Go's `encoding/json` `omitempty`, for components whose published configuration and emitted
 * payloads must read as the Go component's `json.Marshal` of its struct (runtime-spec §10.1: a
 * port's configuration is the marshalled value; an edge's expressions read the marshalled source
 * message, where an omitted field is a missing path, not its zero value), and Go's `json.Marshal`
 * bytes of a JSON value (what the Go components write into `status.metadata`).
 */
import { compareStrings } from "../runtime/expression/gostring.ts";

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

/** Go `encoding/json`'s escapes inside strings beyond JSON's own: `<`, `>`, `&`, U+2028, U+2029 (HTML-safe output). */
function goQuote(s: string): string {
  return JSON.stringify(s).replace(/[<>&\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
}

/**
 * Go's `json.Marshal` of a JSON value decoded into `any`: object keys sorted in Go's string order
 * (Go sorts map keys), `<`, `>`, `&`, U+2028 and U+2029 escaped as `\u003c`…, numbers as JSON.stringify
 * writes them (the same shortest form Go's encoder uses). What the Go components write into
 * `status.metadata` (kv records, inject's config, collect's groups), byte for byte.
 * @throws TypeError for a non-finite number or a value that is not JSON data (Go's `UnsupportedValueError`).
 */
export function marshalGoJson(v: unknown): string {
  if (v === null || v === undefined) return "null";
  switch (typeof v) {
    case "string":
      return goQuote(v);
    case "boolean":
      return v ? "true" : "false";
    case "number":
      if (!Number.isFinite(v)) throw new TypeError(`json: unsupported value: ${v}`);
      return JSON.stringify(v);
    case "object": {
      if (Array.isArray(v)) return `[${v.map(marshalGoJson).join(",")}]`;
      const o = v as Record<string, unknown>;
      const parts: string[] = [];
      for (const k of Object.keys(o).sort(compareStrings)) if (o[k] !== undefined) parts.push(`${goQuote(k)}:${marshalGoJson(o[k])}`);
      return `{${parts.join(",")}}`;
    }
    default:
      throw new TypeError(`json: unsupported type: ${typeof v}`);
  }
}
