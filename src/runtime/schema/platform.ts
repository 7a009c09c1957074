/**
 * TypeBox schema (+ the port's live value) → the platform JSON Schema the editor reads, made the
 * way the Go SDK makes it for a Go struct (Go `pkg/schema/json.go` `CreateSchema`, runtime-spec
 * §10.1), so a tinyhost port publishes what the same Go component publishes. Rules, checked
 * against the real SDK by test/integration/port-parity.test.ts:
 * - root = `{"$ref":"#/$defs/<Root>","$defs":{…}}`, every def carrying `path` (JSONPath from the root);
 * - every property gets `propertyOrder` = its 1-based position among its siblings;
 * - a `configurable`, `shared`, object or untyped property moves to `$defs`, replaced by
 *   `{"$ref", "propertyOrder"}`; the def is named after the property schema's `$id` (Go: the
 *   field's type name), else after the property (`context` → `Context`) — except a map without
 *   `$id` (an unnamed Go `map[string]T`), which stays inline;
 * - an array property stays inline (an unnamed Go slice) unless it has an `$id` (a named slice
 *   type); its items move to a def named after the items' `$id`, or `String`/`Int`/`Float64`/`Bool`
 *   for scalar items (Go's element type names), else `<Property>Item` for object items; untyped
 *   items without `$id` stay inline (Go `[]any`). `shared`/`configurable` pass from an array to its items;
 * - `readonly: true` is published with its JSON Schema twin `readOnly: true` (the Go tag sets both);
 * - `null` never appears in a published `type` (Go pointers and slices publish their element's
 *   type), a `default: null` is dropped (Go cannot publish one), a union of literals is an `enum`,
 *   a `Type.Record` is `additionalProperties`;
 * - an untyped field holding a live value is typed from it: a scalar gets its JSON type, an object
 *   gets its keys as properties (sorted, `propertyOrder` 1.., `default` = the observed value),
 *   a list gets an item def `<Name>Item` inferred from its first element (`infer.ts`).
 * Deliberate differences from Go are listed in docs/compatibility.md ("Schemas").
 */
import type { TSchema } from "typebox";
import { inferProperties, inferSchema } from "./infer.ts";
import { isPlainObject } from "../../core/plain-object.ts";
import type { JsonSchemaObject } from "./json.ts";
import { GO_UNNAMED } from "./keywords.ts";
import { definitionName } from "./naming.ts";

/**
 * A port schema as the platform publishes it: `{}` for "no schema", otherwise a root `$ref` into
 * `$defs`, where every def carries `path`. Serialised into `TinyNode.status.ports[].schema` and
 * `TinyModule.status.components[].ports[].schema` (base64 of the JSON bytes, runtime-spec §10.1).
 */
export interface PlatformSchema {
  /** `#/$defs/<Root>`; absent only for the empty schema `{}`. */
  $ref?: string;
  /** Definitions by name (keys sorted, like Go's map encoding); each has a `path` string. */
  $defs?: Record<string, JsonSchemaObject>;
}

/** Keywords never published: a nested `$id` would re-base `$ref` resolution; `propertyOrder` is recomputed. */
const DROPPED = new Set(["$id", "$schema", "propertyOrder"]);

/** Go's names of the element types of `[]string`, `[]int`, `[]float64`, `[]bool`. */
const SCALAR_ITEM_NAMES: Record<string, string> = { string: "String", integer: "Int", number: "Float64", boolean: "Bool" };

/**
 * Builds the platform schema for a port.
 * @param schema the port's TypeBox schema (any JSON Schema object works); `undefined`/`null` → `{}`.
 * @param value the port's current value ("configuration"): untyped fields and maps are typed from it.
 * @param rootName name of the root def before title-casing; default: the schema's `$id`, then
 *   `title`, then `"Root"`. An `$id` on the root wins over `rootName` (it stands for the Go type name).
 * @returns a fresh plain object (the input schema is never mutated).
 */
export function toPlatformSchema(schema: TSchema | JsonSchemaObject | undefined | null, value?: unknown, rootName?: string): PlatformSchema {
  if (schema === undefined || schema === null) return {};
  const root = schema as JsonSchemaObject;
  const title = typeof root.title === "string" && root.title !== "" ? root.title : "Root";
  const base = typeof root.$id === "string" && root.$id !== "" ? definitionName(root.$id, title) : definitionName(undefined, rootName ?? title);
  const builder = new DefsBuilder();
  const name = builder.root(base, root, value);
  return { $ref: ref(name), $defs: builder.sorted() };
}

/**
 * The platform schema of one port as `TinyNode.status.ports[].schema` and the TinyModule listing
 * publish it: the port's verbatim `rawSchema` when it has one, else {@link toPlatformSchema} of its
 * schema and configuration with the root def named after the schema's `$id`, else the port
 * (`in` → `In`, `_settings` → `Settings`). One rule for both listings (runtime-spec §2.6, §10.1).
 */
export function portPlatformSchema(port: {
  readonly name: string;
  readonly schema: unknown;
  readonly configuration?: unknown;
  readonly rawSchema?: object;
}): PlatformSchema | JsonSchemaObject {
  if (port.rawSchema) return port.rawSchema as JsonSchemaObject;
  return toPlatformSchema(port.schema as JsonSchemaObject, port.configuration, port.name.replace(/^_+/, "") || "Root");
}

/**
 * Base64 (standard alphabet, padded) of the schema's UTF-8 JSON, as stored in the CRD byte fields
 * `status.ports[].schema` (Kubernetes encodes `[]byte` as base64, runtime-spec §10.1).
 */
export function schemaToBase64(schema: PlatformSchema | JsonSchemaObject): string {
  return Buffer.from(JSON.stringify(schema), "utf8").toString("base64");
}

/** Flags an array passes to its items (Go `InterceptProp`: shared/configurable propagate to the item def). */
type Inherited = { configurable?: true; shared?: true };

class DefsBuilder {
  private readonly defs = new Map<string, JsonSchemaObject>();

  /** Builds the root def (path `$`); returns its name. */
  root(base: string, schema: JsonSchemaObject, value: unknown): string {
    return this.register(base, this.shape(schema, base, "$", value), "$");
  }

  sorted(): Record<string, JsonSchemaObject> {
    const out: Record<string, JsonSchemaObject> = {};
    for (const key of [...this.defs.keys()].sort()) out[key] = this.defs.get(key)!;
    return out;
  }

  /**
   * Stores `body` as def `base` with `path`. A def already under that name with the same body is
   * shared (Go: one def per type; the first path is kept); a different one makes this def
   * `base2`, `base3`, … (Go would let the later def overwrite the earlier one).
   */
  private register(base: string, body: JsonSchemaObject, path: string): string {
    const existing = this.defs.get(base);
    if (existing === undefined) {
      this.defs.set(base, { ...body, path });
      return base;
    }
    if (sameBody(existing, body)) return base;
    let n = 2;
    while (this.defs.has(`${base}${n}`) && !sameBody(this.defs.get(`${base}${n}`)!, body)) n++;
    if (!this.defs.has(`${base}${n}`)) this.defs.set(`${base}${n}`, { ...body, path });
    return `${base}${n}`;
  }

  /**
   * One schema node in platform form: cleaned and normalised, typed from the live value when it is
   * untyped, its properties placed, its items and map values shaped. Nested defs are registered on
   * the way (Go creates the defs of nested types before the parent's).
   */
  private shape(schema: JsonSchemaObject, name: string, path: string, value: unknown, isProperty = false): JsonSchemaObject {
    let out = normalize(clean(schema));
    let inferredItems = false;
    if (isUntyped(out) && value !== null && value !== undefined) {
      // Go reflects the interface's dynamic value: a scalar's JSON type; an object, with its keys
      // from enrichDefsFromValue; a list, whose item def is `<Name>Item`.
      if (isPlainObject(value))
        return Object.keys(value).length === 0 ? { ...out, type: "object" } : { ...out, type: "object", properties: inferProperties(value) };
      if (!Array.isArray(value)) {
        const t = inferSchema(value).type;
        return t === undefined ? out : { ...out, type: t };
      }
      out = { ...out, type: "array", items: {} };
      inferredItems = true;
    }
    if (isPlainObject(out.properties)) {
      const props: Record<string, unknown> = {};
      Object.entries(out.properties).forEach(([key, prop], i) => {
        const child = isPlainObject(value) ? value[key] : undefined;
        props[key] = isPlainObject(prop) ? this.place(prop, key, `${path}.${key}`, child, i + 1) : prop;
      });
      out = { ...out, properties: props };
    } else if (isMap(out) && isPlainObject(value) && Object.keys(value).length > 0) {
      out = { ...out, properties: inferProperties(value) }; // Go enriches a bare map def with the live keys
    }
    if (isPlainObject(out.additionalProperties)) {
      const members = isPlainObject(value) ? Object.values(value) : [];
      if (isUntyped(out.additionalProperties) && new Set(members.map((m) => inferSchema(m).type)).size > 1) {
        // Members of several types: Go types the map's values after ONE member (random map order),
        // which forbids the others; an untyped map value publishes no value schema here.
        const { additionalProperties: _dropped, ...rest } = out;
        out = rest;
      } else out = { ...out, additionalProperties: this.shape(out.additionalProperties, `${name}Value`, path, members[0]) };
    }
    if (isPlainObject(out.items)) {
      // Go def's the items of struct fields only; the items of a map value or of a list inside a
      // list stay inline (no struct field is intercepted there).
      const first = Array.isArray(value) ? value[0] : undefined;
      out = { ...out, items: isProperty ? this.items(out, name, path, value, inferredItems) : this.shape(out.items, `${name}Item`, `${path}[0]`, first) };
    }
    return out;
  }

  /** The `items` of an array: a `$ref` to the item def, or the inline item schema (Go `[]any`). */
  private items(array: JsonSchemaObject, arrayName: string, path: string, value: unknown, inferred: boolean): JsonSchemaObject {
    const items = array.items as JsonSchemaObject;
    const first = Array.isArray(value) ? value[0] : undefined;
    const inherited: Inherited = {};
    if (array.configurable === true) inherited.configurable = true;
    if (array.shared === true) inherited.shared = true;
    const itemName = inferred ? `${arrayName}Item` : itemDefName(items, arrayName);
    const body = { ...this.shape(items, itemName ?? `${arrayName}Item`, `${path}[0]`, first), ...inherited };
    return itemName === undefined ? body : { $ref: ref(this.register(itemName, body, `${path}[0]`)) };
  }

  /** One property: a `$ref` + `propertyOrder` when it moves to `$defs`, else the inline schema + `propertyOrder`. */
  private place(prop: JsonSchemaObject, key: string, path: string, value: unknown, order: number): JsonSchemaObject {
    const name = definitionName(idOf(prop), key);
    const body = this.shape(prop, name, path, value, true);
    if (movesToDefs(body, prop)) return { $ref: ref(this.register(name, body, path)), propertyOrder: order };
    return { ...body, propertyOrder: order };
  }
}

function ref(name: string): string {
  return `#/$defs/${name}`;
}

function sameBody(a: JsonSchemaObject, b: JsonSchemaObject): boolean {
  const { path: _p, ...rest } = a;
  return JSON.stringify(rest) === JSON.stringify(b);
}

/**
 * Go moves configurable, shared, object and untyped properties into `$defs`; arrays only when
 * they are a named type (`$id`), their items being def'd on their own (runtime-spec §10.1).
 */
function movesToDefs(shaped: JsonSchemaObject, authored: JsonSchemaObject): boolean {
  if (typeof shaped.$ref === "string") return false; // already a reference
  if ((authored as { [GO_UNNAMED]?: unknown })[GO_UNNAMED] === true) return false; // Go unnamed `any`: inline
  if (hasType(shaped, "array")) return idOf(authored) !== undefined || isUntyped(authored);
  if (flag(shaped, "configurable") || flag(shaped, "shared")) return true;
  // An unnamed map type (Go `map[string]T` field) stays inline, live keys and all; a named one
  // (`url.Values`, an `$id`) is a def like any named type.
  if (idOf(authored) === undefined && isMap(normalize(clean(authored)))) return false;
  return hasType(shaped, "object") || isUntyped(shaped);
}

/** The def name of an array's items, or `undefined` when Go keeps them inline (`[]any`, anonymous structs … see module doc). */
function itemDefName(items: JsonSchemaObject, arrayName: string): string | undefined {
  const id = idOf(items);
  if (id !== undefined) return definitionName(id, "");
  if (typeof items.$ref === "string") return undefined;
  const norm = normalize(items);
  const t = norm.type;
  if (typeof t === "string" && SCALAR_ITEM_NAMES[t]) return SCALAR_ITEM_NAMES[t];
  if (hasType(norm, "object")) return `${arrayName}Item`;
  return undefined;
}

/** The Go type name a schema stands for: its `$id`, or that of the one non-null branch of `T | null`. */
function idOf(schema: JsonSchemaObject): string | undefined {
  if (typeof schema.$id === "string" && schema.$id !== "") return schema.$id;
  if (!Array.isArray(schema.anyOf)) return undefined;
  const nonNull = schema.anyOf.filter((v) => !(isPlainObject(v) && v.type === "null"));
  const only = nonNull.length === 1 ? nonNull[0] : undefined;
  return isPlainObject(only) && typeof only.$id === "string" && only.$id !== "" ? only.$id : undefined;
}

function flag(schema: JsonSchemaObject, keyword: "configurable" | "shared"): boolean {
  return schema[keyword] === true;
}

function hasType(schema: JsonSchemaObject, type: string): boolean {
  const t = schema.type;
  return (
    t === type ||
    (Array.isArray(t) && t.includes(type)) ||
    (t === undefined && type === "object" && (isPlainObject(schema.properties) || isPlainObject(schema.additionalProperties)))
  );
}

/** An object schema without properties whose values are described by `additionalProperties` (a Go map). */
function isMap(schema: JsonSchemaObject): boolean {
  return hasType(schema, "object") && !isPlainObject(schema.properties) && schema.additionalProperties !== false;
}

/** No type information at all: `Type.Unknown()` / `Type.Any()` (`{}`), possibly with annotations. */
function isUntyped(schema: JsonSchemaObject): boolean {
  const typing = ["type", "$ref", "anyOf", "oneOf", "allOf", "not", "enum", "const", "properties", "items", "additionalProperties", "patternProperties"];
  return !typing.some((k) => k in schema);
}

/** A shallow copy without the keywords that must not travel into `$defs` or be author-set. */
function clean(schema: JsonSchemaObject): JsonSchemaObject {
  const out: JsonSchemaObject = {};
  for (const [k, v] of Object.entries(schema)) if (!DROPPED.has(k)) out[k] = v;
  return out;
}

/**
 * Go-shaped keywords for TypeBox forms Go cannot write: a union of same-typed literals → `{type,
 * enum}` (Go's `enum:"a,b"` tag, what the editor renders as a select); `T | null` (`anyOf` or a
 * `type` list) → `T` (Go publishes pointers and nil-able slices as their element type); a
 * `Type.Record` (`patternProperties`) → `additionalProperties`; `default: null` dropped;
 * `readonly: true` → also `readOnly: true`.
 */
function normalize(schema: JsonSchemaObject): JsonSchemaObject {
  let out = schema;
  if (Array.isArray(out.anyOf) && out.anyOf.length > 0) out = unwrapUnion(out);
  if (Array.isArray(out.type)) {
    const types = (out.type as unknown[]).filter((t) => t !== "null");
    out = { ...out, type: types.length === 1 ? types[0] : types };
  }
  if (isPlainObject(out.patternProperties) && out.additionalProperties === undefined) {
    const values = Object.values(out.patternProperties);
    if (values.length === 1) {
      const { patternProperties: _p, ...rest } = out;
      out = { ...rest, additionalProperties: values[0] };
    }
  }
  if ("default" in out && out.default === null) {
    const { default: _d, ...rest } = out;
    out = rest;
  }
  if (out.readonly === true && out.readOnly === undefined) out = { ...out, readOnly: true };
  return out;
}

function unwrapUnion(schema: JsonSchemaObject): JsonSchemaObject {
  const variants = schema.anyOf as unknown[];
  const { anyOf: _a, ...rest } = schema;
  const nonNull = variants.filter((v) => !(isPlainObject(v) && v.type === "null"));
  if (nonNull.length === 1 && isPlainObject(nonNull[0])) return normalize({ ...nonNull[0], ...rest });
  const consts: unknown[] = [];
  let type: unknown;
  for (const v of nonNull) {
    if (!isPlainObject(v) || !("const" in v) || typeof v.type !== "string") return schema;
    if (type !== undefined && v.type !== type) return schema;
    type = v.type;
    consts.push(v.const);
  }
  return { type, ...rest, enum: consts };
}
