import { expect, test } from "bun:test";
import Type from "typebox";
import { configurable, mark, shared, toPlatformSchema } from "../../../src/runtime/schema/index.ts";

test("TypeBox keeps platform options passed to a builder as schema keywords", () => {
  expect(JSON.parse(JSON.stringify(Type.String({ configurable: true, enumTitles: ["A"], colSpan: "col-span-6" })))).toEqual({
    type: "string",
    configurable: true,
    enumTitles: ["A"],
    colSpan: "col-span-6",
  });
});

test("mark/configurable/shared add keywords on a copy and keep TypeBox's kind and optional markers", () => {
  const base = Type.Optional(Type.Unknown());
  const marked = configurable(base);
  expect(marked).not.toBe(base);
  expect("configurable" in base).toBe(false);
  expect(Type.IsUnknown(marked)).toBe(true);
  expect(Type.IsOptional(marked)).toBe(true);
  expect(shared(Type.String())).toMatchObject({ shared: true });
  expect(mark(Type.String(), { tab: "Advanced", readonly: true })).toMatchObject({ tab: "Advanced", readonly: true });
});

test("a field marked with configurable() is published as a configurable def", () => {
  const schema = Type.Object({ context: configurable(Type.Unknown()), n: Type.Optional(Type.Number()) });
  const out = toPlatformSchema(schema, undefined, "In");
  expect(out.$defs?.Context).toEqual({ configurable: true, path: "$.context" });
  expect(out.$defs?.In?.required).toEqual(["context"]);
});
