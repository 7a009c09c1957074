/**
 * Port data decoding with the Go runtime's semantics: the Go runner decodes every hop into a fresh
 * zero value of the port's Go type with `json.Unmarshal` (github.com/goccy/go-json;
 * internal/scheduler/runner/runner.go `jsonEncodeDecode`), so the component sees:
 * - every declared field, a missing or `null` one as its zero value (`""`, `0`, `false`, a zero
 *   struct; `null` for slices, maps, pointers and `any`);
 * - keys matched to fields exactly, else ASCII case-insensitively (`Delay` fills `delay`); unknown
 *   keys dropped; when several keys fill one field the last one wins;
 * - maps and `any` values kept whole;
 * - an error only for a type mismatch (a string where an integer belongs, an object where a list
 *   belongs, a fraction or a number outside int64 for an integer).
 * Schema keywords that only shape the editor (`required`, `enum`, `minimum`, `minItems`, `format`,
 * `default`, …) are not enforced, as in Go. The port's JSON Schema (TypeBox) stands in for the Go
 * type; see {@link compilePortDecoder} for how schema shapes map to Go kinds.
 * Verified against the real SDK by test/integration/port-parity.test.ts (test/go/schemas).
 */
import type { TSchema } from "typebox";
import { isPlainObject } from "../../core/plain-object.ts";
import type { JsonSchemaObject } from "./json.ts";
import { checkSchemaKeywords, SchemaCompileError } from "./strict.ts";
import { compileFastDecoder, type GeneralDecoder } from "./decode-fast.ts";
import type { DecodeNode, Field, Scalar } from "./decode-node.ts";

/** One reason data does not decode into a port's type. */
export interface ValidationIssue {
  /** JSONPath of the offending value from the message root, e.g. `$.user.name`, `$.items[0]`. */
  path: string;
  /** What failed: `type` (a type mismatch; the only rule the decoder applies). */
  rule: string;
  /** Human text naming the path, the expected type and the value seen, e.g. `$.delay must be an integer, got string "5"`. */
  message: string;
}

/** Result of decoding: the value the component receives, or why the hop fails. */
export type DecodeOutcome = { readonly ok: true; readonly value: unknown } | { readonly ok: false; readonly issues: readonly ValidationIssue[] };

/** Options of one decode. */
export interface DecodeOptions {
  /**
   * The order in which keys that fill the same field are applied (the last one wins):
   * `"input"` (default) — as they come, Go's direct decode of a signal payload; `"sorted"` — by
   * key, what Go's decode of an evaluated configuration sees, because the runner JSON-encodes the
   * evaluated map first and Go's encoder sorts map keys. Only matters when keys differ by case.
   */
  keyOrder?: "input" | "sorted";
}

/** Decodes one value into a port's type. Never throws for bad data; see {@link DecodeOutcome}. */
export type PortDecoder = (data: unknown, options?: DecodeOptions) => DecodeOutcome;

const ANY: DecodeNode = { k: "any" };

/** int64 bounds as doubles: every double in [-2^63, 2^63) is a Go int64. */
const INT64_MIN = -(2 ** 63);
const INT64_LIMIT = 2 ** 63;

const cache = new WeakMap<object, PortDecoder>();

/**
 * Compiles `schema` (a TypeBox schema or any JSON Schema object) into a {@link PortDecoder}; cached
 * per schema object. Schema → Go kind: `string`/`integer`/`number`/`boolean` → that scalar (zero
 * `""`, `0`, `false`); an object with `properties` → a struct (zero: every property zero; an
 * `additionalProperties` schema keeps and decodes unknown keys too); an object with only
 * `additionalProperties`/`patternProperties` (`Type.Record`) → a map (zero `null`); `array` → a
 * slice (zero `null`); `{}`/`Type.Unknown()` → `any` (zero `null`); a `type` list or `anyOf` with
 * `null` → nullable, like a Go pointer (zero `null`); a union of literals/`enum` → the literals'
 * scalar type; other unions → the first branch that decodes. Local `$ref`s (`#/$defs/…`) resolve.
 * @throws SchemaCompileError (`code: "INVALID_SCHEMA"`) for an unknown keyword (a typo such as
 *   `maxLenght`), a malformed keyword value or a `$ref` that does not resolve — naming the keyword
 *   and where it sits.
 */
export function compilePortDecoder(schema: TSchema | object): PortDecoder {
  const hit = cache.get(schema);
  if (hit) return hit;
  checkSchemaKeywords(schema);
  const root = new Compiler(schema as JsonSchemaObject).compile();
  const fast = compileFastDecoder(root, GENERAL);
  const decoder: PortDecoder = (data, options) => {
    const sorted = options?.keyOrder === "sorted";
    try {
      return { ok: true, value: fast(data, sorted) };
    } catch {
      // A mismatch (or anything else) on the fast path: the general decoder decides, error included.
    }
    try {
      return { ok: true, value: decode(root, data, undefined, sorted) };
    } catch (err) {
      if (err instanceof Mismatch) return { ok: false, issues: [err.issue()] };
      throw err;
    }
  };
  cache.set(schema, decoder);
  return decoder;
}

/**
 * {@link compilePortDecoder} without its fast path (decode-fast.ts): only the general decoder.
 * Not cached. For tests that hold the two to the same outcome; the runtime uses compilePortDecoder.
 * @throws SchemaCompileError as compilePortDecoder does
 */
export function compileGeneralDecoder(schema: TSchema | object): PortDecoder {
  checkSchemaKeywords(schema);
  const root = new Compiler(schema as JsonSchemaObject).compile();
  return (data, options) => {
    try {
      return { ok: true, value: decode(root, data, undefined, options?.keyOrder === "sorted") };
    } catch (err) {
      if (err instanceof Mismatch) return { ok: false, issues: [err.issue()] };
      throw err;
    }
  };
}

/** The zero value of a compiled node: what Go's fresh `reflect.New(T).Elem()` encodes as. */
function zero(node: DecodeNode): unknown {
  switch (node.k) {
    case "scalar":
      if (node.nullable) return null;
      return node.type === "string" ? "" : node.type === "boolean" ? false : 0;
    case "struct":
      return node.nullable ? null : zeroStruct(node);
    case "ref":
      return zero(resolved(node));
    default:
      return null; // any, null, union, map, array, nullable: Go's nil interface / slice / map / pointer
  }
}

function zeroStruct(node: Extract<DecodeNode, { k: "struct" }>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const f of node.fields) out[f.key] = zero(f.node);
  return out;
}

/** Go's `null` into a field: interfaces, pointers, slices and maps become nil; other kinds are left as they are. */
function nullSetsNil(node: DecodeNode): boolean {
  switch (node.k) {
    case "scalar":
    case "struct":
      return node.nullable;
    case "ref":
      return nullSetsNil(resolved(node));
    default:
      return true;
  }
}

function resolved(node: Extract<DecodeNode, { k: "ref" }>): DecodeNode {
  if (!node.target) throw new Error(`decoder: unresolved reference ${node.name}`); // compile() resolves every ref
  return node.target;
}

/**
 * A type mismatch on its way up: the path is built only on this (rare) way, each enclosing struct,
 * list or map adding its segment, so a successful decode never formats paths.
 */
class Mismatch {
  /** Path segments from the failing value up to the root (innermost first). */
  readonly up: (string | number)[] = [];
  constructor(
    readonly expected: string,
    readonly value: unknown,
  ) {}

  issue(): ValidationIssue {
    let path = "$";
    for (let i = this.up.length - 1; i >= 0; i--) {
      const seg = this.up[i]!;
      path = typeof seg === "number" ? `${path}[${seg}]` : child(path, seg);
    }
    return { path, rule: "type", message: `${path} must be ${this.expected}, got ${describe(this.value)}` };
  }
}

function mismatch(expected: string, value: unknown): never {
  throw new Mismatch(expected, value);
}

/** The general decoder as the fast path (decode-fast.ts) calls it. */
const GENERAL: GeneralDecoder = {
  decode: (node, value, sorted) => decode(node, value, undefined, sorted),
  zero: (node) => zero(node),
  nullSetsNil: (node) => nullSetsNil(node),
  mismatch,
};

/** Runs `fn`, adding `segment` to the path of a mismatch thrown inside. */
function at<T>(segment: string | number, fn: () => T): T {
  try {
    return fn();
  } catch (err) {
    if (err instanceof Mismatch) err.up.push(segment);
    throw err;
  }
}

/** `string "5"`, `number 1.5`, `object {"a":1}` (values cut at 60 characters). */
function describe(value: unknown): string {
  const kind = value === null ? "null" : Array.isArray(value) ? "array" : typeof value;
  if (value === null || value === undefined) return kind;
  let text: string;
  try {
    text = typeof value === "number" && !Number.isFinite(value) ? String(value) : (JSON.stringify(value) ?? String(value));
  } catch {
    text = String(value);
  }
  return `${kind} ${text.length > 60 ? `${text.slice(0, 57)}...` : text}`;
}

const EXPECTED: Record<Scalar, string> = { string: "a string", integer: "an integer", number: "a number", boolean: "a boolean" };

function decode(node: DecodeNode, value: unknown, base: unknown, sorted: boolean): unknown {
  switch (node.k) {
    case "any":
      return value === undefined ? null : value;
    case "null":
      if (value === null || value === undefined) return null;
      return mismatch("null", value);
    case "ref":
      return decode(resolved(node), value, base, sorted);
    case "nullable":
      if (value === null || value === undefined) return null;
      return decode(node.inner, value, base, sorted);
    case "scalar":
      return decodeScalar(node, value, base);
    case "struct":
      return decodeStruct(node, value, base, sorted);
    case "map": {
      if (value === null || value === undefined) return null;
      if (!isPlainObject(value)) return mismatch("an object", value);
      const out: Record<string, unknown> = {};
      for (const key of Object.keys(value)) {
        const v = value[key];
        if (v === undefined) continue;
        out[key] = v === null ? zero(node.values) : at(key, () => decode(node.values, v, undefined, sorted));
      }
      return out;
    }
    case "array": {
      if (value === null || value === undefined) return null;
      if (!Array.isArray(value)) return mismatch("an array", value);
      const out = new Array<unknown>(value.length);
      let i = 0;
      try {
        for (; i < value.length; i++) {
          const v: unknown = value[i];
          out[i] = v === null || v === undefined ? zero(node.items) : decode(node.items, v, undefined, sorted);
        }
      } catch (err) {
        if (err instanceof Mismatch) err.up.push(i);
        throw err;
      }
      return out;
    }
    case "union": {
      if (value === null || value === undefined) return null;
      for (const b of node.branches) {
        try {
          return decode(b, value, undefined, sorted);
        } catch (err) {
          if (!(err instanceof Mismatch)) throw err;
        }
      }
      return mismatch(node.types, value);
    }
  }
}

function decodeScalar(node: Extract<DecodeNode, { k: "scalar" }>, value: unknown, base: unknown): unknown {
  if (value === null || value === undefined) return node.nullable ? null : base !== undefined ? base : zero(node);
  switch (node.type) {
    case "string":
      if (typeof value === "string") return value;
      break;
    case "boolean":
      if (typeof value === "boolean") return value;
      break;
    case "number":
      if (typeof value === "number" && Number.isFinite(value)) return value;
      break;
    case "integer":
      if (typeof value === "number" && Number.isInteger(value)) {
        if (value >= INT64_MIN && value < INT64_LIMIT) return value === 0 ? 0 : value; // no -0
        return mismatch("an integer within the 64-bit range", value);
      }
      break;
  }
  return mismatch(EXPECTED[node.type], value);
}

function decodeStruct(node: Extract<DecodeNode, { k: "struct" }>, value: unknown, base: unknown, sorted: boolean): unknown {
  if (value === null || value === undefined) return node.nullable ? null : base !== undefined && base !== null ? base : zero(node);
  if (!isPlainObject(value)) return mismatch("an object", value);
  const out = (isPlainObject(base) ? base : zeroStruct(node)) as Record<string, unknown>;
  const keys = Object.keys(value);
  // Keys in the order they came. Only a key that matches its field case-insensitively can make two
  // keys fill one field; then, in sorted mode, the keys are applied again in sorted order (every
  // field the first pass wrote is written again, so the result is the sorted pass's).
  let folds = false;
  try {
    folds = applyKeys(node, value, keys, out, sorted);
  } catch (err) {
    if (!(err instanceof Mismatch) || !sorted || keys.length < 2 || !hasFoldCollision(node, keys)) throw err;
    folds = true; // the sorted pass decides which mismatch Go meets first
  }
  if (folds && sorted && keys.length > 1 && hasFoldCollision(node, keys)) applyKeys(node, value, [...keys].sort(), out, sorted);
  return out;
}

/** Decodes `value[key]` for each of `keys` into `out`; true when some key matched only case-insensitively. */
function applyKeys(
  node: Extract<DecodeNode, { k: "struct" }>,
  value: Record<string, unknown>,
  keys: readonly string[],
  out: Record<string, unknown>,
  sorted: boolean,
): boolean {
  let folds = false;
  let current = "";
  try {
    for (let i = 0; i < keys.length; i++) {
      const key = keys[i]!;
      const v = value[key];
      if (v === undefined) continue;
      let field = node.exact.get(key);
      if (!field) {
        field = node.folded.get(asciiLower(key));
        if (field) folds = true;
      }
      if (!field) {
        if (!node.rest) continue; // Go drops keys that match no field
        current = key;
        out[key] = v === null ? zero(node.rest) : decode(node.rest, v, undefined, sorted);
        continue;
      }
      if (v === null) {
        if (nullSetsNil(field.node)) out[field.key] = null;
        continue;
      }
      current = field.key;
      out[field.key] = decode(field.node, v, out[field.key], sorted);
    }
  } catch (err) {
    if (err instanceof Mismatch) err.up.push(current);
    throw err;
  }
  return folds;
}

/** True when two of `keys` fill the same field (exactly or ASCII case-insensitively). */
function hasFoldCollision(node: Extract<DecodeNode, { k: "struct" }>, keys: readonly string[]): boolean {
  const seen = new Set<string>();
  for (const key of keys) {
    const field = node.exact.get(key) ?? node.folded.get(asciiLower(key));
    if (!field) continue;
    if (seen.has(field.key)) return true;
    seen.add(field.key);
  }
  return false;
}

const ASCII_UPPER = /[A-Z]/;

/** Go's case-insensitive field match folds ASCII letters only (goccy/go-json: `Kelvin sign` ≠ `k`). */
function asciiLower(s: string): string {
  return ASCII_UPPER.test(s) ? s.replace(/[A-Z]+/g, (m) => m.toLowerCase()) : s;
}

function child(path: string, key: string): string {
  return /^[A-Za-z_$][\w$]*$/.test(key) ? `${path}.${key}` : `${path}['${key.replace(/\\/g, "\\\\").replace(/'/g, "\\'")}']`;
}

/** Turns a schema tree into decode nodes, resolving local `$ref`s (cycles through lazy ref nodes). */
class Compiler {
  private readonly refs = new Map<string, Extract<DecodeNode, { k: "ref" }>>();

  constructor(private readonly root: JsonSchemaObject) {}

  compile(): DecodeNode {
    const node = this.node(this.root, "#");
    for (const [name, ref] of this.refs) {
      const target = this.pointer(name);
      if (target === undefined) throw new SchemaCompileError(`port schema does not compile: $ref ${JSON.stringify(name)} does not resolve`);
      ref.target = this.node(target, name);
    }
    return node;
  }

  private pointer(ref: string): JsonSchemaObject | undefined {
    if (!ref.startsWith("#")) return undefined;
    let at: unknown = this.root;
    for (const raw of ref.slice(1).split("/").slice(1)) {
      const seg = decodeURIComponent(raw).replace(/~1/g, "/").replace(/~0/g, "~");
      if (!isPlainObject(at) && !Array.isArray(at)) return undefined;
      at = (at as Record<string, unknown>)[seg];
    }
    return isPlainObject(at) ? at : at === true ? {} : undefined;
  }

  private node(schema: unknown, where: string): DecodeNode {
    if (schema === true || schema === undefined) return ANY;
    if (!isPlainObject(schema)) return ANY;
    if (typeof schema.$ref === "string") {
      let ref = this.refs.get(schema.$ref);
      if (!ref) {
        ref = { k: "ref", target: undefined, name: schema.$ref };
        this.refs.set(schema.$ref, ref);
      }
      return ref;
    }
    const types = typeList(schema);
    if (types !== undefined) return this.typed(schema, types, where);
    const variants = (Array.isArray(schema.anyOf) ? schema.anyOf : Array.isArray(schema.oneOf) ? schema.oneOf : undefined) as unknown[] | undefined;
    if (variants) return this.union(variants, where);
    if (Array.isArray(schema.allOf) && schema.allOf.length === 1) return this.node(schema.allOf[0], where);
    if (isPlainObject(schema.properties)) return this.struct(schema, false, where);
    if (isPlainObject(schema.additionalProperties) || isPlainObject(schema.patternProperties)) return this.map(schema, where);
    if (schema.items !== undefined) return this.array(schema, where);
    const literal = literalType(schema);
    if (literal) return { k: "scalar", type: literal, nullable: false };
    return ANY;
  }

  private typed(schema: JsonSchemaObject, types: string[], where: string): DecodeNode {
    const nullable = types.includes("null");
    const kinds = types.filter((t) => t !== "null");
    if (kinds.length === 0) return { k: "null" };
    if (kinds.length > 1) {
      const branches = kinds.map((t) => this.typed(schema, [t], where));
      return { k: "union", branches, types: kinds.map(article).join(" or ") };
    }
    const kind = kinds[0]!;
    switch (kind) {
      case "string":
      case "integer":
      case "number":
      case "boolean":
        return { k: "scalar", type: kind, nullable };
      case "object":
        if (isPlainObject(schema.properties)) return this.struct(schema, nullable, where);
        if (
          isPlainObject(schema.additionalProperties) ||
          isPlainObject(schema.patternProperties) ||
          schema.additionalProperties === true ||
          schema.additionalProperties === undefined
        ) {
          return this.map(schema, where);
        }
        return this.struct(schema, nullable, where); // `additionalProperties: false` and no properties: an empty struct
      case "array":
        return this.array(schema, where);
      default:
        throw new SchemaCompileError(`port schema does not compile: unknown type ${JSON.stringify(kind)} at ${where}`);
    }
  }

  private struct(schema: JsonSchemaObject, nullable: boolean, where: string): DecodeNode {
    const fields: Field[] = [];
    const exact = new Map<string, Field>();
    const folded = new Map<string, Field>();
    const props = isPlainObject(schema.properties) ? schema.properties : {};
    for (const [key, prop] of Object.entries(props)) {
      const field: Field = { key, node: this.node(prop, `${where}/properties/${key}`) };
      fields.push(field);
      exact.set(key, field);
      const low = asciiLower(key);
      if (!folded.has(low)) folded.set(low, field); // Go: the first field in declaration order wins a fold tie
    }
    const extra = schema.additionalProperties;
    const rest = isPlainObject(extra) ? this.node(extra, `${where}/additionalProperties`) : extra === true ? ANY : undefined;
    return { k: "struct", fields, exact, folded, rest, nullable };
  }

  private map(schema: JsonSchemaObject, where: string): DecodeNode {
    const pattern = isPlainObject(schema.patternProperties) ? Object.values(schema.patternProperties)[0] : undefined;
    const values = isPlainObject(schema.additionalProperties) ? schema.additionalProperties : pattern;
    return { k: "map", values: this.node(values, `${where}/additionalProperties`) };
  }

  private array(schema: JsonSchemaObject, where: string): DecodeNode {
    const items = schema.items;
    // A tuple (`items` as a list, or `prefixItems`) decodes like Go's []any: each element kept.
    return { k: "array", items: isPlainObject(items) || items === true ? this.node(items, `${where}/items`) : ANY };
  }

  private union(variants: unknown[], where: string): DecodeNode {
    const nonNull = variants.filter((v) => !(isPlainObject(v) && v.type === "null"));
    const nullable = nonNull.length < variants.length;
    const literals = nonNull.map((v) => (isPlainObject(v) ? literalType(v) : undefined));
    if (nonNull.length > 0 && literals.every((t) => t !== undefined && t === literals[0])) {
      return { k: "scalar", type: literals[0]!, nullable };
    }
    if (nonNull.length === 1) return withNullable(this.node(nonNull[0], `${where}/anyOf/0`), nullable);
    const branches = nonNull.map((v, i) => this.node(v, `${where}/anyOf/${i}`));
    if (branches.some((b) => b.k === "any")) return ANY;
    return { k: "union", branches, types: branches.map(nodeName).join(" or ") };
  }
}

function withNullable(node: DecodeNode, nullable: boolean): DecodeNode {
  if (!nullable) return node;
  if (node.k === "scalar" || node.k === "struct") return { ...node, nullable: true };
  if (node.k === "ref") return { k: "nullable", inner: node }; // a pointer to a (maybe recursive) named type
  return node; // any, arrays, maps, unions are nil-able already
}

function typeList(schema: JsonSchemaObject): string[] | undefined {
  const t = schema.type;
  if (typeof t === "string") return [t];
  if (Array.isArray(t) && t.every((x) => typeof x === "string")) return t as string[];
  return undefined;
}

/** The scalar type of a `const` or an `enum` of one JSON type (`Type.Literal`, `Type.Enum`). */
function literalType(schema: JsonSchemaObject): Scalar | undefined {
  const values = "const" in schema ? [schema.const] : Array.isArray(schema.enum) ? schema.enum : undefined;
  if (!values || values.length === 0) return undefined;
  const kinds = new Set(values.map((v) => (typeof v === "number" ? (Number.isInteger(v) ? "integer" : "number") : typeof v)));
  if (kinds.size === 1) {
    const only = [...kinds][0];
    if (only === "string" || only === "boolean" || only === "integer" || only === "number") return only;
  }
  if (kinds.size === 2 && kinds.has("integer") && kinds.has("number")) return "number";
  return undefined;
}

function article(type: string): string {
  return (EXPECTED as Record<string, string>)[type] ?? (type === "object" ? "an object" : type === "array" ? "an array" : type);
}

function nodeName(node: DecodeNode): string {
  switch (node.k) {
    case "scalar":
      return EXPECTED[node.type];
    case "struct":
    case "map":
      return "an object";
    case "array":
      return "an array";
    case "null":
      return "null";
    default:
      return "a value";
  }
}
