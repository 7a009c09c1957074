/**
 * Schema inferred from a live value, for untyped ("any") fields that hold data.
 *
 * The Go SDK reflects the CURRENT Configuration value, so an `any` field holding an object is
 * published with that object's keys as properties (keys sorted, `propertyOrder` 1.., `default` =
 * observed value) — runtime-spec §10.1. Strings holding a `{{expression}}` stay untyped because
 * the expression resolves to whatever the upstream emits (Go `pkg/schema/infer.go`).
 */
import { isPlainObject, type JsonSchemaObject } from "./json.ts";

const TEMPLATE = /\{\{.*?\}\}/;

/**
 * Infers a schema for one JSON value: `boolean`; `integer` for whole numbers else `number`;
 * `string` (untyped when it holds a `{{…}}` template); arrays with `items` from the first element;
 * objects with sorted `properties`. Every inferred schema carries `default` = the value, except
 * for `null`/`undefined`, which infer `{}`.
 */
export function inferSchema(value: unknown): JsonSchemaObject {
  if (value === null || value === undefined) return {};
  const out = inferType(value);
  out.default = value;
  return out;
}

/**
 * The `properties` map for an observed object: keys sorted (Go map order), each inferred with
 * {@link inferSchema} and given `propertyOrder` = 1-based position.
 */
export function inferProperties(value: Record<string, unknown>): Record<string, JsonSchemaObject> {
  const props: Record<string, JsonSchemaObject> = {};
  Object.keys(value)
    .sort()
    .forEach((key, i) => {
      props[key] = { ...inferSchema(value[key]), propertyOrder: i + 1 };
    });
  return props;
}

function inferType(value: unknown): JsonSchemaObject {
  switch (typeof value) {
    case "boolean":
      return { type: "boolean" };
    case "number":
      return { type: Number.isInteger(value) ? "integer" : "number" };
    case "string":
      return TEMPLATE.test(value) ? {} : { type: "string" };
  }
  if (Array.isArray(value)) {
    return value.length === 0 ? { type: "array" } : { type: "array", items: inferType(value[0]) };
  }
  if (isPlainObject(value)) return { type: "object", properties: inferProperties(value) };
  return {};
}
