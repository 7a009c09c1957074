/** Plain-JSON shapes shared by the schema module. */

/** A JSON Schema (or sub-schema) as a plain object: keyword → value. */
export type JsonSchemaObject = { [keyword: string]: unknown };

/** True for a non-null, non-array object (a JSON object or a schema object). */
export function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}
