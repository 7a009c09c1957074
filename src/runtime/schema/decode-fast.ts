/**
 * The fast path of the Go-style port decoder (decode.ts): for data whose objects use only the
 * struct fields' exact names — what an edge configuration or a component's own emit almost always
 * is — each struct is decoded by a function generated for that struct, with its field names as
 * literals.
 *
 * Why generated code: the general decoder walks every port's schema with the same few functions,
 * so their property reads and writes see every struct shape of the process and the engine's
 * caches give up (megamorphic sites); in the Flow A hop chain (bench/http.ts) the decode took about
 * half of the two hops' CPU time. A function per struct keeps each site to one shape.
 *
 * Same outcome as the general decoder, by construction: a struct whose value has any other key
 * (a case-insensitive match, an unknown key, an `additionalProperties` key, an inherited one), or
 * whose field is `undefined`, is handed to the general decoder as a whole; and a type mismatch
 * anywhere makes the caller decode the whole value again with the general decoder, so the error
 * (which depends on the order keys came in) is always the general decoder's. Nothing here writes
 * to the input, so a second pass sees it unchanged.
 */
import type { DecodeNode } from "./decode-node.ts";

/** What the fast path needs from the general decoder (passed in: decode.ts imports this file). */
export interface GeneralDecoder {
  /** The general decode of `value` into `node` (fresh: no base value). */
  decode(node: DecodeNode, value: unknown, sorted: boolean): unknown;
  /** The zero value of `node`. */
  zero(node: DecodeNode): unknown;
  /** Go's `null` into a field of this kind makes it nil (else the field keeps its value). */
  nullSetsNil(node: DecodeNode): boolean;
  /** Throws the decoder's type-mismatch signal (`expected` as in its messages). */
  mismatch(expected: string, value: unknown): never;
}

/** Decodes one non-undefined value (null included) into its node, fresh; throws the mismatch signal. */
type Fast = (value: unknown, sorted: boolean) => unknown;

type Struct = Extract<DecodeNode, { k: "struct" }>;

/**
 * A field name the generated code cannot read as an own property by name: one `Object.prototype`
 * has (`constructor`, `toString`, `__proto__`…) would be found on every object.
 */
function unsafeKey(key: string): boolean {
  return key in Object.prototype;
}

/** The zero value of a field as source text, or undefined when it must be built per decode (a struct). */
function zeroLiteral(node: DecodeNode): string | undefined {
  switch (node.k) {
    case "scalar":
      return node.nullable ? "null" : node.type === "string" ? '""' : node.type === "boolean" ? "false" : "0";
    case "struct":
    case "ref":
      return node.k === "struct" && node.nullable ? "null" : undefined;
    default:
      return "null"; // any, null, nullable, map, array, union: Go's nil
  }
}

/**
 * Compiles the fast decoder of `root`; the caller runs it first and, when it throws the mismatch
 * signal, decodes again with `general` (see the module comment).
 */
export function compileFastDecoder(root: DecodeNode, general: GeneralDecoder): Fast {
  const built = new Map<DecodeNode, Fast>();

  function fast(node: DecodeNode): Fast {
    const hit = built.get(node);
    if (hit) return hit;
    // Registered before its parts are compiled: a recursive type reaches itself through a ref.
    let impl: Fast | undefined;
    const late: Fast = (v, sorted) => impl!(v, sorted);
    built.set(node, late);
    impl = make(node);
    built.set(node, impl);
    return impl;
  }

  function make(node: DecodeNode): Fast {
    switch (node.k) {
      case "any":
        return (v) => (v === undefined ? null : v);
      case "ref":
        return fast(node.target!); // compile() resolved every ref; a recursive one gets the placeholder
      case "nullable": {
        const inner = fast(node.inner);
        return (v, sorted) => (v === null || v === undefined ? null : inner(v, sorted));
      }
      case "array": {
        const items = fast(node.items);
        const itemZero = node.items;
        return (v, sorted) => {
          if (v === null || v === undefined) return null;
          if (!Array.isArray(v)) return general.mismatch("an array", v);
          const out = new Array<unknown>(v.length);
          for (let i = 0; i < v.length; i++) {
            const x: unknown = v[i];
            out[i] = x === null || x === undefined ? general.zero(itemZero) : items(x, sorted);
          }
          return out;
        };
      }
      case "struct":
        return struct(node);
      case "scalar":
        return scalar(node);
      default:
        // null, map, union: the general decoder (their cost is not in the per-struct shapes).
        return (v, sorted) => general.decode(node, v, sorted);
    }
  }

  function scalar(node: Extract<DecodeNode, { k: "scalar" }>): Fast {
    const ok = node.type === "string" ? isString : node.type === "boolean" ? isBoolean : undefined;
    if (!ok) return (v, sorted) => general.decode(node, v, sorted); // numbers: the range rules stay in one place
    const zero = general.zero(node);
    return (v, sorted) => (v === null || v === undefined ? zero : ok(v) ? v : general.decode(node, v, sorted));
  }

  function struct(node: Struct): Fast {
    const fields = node.fields;
    if (node.rest || fields.some((f) => unsafeKey(f.key))) return (v, sorted) => general.decode(node, v, sorted);
    const parts = fields.map((f) => fast(f.node));
    const zeros = fields.map((f) => f.node);
    const names = fields.map((f) => JSON.stringify(f.key));
    const read = names.map((n, i) =>
      general.nullSetsNil(fields[i]!.node)
        ? `v = value[${n}]; if (v !== undefined) { seen++; out[${n}] = v === null ? null : parts[${i}](v, sorted); }`
        : `v = value[${n}]; if (v !== undefined) { seen++; if (v !== null) out[${n}] = parts[${i}](v, sorted); }`,
    );
    // Only objects whose keys for-in sees are exactly their own (a plain or null prototype); each
    // key counted, so a key that is no field's exact name sends the value to the general decoder.
    const body = [
      `if (value === null || value === undefined) return nullable ? null : zero(self);`,
      `if (typeof value !== "object" || Array.isArray(value)) return mismatch("an object", value);`,
      `const proto = Object.getPrototypeOf(value);`,
      `if (proto !== ObjectPrototype && proto !== null) return general(value, sorted);`,
      `let keys = 0;`,
      `for (const _ in value) keys++;`,
      `let seen = 0, v;`,
      `const out = {${names.map((n, i) => `${n}: ${zeroLiteral(zeros[i]!) ?? `zero(zeros[${i}])`}`).join(", ")}};`,
      ...read,
      `return seen === keys ? out : general(value, sorted);`,
    ].join("\n");
    const factory = new Function(
      "nullable",
      "self",
      "ObjectPrototype",
      "mismatch",
      "zero",
      "zeros",
      "parts",
      "general",
      `return function decodeStruct(value, sorted) {\n${body}\n};`,
    );
    return factory(node.nullable, node, Object.prototype, general.mismatch, general.zero, zeros, parts, (value: unknown, sorted: boolean) =>
      general.decode(node, value, sorted),
    ) as Fast;
  }

  return fast(root);
}

function isString(v: unknown): boolean {
  return typeof v === "string";
}

function isBoolean(v: unknown): boolean {
  return typeof v === "boolean";
}
