/**
 * Go's text forms of JSON values, for components that show values the way the Go components do
 * (Go `fmt` `%v` and `%T`, Go `encoding/json` `Marshal`). The values are JSON decoded into Go's
 * `any`: `float64`, `string`, `bool`, `nil`, `[]interface {}`, `map[string]interface {}`.
 */
import { formatGoFloat } from "../runtime/expression/goformat.ts";
import { compareStrings } from "../runtime/expression/gostring.ts";

/**
 * Go's `fmt.Sprintf("%v", v)`: numbers as `%g` with the shortest digits (`3`, `1.5`, `1e+06`),
 * strings unquoted, `<nil>`, lists `[a b]`, objects `map[k:v …]` with keys in Go's string order
 * (fmt sorts map keys).
 * @throws TypeError for a value that is not JSON data (a function, a symbol, a bigint).
 */
export function formatGoValue(v: unknown): string {
  if (v === null || v === undefined) return "<nil>";
  if (typeof v === "string") return v;
  if (typeof v === "number") return formatGoFloat(v);
  if (typeof v === "boolean") return v ? "true" : "false";
  if (Array.isArray(v)) return `[${v.map(formatGoValue).join(" ")}]`;
  if (typeof v === "object") {
    const o = v as Record<string, unknown>;
    return `map[${Object.keys(o)
      .sort(compareStrings)
      .map((k) => `${k}:${formatGoValue(o[k])}`)
      .join(" ")}]`;
  }
  throw new TypeError(`formatGoValue: ${typeof v} is not JSON data`);
}

/** Go's order of strings (`<`, `sort.Strings`): UTF-8 byte order, which JS's default sort is not above U+FFFF. */
export const compareGoStrings: (a: string, b: string) => number = compareStrings;

/** Go's `fmt.Sprintf("%T", v)` of a JSON value decoded into `any` (`float64`, `map[string]interface {}`, `<nil>`, …). */
export function goTypeName(v: unknown): string {
  if (v === null || v === undefined) return "<nil>";
  if (typeof v === "string") return "string";
  if (typeof v === "number") return "float64";
  if (typeof v === "boolean") return "bool";
  if (Array.isArray(v)) return "[]interface {}";
  return "map[string]interface {}";
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
