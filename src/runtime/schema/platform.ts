/**
 * TypeBox schema → the platform's JSON Schema shape, so the TinySystems editor renders a port the
 * same way it renders a Go module's port. Rules (runtime-spec §10.1, Go `pkg/schema/json.go`
 * `CreateSchema`):
 * - root = `{"$ref":"#/$defs/<Root>","$defs":{...}}`;
 * - every property gets `propertyOrder` = its 1-based position among its siblings (overwrites any
 *   authored value);
 * - properties that are `configurable`, `shared`, objects, arrays or untyped move to `$defs` and are
 *   replaced by `{"$ref":"#/$defs/<Name>","propertyOrder":n}`; object array items likewise, named
 *   `<Name>Item` unless they carry an `$id`, inheriting `configurable`/`shared` from the array;
 * - every def carries `path`, the JSONPath of its value from the root (`$`, `$.context`, `$.array[0]`);
 * - untyped properties holding an object get its keys as properties (see `infer.ts`).
 * Deliberate differences from Go are listed in docs/compatibility.md ("schemas").
 */
import type { TSchema } from "typebox";
import { inferProperties } from "./infer.ts";
import { isPlainObject, type JsonSchemaObject } from "./json.ts";
import { definitionName, titleCase } from "./naming.ts";

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

/** Keywords dropped when a schema moves into `$defs`: a nested `$id` would re-base `$ref` resolution. */
const DROPPED = new Set(["$id", "$schema", "propertyOrder"]);

/**
 * Builds the platform schema for a port.
 * @param schema the port's TypeBox schema (any JSON Schema object works); `undefined`/`null` → `{}`.
 * @param value the port's current value ("configuration"); only untyped fields read it, to infer
 *   properties from live data.
 * @param rootName name of the root def before title-casing; default: the schema's `$id`, then
 *   `title`, then `"Root"`.
 * @returns a fresh plain object (the input schema is never mutated).
 */
export function toPlatformSchema(schema: TSchema | JsonSchemaObject | undefined | null, value?: unknown, rootName?: string): PlatformSchema {
  if (schema === undefined || schema === null) return {};
  const root = schema as JsonSchemaObject;
  const title = typeof root.title === "string" && root.title !== "" ? root.title : "Root";
  const base = rootName !== undefined ? definitionName(undefined, rootName) : definitionName(root.$id, title);
  const builder = new DefsBuilder();
  const name = builder.define(base, root, "$", value, {});
  return { $ref: ref(name), $defs: builder.sorted() };
}

/**
 * Base64 (standard alphabet, padded) of the schema's UTF-8 JSON, as stored in the CRD byte fields
 * `status.ports[].schema` (Kubernetes encodes `[]byte` as base64, runtime-spec §10.1).
 */
export function schemaToBase64(schema: PlatformSchema | JsonSchemaObject): string {
  return Buffer.from(JSON.stringify(schema), "utf8").toString("base64");
}

/** Flags inherited from an array to its item def. */
type Inherited = { configurable?: true; shared?: true };

class DefsBuilder {
  private readonly defs = new Map<string, JsonSchemaObject>();

  /** Registers `schema` under a unique name derived from `base`; returns the name used. */
  define(base: string, schema: JsonSchemaObject, path: string, value: unknown, inherited: Inherited): string {
    const name = this.claim(base);
    const body: JsonSchemaObject = { ...clean(schema), ...inherited };
    this.defs.set(name, body); // reserve before recursing so children get suffixed, not the parent
    const shaped = this.shape(body, name, path, value);
    shaped.path = path;
    this.defs.set(name, shaped);
    return name;
  }

  sorted(): Record<string, JsonSchemaObject> {
    const out: Record<string, JsonSchemaObject> = {};
    for (const key of [...this.defs.keys()].sort()) out[key] = this.defs.get(key)!;
    return out;
  }

  /** Two different fields with one name would overwrite each other in Go; here the later one gets a suffix. */
  private claim(base: string): string {
    if (!this.defs.has(base)) return base;
    let n = 2;
    while (this.defs.has(`${base}${n}`)) n++;
    return `${base}${n}`;
  }

  /** Rewrites an object's properties / an array's items into platform form. */
  private shape(node: JsonSchemaObject, name: string, path: string, value: unknown): JsonSchemaObject {
    let out = normalizeLiteralUnion(node);
    if (isUntyped(out) && isPlainObject(value)) {
      return { ...out, type: "object", properties: inferProperties(value) };
    }
    if (isPlainObject(out.properties)) {
      const props: Record<string, unknown> = {};
      Object.entries(out.properties).forEach(([key, prop], i) => {
        const child = isPlainObject(value) ? value[key] : undefined;
        props[key] = isPlainObject(prop) ? this.place(prop, key, `${path}.${key}`, child, i + 1) : prop;
      });
      out = { ...out, properties: props };
    }
    if (isPlainObject(out.items)) {
      const items = out.items;
      const first = Array.isArray(value) ? value[0] : undefined;
      if (movesToDefs(items) || flag(out, "configurable") || flag(out, "shared")) {
        const inherited: Inherited = {};
        if (flag(out, "configurable")) inherited.configurable = true;
        if (flag(out, "shared")) inherited.shared = true;
        const itemName = typeof items.$id === "string" && items.$id !== "" ? definitionName(items.$id, "") : `${name}Item`;
        out = { ...out, items: { $ref: ref(this.define(itemName, items, `${path}[0]`, first, inherited)) } };
      } else {
        out = { ...out, items: this.shape(clean(items), `${name}Item`, `${path}[0]`, first) };
      }
    }
    return out;
  }

  /** One property: a `$ref` + `propertyOrder` when it moves to `$defs`, else the inline schema + `propertyOrder`. */
  private place(prop: JsonSchemaObject, key: string, path: string, value: unknown, order: number): JsonSchemaObject {
    if (movesToDefs(prop)) {
      const name = this.define(definitionName(prop.$id, key), prop, path, value, {});
      return { $ref: ref(name), propertyOrder: order };
    }
    return { ...this.shape(clean(prop), titleCase(key), path, value), propertyOrder: order };
  }
}

function ref(name: string): string {
  return `#/$defs/${name}`;
}

function flag(schema: JsonSchemaObject, keyword: "configurable" | "shared"): boolean {
  return schema[keyword] === true;
}

/** Go moves configurable, shared, object, array and untyped properties into `$defs` (runtime-spec §10.1). */
function movesToDefs(schema: JsonSchemaObject): boolean {
  if (typeof schema.$ref === "string") return false; // already a reference
  return flag(schema, "configurable") || flag(schema, "shared") || hasType(schema, "object") || hasType(schema, "array") || isUntyped(schema);
}

function hasType(schema: JsonSchemaObject, type: string): boolean {
  const t = schema.type;
  return t === type || (Array.isArray(t) && t.includes(type)) || (t === undefined && type === "object" && isPlainObject(schema.properties));
}

/** No type information at all: `Type.Unknown()` / `Type.Any()` (`{}`), possibly with annotations. */
function isUntyped(schema: JsonSchemaObject): boolean {
  const typing = ["type", "$ref", "anyOf", "oneOf", "allOf", "not", "enum", "const", "properties", "items"];
  return !typing.some((k) => k in schema);
}

/** A shallow copy without the keywords that must not travel into `$defs` or be author-set. */
function clean(schema: JsonSchemaObject): JsonSchemaObject {
  const out: JsonSchemaObject = {};
  for (const [k, v] of Object.entries(schema)) if (!DROPPED.has(k)) out[k] = v;
  return out;
}

/**
 * TypeBox writes `Type.Union([Type.Literal("a"), Type.Literal("b")])` as `anyOf` of `const`s; the
 * editor renders a select only for `enum` (what Go's `enum:"a,b"` tag emits), so a union of
 * same-typed literals becomes `{type, enum}`.
 */
function normalizeLiteralUnion(schema: JsonSchemaObject): JsonSchemaObject {
  const variants = schema.anyOf;
  if (!Array.isArray(variants) || variants.length === 0) return schema;
  const consts: unknown[] = [];
  let type: unknown;
  for (const v of variants) {
    if (!isPlainObject(v) || !("const" in v) || typeof v.type !== "string") return schema;
    if (type !== undefined && v.type !== type) return schema;
    type = v.type;
    consts.push(v.const);
  }
  const { anyOf: _dropped, ...rest } = schema;
  return { type, ...rest, enum: consts };
}
