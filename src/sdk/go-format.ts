/**
 * Go's `fmt` forms of JSON values (`%v`, `%T`) and Go's string order, for components that show or
 * sort values the way the Go components do. The values are JSON decoded into Go's `any`: `float64`,
 * `string`, `bool`, `nil`, `[]interface {}`, `map[string]interface {}`. Go's `json.Marshal` of such
 * values is in go-json.ts.
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
