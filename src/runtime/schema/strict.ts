/**
 * Strict keyword check of a port schema: a keyword that is neither JSON Schema 2020-12 (plus the
 * draft-07 forms TypeBox still writes) nor a platform keyword is almost always a typo
 * (`maxLenght`), and the editor would silently ignore it. Checked once per schema, when its
 * decoder is compiled. Values of `default`, `examples`, `enum` and `const` are data, not schemas.
 */
import { isPlainObject } from "../../core/plain-object.ts";
import { PLATFORM_KEYWORDS } from "./keywords.ts";
import { TinyError } from "../../core/errors.ts";

/** A port schema that cannot be used: unknown keyword, malformed keyword value, unresolvable `$ref`. */
export class SchemaCompileError extends TinyError<"INVALID_SCHEMA"> {
  constructor(message: string, options?: { cause?: unknown }) {
    super("INVALID_SCHEMA", message, options);
    this.name = "SchemaCompileError";
  }
}

/** Keywords whose value is one schema. */
const SCHEMA_VALUED = [
  "additionalProperties",
  "additionalItems",
  "contains",
  "propertyNames",
  "unevaluatedItems",
  "unevaluatedProperties",
  "not",
  "if",
  "then",
  "else",
  "contentSchema",
];
/** Keywords whose value is a list of schemas. */
const SCHEMA_LISTS = ["allOf", "anyOf", "oneOf", "prefixItems"];
/** Keywords whose value maps names to schemas. */
const SCHEMA_MAPS = ["properties", "patternProperties", "$defs", "definitions", "dependentSchemas"];
/** Every other keyword a port schema may carry (JSON Schema 2020-12 core, applicator, validation, meta-data, format, content). */
const OTHER = [
  "$schema",
  "$id",
  "$ref",
  "$anchor",
  "$dynamicRef",
  "$dynamicAnchor",
  "$vocabulary",
  "$comment",
  "$recursiveRef",
  "$recursiveAnchor",
  "items",
  "dependencies",
  "type",
  "enum",
  "const",
  "multipleOf",
  "maximum",
  "exclusiveMaximum",
  "minimum",
  "exclusiveMinimum",
  "maxLength",
  "minLength",
  "pattern",
  "maxItems",
  "minItems",
  "uniqueItems",
  "maxContains",
  "minContains",
  "maxProperties",
  "minProperties",
  "required",
  "dependentRequired",
  "title",
  "description",
  "default",
  "deprecated",
  "readOnly",
  "writeOnly",
  "examples",
  "format",
  "contentEncoding",
  "contentMediaType",
];

const KNOWN = new Set<string>([...SCHEMA_VALUED, ...SCHEMA_LISTS, ...SCHEMA_MAPS, ...OTHER, ...PLATFORM_KEYWORDS]);
const TYPES = new Set(["string", "integer", "number", "boolean", "object", "array", "null"]);

/**
 * Walks `schema` and every sub-schema.
 * @throws SchemaCompileError naming the keyword and its JSON Pointer (`#/properties/a`) for an
 *   unknown keyword, an unknown `type`, or a schema-valued keyword holding something else.
 */
export function checkSchemaKeywords(schema: unknown, where = "#"): void {
  if (typeof schema === "boolean") return;
  if (!isPlainObject(schema)) throw new SchemaCompileError(`port schema does not compile: ${where} must be a schema object, got ${JSON.stringify(schema)}`);
  for (const [key, value] of Object.entries(schema)) {
    if (key.startsWith("~")) continue; // TypeBox bookkeeping
    if (!KNOWN.has(key)) throw new SchemaCompileError(`port schema does not compile: unknown keyword ${JSON.stringify(key)} at ${where}`);
    const at = `${where}/${key}`;
    if (key === "type") {
      const list = Array.isArray(value) ? value : [value];
      for (const t of list)
        if (typeof t !== "string" || !TYPES.has(t)) throw new SchemaCompileError(`port schema does not compile: ${at} has unknown type ${JSON.stringify(t)}`);
    } else if (SCHEMA_VALUED.includes(key)) {
      checkSchemaKeywords(value, at);
    } else if (key === "items") {
      if (Array.isArray(value)) value.forEach((s, i) => checkSchemaKeywords(s, `${at}/${i}`));
      else checkSchemaKeywords(value, at);
    } else if (SCHEMA_LISTS.includes(key)) {
      if (!Array.isArray(value)) throw new SchemaCompileError(`port schema does not compile: ${at} must be a list of schemas`);
      value.forEach((s, i) => checkSchemaKeywords(s, `${at}/${i}`));
    } else if (SCHEMA_MAPS.includes(key)) {
      if (!isPlainObject(value)) throw new SchemaCompileError(`port schema does not compile: ${at} must map names to schemas`);
      for (const [name, s] of Object.entries(value)) checkSchemaKeywords(s, `${at}/${name.replace(/~/g, "~0").replace(/\//g, "~1")}`);
    }
  }
}
