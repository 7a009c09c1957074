import { describe, expect, test } from "bun:test";
import Type from "typebox";
import { compilePortValidator, pointerToJsonPath, SchemaCompileError, toPlatformSchema } from "../../../src/runtime/schema/index.ts";

const User = Type.Object({
  user: Type.Object({ name: Type.String({ minLength: 3 }), age: Type.Optional(Type.Integer({ minimum: 0 })) }),
  items: Type.Optional(Type.Array(Type.Object({ id: Type.String() }))),
});

describe("compilePortValidator", () => {
  test("valid data yields null", () => {
    expect(compilePortValidator(User)({ user: { name: "Ann", age: 3 } })).toBeNull();
  });

  test("a type error names the JSONPath, the rule and the expected and seen types", () => {
    expect(compilePortValidator(User)({ user: { name: "Ann", age: "3" } })).toEqual([
      { path: "$.user.age", rule: "type", message: "$.user.age must be integer, got string" },
    ]);
  });

  test("a missing required property is reported at the property's own path", () => {
    expect(compilePortValidator(User)({ user: {} })).toEqual([{ path: "$.user.name", rule: "required", message: "$.user.name is required" }]);
  });

  test("a length violation names the limit", () => {
    const issues = compilePortValidator(User)({ user: { name: "Al" } });
    expect(issues?.[0]?.rule).toBe("minLength");
    expect(issues?.[0]?.path).toBe("$.user.name");
    expect(issues?.[0]?.message).toContain("3 characters");
  });

  test("array elements are addressed with [index]", () => {
    const issues = compilePortValidator(User)({ user: { name: "Ann" }, items: [{ id: "a" }, { id: 7 }] });
    expect(issues).toEqual([{ path: "$.items[1].id", rule: "type", message: "$.items[1].id must be string, got integer" }]);
  });

  test("a failed union reports one issue for the union, not one per branch", () => {
    const validate = compilePortValidator(Type.Object({ m: Type.Union([Type.Literal("get"), Type.Literal("post")]) }));
    const issues = validate({ m: "put" });
    expect(issues?.map((i) => [i.path, i.rule])).toEqual([["$.m", "anyOf"]]);
  });

  test("platform schemas with every custom keyword compile in strict mode and validate through $defs", () => {
    const schema = Type.Object({
      context: Type.Unknown({ configurable: true }),
      route: Type.String({ shared: true, enum: ["a"], enumTitles: ["A"], readonly: true }),
      body: Type.String({ requiredWhen: "x", optionalWhen: "y", colSpan: "col-span-6", tab: "T", align: "left", format: "code", language: "js" }),
    });
    const validate = compilePortValidator(toPlatformSchema(schema, undefined, "In"));
    expect(validate({ context: { any: 1 }, route: "a", body: "" })).toBeNull();
    expect(validate({ context: 1, route: "b", body: "" })?.[0]).toMatchObject({ path: "$.route", rule: "enum" });
  });

  test("a misspelled keyword is rejected with INVALID_SCHEMA", () => {
    const bad = { type: "object", properties: { a: { type: "string", maxLenght: 3 } } };
    let caught: unknown;
    try {
      compilePortValidator(bad);
    } catch (e) {
      caught = e;
    }
    expect(caught).toBeInstanceOf(SchemaCompileError);
    expect((caught as SchemaCompileError).code).toBe("INVALID_SCHEMA");
    expect((caught as Error).message).toContain("maxLenght");
  });

  test("the validator is compiled once per schema object", () => {
    const schema = Type.Object({ a: Type.String() });
    expect(compilePortValidator(schema)).toBe(compilePortValidator(schema));
    expect(compilePortValidator(Type.Object({ a: Type.String() }))).not.toBe(compilePortValidator(schema));
  });

  test("types are not coerced: a numeric string fails an integer field", () => {
    const validate = compilePortValidator(Type.Object({ n: Type.Integer() }));
    expect(validate({ n: "1" })?.[0]?.rule).toBe("type");
  });

  test("defaults are not written into the data", () => {
    const validate = compilePortValidator(Type.Object({ n: Type.Optional(Type.Integer({ default: 5 })) }));
    const data: Record<string, unknown> = {};
    expect(validate(data)).toBeNull();
    expect(data).toEqual({});
  });

  test("format is a UI hint and is not asserted", () => {
    const validate = compilePortValidator(Type.Object({ when: Type.String({ format: "date-time" }), b: Type.Boolean({ format: "button" }) }));
    expect(validate({ when: "not a date", b: false })).toBeNull();
  });

  test("two ports whose TypeBox types share an $id both compile", () => {
    const a = Type.Object({ x: Type.String() }, { $id: "Msg" });
    const b = Type.Object({ y: Type.Number() }, { $id: "Msg" });
    expect(compilePortValidator(a)({ x: "1" })).toBeNull();
    expect(compilePortValidator(b)({ y: 1 })).toBeNull();
  });
});

test("pointerToJsonPath turns RFC 6901 pointers into JSONPath", () => {
  expect(pointerToJsonPath("")).toBe("$");
  expect(pointerToJsonPath("/a/0/b")).toBe("$.a[0].b");
  expect(pointerToJsonPath("/a~1b/c d")).toBe("$['a/b']['c d']");
});
