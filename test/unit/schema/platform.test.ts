import { describe, expect, test } from "bun:test";
import Type from "typebox";
import { schemaToBase64, toPlatformSchema } from "../../../src/runtime/schema/index.ts";

describe("toPlatformSchema", () => {
  test("a missing schema publishes the empty schema", () => {
    expect(toPlatformSchema(undefined)).toEqual({});
  });

  test("a flat object becomes one root def with ordered scalar properties", () => {
    const schema = Type.Object({ name: Type.String(), age: Type.Optional(Type.Integer()) }, { $id: "Person" });
    expect(toPlatformSchema(schema)).toEqual({
      $ref: "#/$defs/Person",
      $defs: {
        Person: {
          type: "object",
          required: ["name"],
          properties: {
            name: { type: "string", propertyOrder: 1 },
            age: { type: "integer", propertyOrder: 2 },
          },
          path: "$",
        },
      },
    });
  });

  test("a nested object moves to $defs with its JSONPath and the property keeps only $ref and propertyOrder", () => {
    const schema = Type.Object({ id: Type.String(), user: Type.Object({ name: Type.String() }, { title: "User" }) }, { $id: "ModifyInMessage" });
    expect(toPlatformSchema(schema)).toEqual({
      $ref: "#/$defs/Modifyinmessage",
      $defs: {
        Modifyinmessage: {
          type: "object",
          required: ["id", "user"],
          properties: {
            id: { type: "string", propertyOrder: 1 },
            user: { $ref: "#/$defs/User", propertyOrder: 2 },
          },
          path: "$",
        },
        User: {
          type: "object",
          required: ["name"],
          title: "User",
          properties: { name: { type: "string", propertyOrder: 1 } },
          path: "$.user",
        },
      },
    });
  });

  test("an array property stays inline (a Go unnamed slice) and its object items get a def whose path ends in [0]", () => {
    const schema = Type.Object({ items: Type.Array(Type.Object({ x: Type.Integer() })) }, { $id: "Batch" });
    expect(toPlatformSchema(schema)).toEqual({
      $ref: "#/$defs/Batch",
      $defs: {
        Batch: {
          type: "object",
          required: ["items"],
          properties: { items: { type: "array", items: { $ref: "#/$defs/ItemsItem" }, propertyOrder: 1 } },
          path: "$",
        },
        ItemsItem: {
          type: "object",
          required: ["x"],
          properties: { x: { type: "integer", propertyOrder: 1 } },
          path: "$.items[0]",
        },
      },
    });
  });

  test("an array item with $id is named after it", () => {
    const Condition = Type.Object({ route: Type.String() }, { $id: "Condition" });
    const out = toPlatformSchema(Type.Object({ conditions: Type.Array(Condition) }), undefined, "InMessage");
    expect((out.$defs?.Inmessage?.properties as Record<string, { items: unknown }>).conditions!.items).toEqual({ $ref: "#/$defs/Condition" });
    expect(out.$defs?.Condition?.path).toBe("$.conditions[0]");
  });

  test("scalar items get the def Go names after the element type; identical defs are shared", () => {
    const schema = Type.Object({ a: Type.Array(Type.String()), b: Type.Array(Type.String()), n: Type.Array(Type.Integer()) });
    const defs = toPlatformSchema(schema, undefined, "S").$defs!;
    expect(defs.String).toEqual({ type: "string", path: "$.a[0]" });
    expect(defs.Int).toEqual({ type: "integer", path: "$.n[0]" });
    expect(Object.keys(defs)).toEqual(["Int", "S", "String"]);
  });

  test("an array with its own $id is a named slice type and moves to $defs", () => {
    const schema = Type.Object({ routes: Type.Array(Type.String(), { $id: "Routes" }) });
    const defs = toPlatformSchema(schema, undefined, "S").$defs!;
    expect(defs.Routes).toEqual({ type: "array", items: { $ref: "#/$defs/String" }, path: "$.routes" });
    expect(defs.String?.path).toBe("$.routes[0]");
  });

  test("an untyped configurable field moves to $defs carrying configurable, title and description (Go json_test shape)", () => {
    const schema = Type.Object(
      { context: Type.Unknown({ configurable: true, title: "Context", description: "Arbitrary message to be modified" }) },
      { $id: "ModifyInMessage" },
    );
    expect(toPlatformSchema(schema)).toEqual({
      $ref: "#/$defs/Modifyinmessage",
      $defs: {
        Context: { configurable: true, title: "Context", description: "Arbitrary message to be modified", path: "$.context" },
        Modifyinmessage: {
          type: "object",
          required: ["context"],
          properties: { context: { $ref: "#/$defs/Context", propertyOrder: 1 } },
          path: "$",
        },
      },
    });
  });

  test("a shared scalar moves to $defs and a shared or configurable array passes the flag to its item def", () => {
    const schema = Type.Object({
      route: Type.String({ shared: true, enum: ["a", "b"] }),
      array: Type.Array(Type.Unknown(), { shared: true }),
      rows: Type.Array(Type.Object({ v: Type.Number() }), { configurable: true }),
    });
    const defs = toPlatformSchema(schema, undefined, "Settings").$defs!;
    expect(defs.Route).toEqual({ type: "string", shared: true, enum: ["a", "b"], path: "$.route" });
    expect(defs.RowsItem?.configurable).toBe(true);
    expect(defs.RowsItem?.shared).toBeUndefined();
    expect(defs.Settings?.properties).toEqual({
      route: { $ref: "#/$defs/Route", propertyOrder: 1 },
      // untyped items without $id stay inline (Go []any), still carrying the array's flag
      array: { type: "array", shared: true, items: { shared: true }, propertyOrder: 2 },
      rows: { type: "array", configurable: true, items: { $ref: "#/$defs/RowsItem" }, propertyOrder: 3 },
    });
  });

  test("enumTitles is kept and a union of string literals is published as enum", () => {
    const schema = Type.Object({
      method: Type.Union([Type.Literal("get"), Type.Literal("post")], { title: "Method", enumTitles: ["GET", "POST"] }),
    });
    const root = toPlatformSchema(schema, undefined, "Request").$defs!.Request!;
    expect((root.properties as Record<string, unknown>).method).toEqual({
      type: "string",
      title: "Method",
      enumTitles: ["GET", "POST"],
      enum: ["get", "post"],
      propertyOrder: 1,
    });
  });

  test("propertyOrder is the 1-based sibling position and overrides an authored value", () => {
    const schema = Type.Object({
      c: Type.String({ propertyOrder: 9 }),
      a: Type.Boolean(),
      b: Type.Object({ z: Type.String(), y: Type.String() }),
    });
    const defs = toPlatformSchema(schema, undefined, "Root").$defs!;
    const props = defs.Root!.properties as Record<string, { propertyOrder: number }>;
    expect([props.c!.propertyOrder, props.a!.propertyOrder, props.b!.propertyOrder]).toEqual([1, 2, 3]);
    const nested = defs.B!.properties as Record<string, { propertyOrder: number }>;
    expect([nested.z!.propertyOrder, nested.y!.propertyOrder]).toEqual([1, 2]);
    expect(defs.B!.propertyOrder).toBeUndefined();
  });

  test("an untyped field holding an object gets sorted properties inferred from the value (Go enrichDefsFromValue)", () => {
    const schema = Type.Object({ context: Type.Unknown({ configurable: true }) });
    const value = { context: { zeta: "x", alpha: 2, mid: { on: true }, list: [1.5] } };
    const ctx = toPlatformSchema(schema, value, "Settings").$defs!.Context!;
    expect(ctx).toEqual({
      configurable: true,
      type: "object",
      properties: {
        alpha: { type: "number", default: 2, propertyOrder: 1 },
        list: { type: "array", default: [1.5], items: { type: "number", default: 1.5 }, propertyOrder: 2 },
        mid: { type: "object", properties: { on: { type: "boolean", default: true, propertyOrder: 1 } }, propertyOrder: 3 },
        zeta: { type: "string", default: "x", propertyOrder: 4 },
      },
      path: "$.context",
    });
  });

  test("an untyped field holding a scalar is typed from it and, unflagged, stays inline", () => {
    const schema = Type.Object({ a: Type.Unknown({ configurable: true }), b: Type.Unknown() });
    const defs = toPlatformSchema(schema, { a: "x", b: 3 }, "S").$defs!;
    expect(defs.A).toEqual({ configurable: true, type: "string", path: "$.a" });
    expect((defs.S!.properties as Record<string, unknown>).b).toEqual({ type: "number", propertyOrder: 2 });
  });

  test("an untyped field holding a list gets the item def <Name>Item typed from the first element", () => {
    const schema = Type.Object({ context: Type.Unknown({ configurable: true }) });
    const defs = toPlatformSchema(schema, { context: [{ k: "v" }] }, "S").$defs!;
    expect(defs.Context).toEqual({ configurable: true, type: "array", items: { $ref: "#/$defs/ContextItem" }, path: "$.context" });
    expect(defs.ContextItem).toEqual({
      type: "object",
      properties: { k: { type: "string", default: "v", propertyOrder: 1 } },
      configurable: true,
      path: "$.context[0]",
    });
  });

  test("a map publishes as additionalProperties, its values inline, and takes the live keys as properties", () => {
    const schema = Type.Object({ params: Type.Record(Type.String(), Type.Array(Type.String()), { $id: "Values" }) });
    const empty = toPlatformSchema(schema, { params: null }, "R").$defs!;
    expect(empty.Values).toEqual({ type: "object", additionalProperties: { type: "array", items: { type: "string" } }, path: "$.params" });
    const full = toPlatformSchema(schema, { params: { q: ["1"] } }, "R").$defs!;
    expect(full.Values?.properties).toEqual({ q: { type: "array", default: ["1"], items: { type: "string", default: "1" }, propertyOrder: 1 } });
  });

  test("an unnamed map field (Go map[string]T) stays inline with its live keys; a configurable one is a def", () => {
    const schema = Type.Object({
      labels: Type.Record(Type.String(), Type.String(), { title: "Labels" }),
      ctx: Type.Record(Type.String(), Type.Unknown(), { configurable: true }),
    });
    const out = toPlatformSchema(schema, { labels: { pod: "p" }, ctx: {} }, "R").$defs!;
    expect(out.R!.properties).toEqual({
      labels: {
        title: "Labels",
        type: "object",
        additionalProperties: { type: "string" },
        properties: { pod: { type: "string", default: "p", propertyOrder: 1 } },
        propertyOrder: 1,
      },
      ctx: { $ref: "#/$defs/Ctx", propertyOrder: 2 },
    });
  });

  test("an untyped map's values are typed after its live members when they agree, and not at all when they do not", () => {
    const schema = Type.Object({ values: Type.Record(Type.String(), Type.Unknown()) });
    const same = toPlatformSchema(schema, { values: { a: false, b: true } }, "R").$defs!.R!.properties as Record<string, Record<string, unknown>>;
    expect(same.values!.additionalProperties).toEqual({ type: "boolean" });
    const mixed = toPlatformSchema(schema, { values: { a: false, n: 0 } }, "R").$defs!.R!.properties as Record<string, Record<string, unknown>>;
    expect("additionalProperties" in mixed.values!).toBe(false);
    expect(Object.keys(mixed.values!.properties as object)).toEqual(["a", "n"]);
  });

  test("ErrorMessageSchema publishes Go's module.ErrorMessage: its unnamed configurable context stays inline", async () => {
    const { ErrorMessageSchema } = await import("../../../src/sdk/fields.ts");
    const out = toPlatformSchema(ErrorMessageSchema, { error: "", retryable: false });
    expect(Object.keys(out.$defs!)).toEqual(["Errormessage"]); // Go's def name casing
    expect((out.$defs!.Errormessage!.properties as Record<string, unknown>).context).toMatchObject({ configurable: true, title: "Context", propertyOrder: 1 });
  });

  test("null is never a published type, and a null default is dropped (Go pointers and slices)", () => {
    const schema = Type.Object({
      list: Type.Union([Type.Array(Type.String()), Type.Null()], { title: "L", default: null }),
      ptr: Type.Union([Type.Object({ x: Type.String() }, { $id: "Tls" }), Type.Null()]),
      raw: Type.Unsafe({ type: ["integer", "null"] }),
    });
    const defs = toPlatformSchema(schema, undefined, "S").$defs!;
    const props = defs.S!.properties as Record<string, unknown>;
    expect(props.list).toEqual({ type: "array", title: "L", items: { $ref: "#/$defs/String" }, propertyOrder: 1 });
    expect(props.ptr).toEqual({ $ref: "#/$defs/Tls", propertyOrder: 2 });
    expect(defs.Tls?.type).toBe("object");
    expect(props.raw).toEqual({ type: "integer", propertyOrder: 3 });
  });

  test("an untyped root without data is a bare def at $ (Go signal Context)", () => {
    expect(toPlatformSchema(Type.Unknown(), undefined, "Context")).toEqual({
      $ref: "#/$defs/Context",
      $defs: { Context: { path: "$" } },
    });
  });

  test("platform keywords and annotations survive into the published schema", () => {
    const body = Type.String({
      readonly: true,
      requiredWhen: "x",
      optionalWhen: "y",
      colSpan: "col-span-6",
      tab: "Advanced",
      align: "right",
      format: "code",
      language: "javascript",
      title: "Body",
      description: "request body",
      default: "{}",
    });
    const props = toPlatformSchema(Type.Object({ body }), undefined, "Req").$defs!.Req!.properties as Record<string, unknown>;
    expect(props.body).toEqual({
      type: "string",
      readonly: true,
      readOnly: true, // Go's readonly tag publishes both spellings
      requiredWhen: "x",
      optionalWhen: "y",
      colSpan: "col-span-6",
      tab: "Advanced",
      align: "right",
      format: "code",
      language: "javascript",
      title: "Body",
      description: "request body",
      default: "{}",
      propertyOrder: 1,
    });
  });

  test("the root def name comes from $id (the Go type name), else rootName, else title, title-cased like Go", () => {
    expect(toPlatformSchema(Type.Object({}), undefined, "inMessage").$ref).toBe("#/$defs/Inmessage");
    expect(toPlatformSchema(Type.Object({}, { $id: "ModifyInMessage" })).$ref).toBe("#/$defs/Modifyinmessage");
    expect(toPlatformSchema(Type.Object({}, { $id: "ModifyInMessage" }), undefined, "in").$ref).toBe("#/$defs/Modifyinmessage");
    expect(toPlatformSchema(Type.Object({}, { title: "Settings" })).$ref).toBe("#/$defs/Settings");
    expect(toPlatformSchema(Type.Object({})).$ref).toBe("#/$defs/Root");
  });

  test("two different fields with the same def name get distinct defs instead of overwriting", () => {
    const schema = Type.Object({
      context: Type.Unknown({ configurable: true }),
      inner: Type.Object({ context: Type.Object({ n: Type.Number() }) }),
    });
    const defs = toPlatformSchema(schema, undefined, "Root").$defs!;
    expect(defs.Context?.path).toBe("$.context");
    expect(defs.Context2?.path).toBe("$.inner.context");
    expect((defs.Inner!.properties as Record<string, unknown>).context).toEqual({ $ref: "#/$defs/Context2", propertyOrder: 1 });
  });

  test("nested $id is dropped from defs so it cannot re-base $ref resolution", () => {
    const schema = Type.Object({ user: Type.Object({ name: Type.String() }, { $id: "UserInfo" }) }, { $id: "Root" });
    const defs = toPlatformSchema(schema).$defs!;
    expect(defs.Userinfo).toBeDefined();
    expect(Object.values(defs).some((d) => "$id" in d)).toBe(false);
  });

  test("the input schema is not mutated", () => {
    const schema = Type.Object({ user: Type.Object({ name: Type.String() }), ctx: Type.Unknown() });
    const before = JSON.stringify(schema);
    toPlatformSchema(schema, { ctx: { a: 1 } });
    expect(JSON.stringify(schema)).toBe(before);
  });

  test("the same inputs always give byte-identical output (Go TestSchemaConsistency)", () => {
    const make = () => toPlatformSchema(Type.Object({ b: Type.Unknown(), a: Type.Array(Type.Object({ x: Type.String() })) }), { b: { y: 1, x: 2 } }, "M");
    expect(JSON.stringify(make())).toBe(JSON.stringify(make()));
    expect(Object.keys(make().$defs!)).toEqual(["AItem", "B", "M"]);
  });
});

describe("schemaToBase64", () => {
  test("encodes the schema's UTF-8 JSON in standard base64", () => {
    const schema = toPlatformSchema(Type.Object({ title: Type.String({ default: "héllo" }) }), undefined, "S");
    const decoded = JSON.parse(Buffer.from(schemaToBase64(schema), "base64").toString("utf8"));
    expect(decoded).toEqual(schema);
  });
});
