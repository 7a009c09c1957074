/**
 * Schemas inferred from a live value, for untyped ("any") fields and maps that hold data.
 *
 * The Go SDK publishes the port's CURRENT Configuration: an `any` field holding an object gets that
 * object's keys as properties (Go `pkg/schema/json.go` `enrichDefsFromValue` / `inferValueSchema`):
 * keys sorted, `propertyOrder` 1.., each value's JSON type with `default` = the observed value.
 * Numbers are `number` (Go decodes JSON numbers into float64), nested objects carry their own
 * properties and no `default`, a list's `items` come from its first element.
 */
import { isPlainObject } from "../../core/plain-object.ts";
import type { JsonSchemaObject } from "./json.ts";

/**
 * Infers a schema for one JSON value: `{type: "string"|"number"|"boolean", default}`;
 * `{type: "array", default, items}` (items from the first element, absent for `[]`);
 * `{type: "object", properties}` (no `default`; no `properties` for `{}`); `{}` for `null`/`undefined`.
 */
export function inferSchema(value: unknown): JsonSchemaObject {
  switch (typeof value) {
    case "string":
      return { type: "string", default: value };
    case "number":
      return { type: "number", default: value };
    case "boolean":
      return { type: "boolean", default: value };
  }
  if (Array.isArray(value)) {
    return value.length === 0 ? { type: "array", default: value } : { type: "array", default: value, items: inferSchema(value[0]) };
  }
  if (isPlainObject(value)) {
    const props = inferProperties(value);
    return Object.keys(props).length === 0 ? { type: "object" } : { type: "object", properties: props };
  }
  return {};
}

/**
 * The `properties` map for an observed object: keys sorted (Go `sort.Strings`), each inferred with
 * {@link inferSchema} and given `propertyOrder` = its 1-based position.
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
