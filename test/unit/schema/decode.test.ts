// The port decoder's Go semantics, one behaviour per test. The same rules are checked against the
// real Go SDK's decode by test/integration/port-parity.test.ts; these pin them without Go.
import { describe, expect, test } from "bun:test";
import Type from "typebox";
import { compilePortDecoder, SchemaCompileError, type DecodeOutcome } from "../../../src/runtime/schema/index.ts";

const Header = Type.Object({ key: Type.String(), value: Type.String() }, { $id: "Header" });
const Request = Type.Object({
  context: Type.Optional(Type.Unknown()),
  delay: Type.Integer(),
  ratio: Type.Optional(Type.Number()),
  on: Type.Optional(Type.Boolean()),
  name: Type.Optional(Type.String({ minLength: 3, enum: ["abc"] })),
  headers: Type.Optional(Type.Union([Type.Array(Header), Type.Null()])),
  inner: Type.Optional(Type.Object({ a: Type.String(), b: Type.Integer() })),
  tls: Type.Optional(Type.Union([Type.Object({ x: Type.String() }), Type.Null()])),
  params: Type.Optional(Type.Record(Type.String(), Type.Array(Type.String()))),
});
const decode = compilePortDecoder(Request);
const ZERO = { context: null, delay: 0, ratio: 0, on: false, name: "", headers: null, inner: { a: "", b: 0 }, tls: null, params: null };

function value(outcome: DecodeOutcome): unknown {
  if (!outcome.ok) throw new Error(`expected a value, got ${JSON.stringify(outcome.issues)}`);
  return outcome.value;
}

function issue(outcome: DecodeOutcome) {
  if (outcome.ok) throw new Error(`expected an issue, got ${JSON.stringify(outcome.value)}`);
  return outcome.issues[0]!;
}

describe("compilePortDecoder: zero values", () => {
  test("an empty object decodes to every field's zero value", () => {
    expect(value(decode({}))).toEqual(ZERO);
  });

  test("null and a missing payload decode to the zero struct", () => {
    expect(value(decode(null))).toEqual(ZERO);
    expect(value(decode(undefined))).toEqual(ZERO);
  });

  test("a null field keeps its zero value; nil-able kinds (any, list, map, pointer) become null", () => {
    expect(value(decode({ delay: null, name: null, inner: null, context: null, headers: null, tls: null }))).toEqual(ZERO);
  });

  test("a nested object fills its own missing fields with zero values", () => {
    expect(value(decode({ inner: { a: "x" } }))).toMatchObject({ inner: { a: "x", b: 0 } });
  });

  test("a nullable object (Go pointer) given an object decodes it as a struct", () => {
    expect(value(decode({ tls: {} }))).toMatchObject({ tls: { x: "" } });
  });

  test("null list elements of structs are zero structs", () => {
    expect(value(decode({ headers: [null, { key: "k" }] }))).toMatchObject({
      headers: [
        { key: "", value: "" },
        { key: "k", value: "" },
      ],
    });
  });

  test("editor-only keywords are not enforced: required, minLength, enum, default", () => {
    expect(value(decode({ name: "x" }))).toMatchObject({ name: "x", delay: 0 });
    const withDefault = compilePortDecoder(Type.Object({ n: Type.Integer({ default: 5 }) }));
    expect(value(withDefault({}))).toEqual({ n: 0 });
  });

  test("decoding never mutates the input", () => {
    const input = { delay: 1, x: 2, inner: { a: "y" } };
    const copy = structuredClone(input);
    decode(input);
    expect(input).toEqual(copy);
  });
});

describe("compilePortDecoder: keys", () => {
  test("unknown keys are dropped, at the root and in nested structs", () => {
    expect(value(decode({ delay: 1, extra: true, inner: { a: "x", b: 1, c: 2 } }))).toEqual({ ...ZERO, delay: 1, inner: { a: "x", b: 1 } });
  });

  test("keys match fields ignoring ASCII case", () => {
    expect(value(decode({ DELAY: 5, Inner: { A: "x" } }))).toMatchObject({ delay: 5, inner: { a: "x", b: 0 } });
  });

  test("non-ASCII case folding does not match (goccy/go-json folds ASCII only)", () => {
    const d = compilePortDecoder(Type.Object({ key: Type.Optional(Type.String()) }));
    expect(value(d({ "\u212aey": "x" }))).toEqual({ key: "" }); // KELVIN SIGN + "ey"
  });

  test("when several keys fill one field the last one in input order wins (a signal payload)", () => {
    expect(value(decode({ delay: 1, Delay: 2 }))).toMatchObject({ delay: 2 });
    expect(value(decode({ Delay: 2, delay: 1 }))).toMatchObject({ delay: 1 });
  });

  test("for an evaluated configuration the last one in sorted key order wins (Go encodes the map sorted first)", () => {
    expect(value(decode({ delay: 1, Delay: 2 }, { keyOrder: "sorted" }))).toMatchObject({ delay: 1 });
  });

  test("a null after a value for the same non-nil-able field leaves the value", () => {
    expect(value(decode({ delay: 5, Delay: null }))).toMatchObject({ delay: 5 });
  });

  test("two keys filling one nested struct merge into it", () => {
    expect(value(decode({ inner: { a: "x" }, Inner: { b: 3 } }))).toMatchObject({ inner: { a: "x", b: 3 } });
  });

  test("maps and untyped values keep every key", () => {
    expect(value(decode({ params: { q: ["1"], r: null }, context: { any: { deep: 1 } } }))).toMatchObject({
      params: { q: ["1"], r: null },
      context: { any: { deep: 1 } },
    });
  });

  test("a map (Type.Record) root decodes null as null and keeps all keys", () => {
    const d = compilePortDecoder(Type.Record(Type.String(), Type.Unknown()));
    expect(value(d(null))).toBeNull();
    expect(value(d({ a: 1, b: { c: null } }))).toEqual({ a: 1, b: { c: null } });
  });
});

describe("compilePortDecoder: type mismatches fail with the field and the value", () => {
  test("a string where an integer belongs", () => {
    expect(issue(decode({ delay: "5" }))).toEqual({ path: "$.delay", rule: "type", message: '$.delay must be an integer, got string "5"' });
  });

  test("a fraction for an integer", () => {
    expect(issue(decode({ delay: 1.5 })).message).toBe("$.delay must be an integer, got number 1.5");
  });

  test("an integer outside Go's int64 range", () => {
    expect(issue(decode({ delay: 2 ** 63 })).message).toBe("$.delay must be an integer within the 64-bit range, got number 9223372036854776000");
    expect(value(decode({ delay: -(2 ** 63) }))).toMatchObject({ delay: -(2 ** 63) });
  });

  test("a number or string where a boolean belongs", () => {
    expect(issue(decode({ on: 1 })).message).toBe("$.on must be a boolean, got number 1");
    expect(issue(decode({ on: "true" })).message).toBe('$.on must be a boolean, got string "true"');
  });

  test("an object where a string belongs, an object where a list belongs, a list where an object belongs", () => {
    expect(issue(decode({ name: { a: 1 } })).message).toBe('$.name must be a string, got object {"a":1}');
    expect(issue(decode({ headers: { a: 1 } })).message).toBe('$.headers must be an array, got object {"a":1}');
    expect(issue(decode({ inner: [1] })).message).toBe("$.inner must be an object, got array [1]");
  });

  test("the path names list elements and nested fields; map keys that are not identifiers are quoted", () => {
    expect(issue(decode({ headers: [{ key: "a" }, { key: 7 }] })).path).toBe("$.headers[1].key");
    expect(issue(decode({ params: { "a-b": "x" } })).message).toBe(`$.params['a-b'] must be an array, got string "x"`);
  });

  test("a non-object root fails at $", () => {
    expect(issue(decode("x")).message).toBe('$ must be an object, got string "x"');
  });

  test("long values are cut in the message", () => {
    const m = issue(decode({ delay: "x".repeat(200) })).message;
    expect(m.length).toBeLessThan(120);
    expect(m.endsWith('..."') || m.endsWith("...")).toBe(true);
  });
});

describe("compilePortDecoder: schema shapes", () => {
  test("a union of literals decodes as its scalar type without checking the values", () => {
    const d = compilePortDecoder(Type.Object({ m: Type.Union([Type.Literal("get"), Type.Literal("post")]) }));
    expect(value(d({ m: "put" }))).toEqual({ m: "put" });
    expect(value(d({}))).toEqual({ m: "" });
    expect(issue(d({ m: 1 })).message).toBe("$.m must be a string, got number 1");
  });

  test("a union of different types takes the first branch that decodes", () => {
    const d = compilePortDecoder(Type.Object({ v: Type.Union([Type.Integer(), Type.String()]) }));
    expect(value(d({ v: "a" }))).toEqual({ v: "a" });
    expect(value(d({}))).toEqual({ v: null });
    expect(issue(d({ v: true })).message).toBe("$.v must be an integer or a string, got boolean true");
  });

  test("a type list with null is nullable", () => {
    const d = compilePortDecoder({ type: "object", properties: { n: { type: ["integer", "null"] } } });
    expect(value(d({}))).toEqual({ n: null });
    expect(value(d({ n: 3 }))).toEqual({ n: 3 });
  });

  test("local $refs resolve, recursive ones included", () => {
    const schema = {
      $ref: "#/$defs/Node",
      $defs: { Node: { type: "object", properties: { name: { type: "string" }, next: { anyOf: [{ $ref: "#/$defs/Node" }, { type: "null" }] } } } },
    };
    expect(value(compilePortDecoder(schema)({ next: { name: "b" } }))).toEqual({ name: "", next: { name: "b", next: null } });
  });

  test("an object with properties and an additionalProperties schema keeps unknown keys, decoded", () => {
    const d = compilePortDecoder(Type.Object({ a: Type.String() }, { additionalProperties: Type.Integer() }));
    expect(value(d({ b: 2 }))).toEqual({ a: "", b: 2 });
    expect(issue(d({ b: "x" })).path).toBe("$.b");
  });

  test("the decoder is compiled once per schema object", () => {
    expect(compilePortDecoder(Request)).toBe(decode);
  });
});

describe("compilePortDecoder: schema errors", () => {
  test("a misspelled keyword is rejected with INVALID_SCHEMA naming it and where it is", () => {
    let caught: unknown;
    try {
      compilePortDecoder({ type: "object", properties: { a: { type: "string", maxLenght: 3 } } });
    } catch (e) {
      caught = e;
    }
    expect(caught).toBeInstanceOf(SchemaCompileError);
    expect((caught as SchemaCompileError).code).toBe("INVALID_SCHEMA");
    expect((caught as Error).message).toBe('port schema does not compile: unknown keyword "maxLenght" at #/properties/a');
  });

  test("an unknown type and an unresolvable $ref are rejected", () => {
    expect(() => compilePortDecoder({ type: "strin" })).toThrow('#/type has unknown type "strin"');
    expect(() => compilePortDecoder({ $ref: "#/$defs/Nope" })).toThrow('$ref "#/$defs/Nope" does not resolve');
  });

  test("the platform keywords and TypeBox's own output are accepted", () => {
    const schema = Type.Object({
      c: Type.Unknown({
        configurable: true,
        shared: true,
        readonly: true,
        readOnly: true,
        enumTitles: ["A"],
        colSpan: "col-span-6",
        tab: "t",
        align: "l",
        language: "js",
        requiredWhen: "x",
        optionalWhen: "y",
        format: "code",
      }),
      t: Type.Tuple([Type.String(), Type.Integer()]),
      r: Type.Record(Type.String(), Type.Number()),
    });
    expect(value(compilePortDecoder(schema)({ t: ["a", 1], r: { x: 1 } }))).toEqual({ c: null, t: ["a", 1], r: { x: 1 } });
  });
});
