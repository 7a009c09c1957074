// The decoder's fast path (src/runtime/schema/decode-fast.ts) must give exactly what the general
// decoder gives — value, key order and error — for every port schema of the bundled components and
// for payloads built to reach each of its fall-backs (folded keys, unknown keys, undefined fields,
// inherited keys, mismatches in several fields, recursive types).
import { describe, expect, test } from "bun:test";
import Type from "typebox";
import { resolve } from "node:path";
import { discoverComponents } from "../../../src/loader/discover.ts";
import { compileGeneralDecoder, compilePortDecoder, type DecodeOptions } from "../../../src/runtime/schema/decode.ts";

const registry = await discoverComponents(resolve(import.meta.dir, "../../../components"));

/** The outcome as text that keeps key order (toEqual ignores it; Go's JSON does not). */
function same(schema: object, data: unknown, options?: DecodeOptions): void {
  const fast = compilePortDecoder(schema)(data, options);
  const general = compileGeneralDecoder(schema)(data, options);
  expect(JSON.stringify(fast)).toBe(JSON.stringify(general));
  expect(fast.ok).toBe(general.ok);
}

/** Payloads for a schema: its zero-ish forms, each field exact, folded, null, wrong-typed, plus strays. */
function payloads(schema: Record<string, unknown>): unknown[] {
  const props = (schema.properties ?? {}) as Record<string, unknown>;
  const keys = Object.keys(props);
  const samples = ["s", 1, 1.5, true, null, [], ["a"], {}, { key: "k", value: "v" }, [{ key: "k", value: "v" }], { a: ["b"] }];
  const out: unknown[] = [undefined, null, {}, [], "text", 3];
  for (const k of keys) {
    for (const v of samples) {
      out.push({ [k]: v });
      out.push({ [k.toUpperCase()]: v });
      out.push({ [k]: v, stray: 1 });
      out.push({ [k]: undefined });
    }
  }
  // Several fields at once, in declared and reversed order, with two mismatches, with a fold collision.
  const all = Object.fromEntries(keys.map((k, i) => [k, samples[i % samples.length]]));
  out.push(all, Object.fromEntries(Object.entries(all).reverse()));
  if (keys.length >= 2) {
    out.push({ [keys[0]!]: [[1]], [keys[1]!]: { x: [[2]] } }, { [keys[1]!]: { x: [[2]] }, [keys[0]!]: [[1]] });
    out.push({ [keys[0]!.toUpperCase()]: "A", [keys[0]!]: "a" }, { [keys[0]!]: "a", [keys[0]!.toUpperCase()]: "A" });
  }
  out.push(Object.assign(Object.create({ [keys[0] ?? "x"]: "inherited" }), { other: 1 }));
  out.push(Object.assign(Object.create(null), all));
  return out;
}

describe("decoder fast path = general decoder", () => {
  for (const def of registry.list()) {
    test(`${def.info.name}: every port, every payload, both key orders`, () => {
      for (const port of def.ports()) {
        for (const data of payloads(port.schema as Record<string, unknown>)) {
          same(port.schema, data);
          same(port.schema, data, { keyOrder: "sorted" });
        }
      }
    });
  }

  test("nested structs, lists of structs, nullable structs and maps", () => {
    const Header = Type.Object({ key: Type.String(), value: Type.String() });
    const schema = Type.Object({
      inner: Type.Object({ a: Type.String(), b: Type.Integer(), deep: Type.Object({ on: Type.Boolean() }) }),
      list: Type.Union([Type.Array(Header), Type.Null()]),
      ptr: Type.Union([Type.Object({ x: Type.String() }), Type.Null()]),
      map: Type.Record(Type.String(), Type.Integer()),
      any: Type.Unknown(),
    });
    for (const data of [
      {},
      { inner: { a: "x", deep: { on: true } }, list: [null, { key: "k" }], ptr: { x: "y" }, map: { a: 1 }, any: { z: [1] } },
      { inner: { a: "x", B: 2 } },
      { inner: { deep: { ON: true } } },
      { inner: { deep: { on: "no" } }, list: [{ key: 1 }] },
      { list: [{ key: "k", value: "v", extra: 1 }] },
      { ptr: null, inner: null, list: null, map: null, any: null },
      { map: { a: "1" } },
    ]) {
      same(schema, data);
      same(schema, data, { keyOrder: "sorted" });
    }
  });

  test("a recursive type through a $ref", () => {
    const schema = {
      $defs: { Node: { type: "object", properties: { name: { type: "string" }, children: { type: ["array", "null"], items: { $ref: "#/$defs/Node" } } } } },
      $ref: "#/$defs/Node",
    };
    same(schema, { name: "a", children: [{ name: "b", children: [{ name: "c" }] }, null] });
    same(schema, { name: "a", children: [{ name: 1 }] });
    same(schema, { name: "a", children: [{ NAME: "b" }] });
  });

  test("a field named like an Object.prototype member is decoded as the general decoder does", () => {
    const schema = Type.Object({ constructor: Type.String(), toString: Type.Optional(Type.String()), a: Type.String() });
    for (const data of [{}, { a: "x" }, { constructor: "c" }, { toString: "t", a: "x" }, { stray: 1 }]) same(schema, data);
  });

  test("the decoded value is a fresh object each time (a caller may change it)", () => {
    const d = compilePortDecoder(Type.Object({ inner: Type.Object({ a: Type.String() }) }));
    const one = d({}) as { ok: true; value: { inner: { a: string } } };
    one.value.inner.a = "changed";
    expect(d({})).toEqual({ ok: true, value: { inner: { a: "" } } });
  });
});
