/** Plain-JSON shapes shared by the schema module. */

/** A JSON Schema (or sub-schema) as a plain object: keyword → value. */
export type JsonSchemaObject = { [keyword: string]: unknown };
