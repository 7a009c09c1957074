/**
 * A template is compiled once and evaluated per hop (runtime-spec §2.11): results follow the
 * payload, the configuration is never mutated, and each evaluation returns fresh containers.
 */
import { describe, expect, test } from "bun:test";
import { compileExpression, compileTemplate, isTemplateConstant } from "../../../src/runtime/expression/index.ts";

function deepFreeze<T>(value: T): T {
  if (typeof value === "object" && value !== null) {
    for (const v of Object.values(value)) deepFreeze(v);
    Object.freeze(value);
  }
  return value;
}

describe("compile once, evaluate many", () => {
  test("evaluating twice with different payloads gives different results", () => {
    const t = compileTemplate({ count: "{{$.count}}", line: "tick #{{$.count}}" });
    expect(t.evaluate({ count: 1 })).toEqual({ count: 1, line: "tick #1" });
    expect(t.evaluate({ count: 2 })).toEqual({ count: 2, line: "tick #2" });
  });

  test("the configuration object is not mutated by compiling or evaluating", () => {
    const config = { context: "{{$}}", conditions: [{ route: "GET", condition: "{{$.method == 'GET'}}" }], fixed: { a: [1, 2] } };
    const before = structuredClone(config);
    deepFreeze(config); // any write would throw in strict-mode module code
    const t = compileTemplate(config);
    t.evaluate({ method: "GET" });
    t.evaluate({ method: "POST" });
    expect(config).toEqual(before);
  });

  test("later changes to the configuration do not affect the compiled template", () => {
    const config: { fixed: { a: number[] }; v: string } = { fixed: { a: [1] }, v: "{{$.x}}" };
    const t = compileTemplate(config);
    config.fixed.a.push(99);
    config.v = "changed";
    expect(t.evaluate({ x: 5 })).toEqual({ fixed: { a: [1] }, v: 5 });
  });

  test("each evaluation returns fresh containers for constant parts", () => {
    const t = compileTemplate({ headers: [{ key: "a", value: "b" }], v: "{{$.x}}" });
    const first = t.evaluate({ x: 1 }) as { headers: Array<{ key: string }> };
    first.headers[0]!.key = "mutated";
    first.headers.push({ key: "extra" });
    expect(t.evaluate({ x: 1 })).toEqual({ headers: [{ key: "a", value: "b" }], v: 1 });
  });

  test("a configuration without expressions is constant and still evaluates to a copy", () => {
    const config = { statusCode: 200, body: "ok", list: [1, { a: 2 }] };
    const t = compileTemplate(config);
    expect(isTemplateConstant(t)).toBe(true);
    const out = t.evaluate({ anything: true });
    expect(out).toEqual(config);
    expect(out).not.toBe(config);
  });

  test("a configuration with an expression is not constant", () => {
    expect(isTemplateConstant(compileTemplate({ a: [{ b: "x {{$.y}}" }] }))).toBe(false);
  });

  test("the template lists its compiled expressions in walk order", () => {
    const t = compileTemplate({ a: "{{$.x}}", b: ["{{$.y}}-{{$.z}}"] });
    expect(t.expressions.map((e) => e.source)).toEqual(["$.x", "$.y", "$.z"]);
  });

  test("a compiled expression keeps its trimmed source and evaluates per payload", () => {
    const e = compileExpression("  $.a * 2  ");
    expect(e.source).toBe("$.a * 2");
    expect(e.evaluate({ a: 2 })).toBe(4);
    expect(e.evaluate({ a: 5 })).toBe(10);
  });

  test("compileExpression accepts the braces form too", () => {
    expect(compileExpression("{{ $.a }}").evaluate({ a: "v" })).toBe("v");
  });

  test("a __proto__ key in the configuration stays an own property", () => {
    const config = JSON.parse('{"__proto__": {"polluted": "{{$.x}}"}, "b": "{{$.x}}"}') as unknown;
    const out = compileTemplate(config).evaluate({ x: 1 }) as Record<string, unknown>;
    expect(Object.getPrototypeOf(out)).toBe(Object.prototype);
    expect(Object.prototype.hasOwnProperty.call(out, "__proto__")).toBe(true);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  test("an evaluated object keeps the configuration's keys, their order and awkward names (quotes, backslashes, line breaks, numbers)", () => {
    const config = JSON.parse('{"z": "{{$.x}}", "a\\"b": 1, "c\\\\d": "{{$.x}}", "e\\nf": "k", "10": "{{$.x}}", "2": 2, "": "{{$.x}}"}') as Record<
      string,
      unknown
    >;
    const out = compileTemplate(config).evaluate({ x: 7 }) as Record<string, unknown>;
    expect(Object.keys(out)).toEqual(Object.keys(config));
    expect(JSON.stringify(out)).toBe(JSON.stringify({ ...config, z: 7, "c\\d": 7, "10": 7, "": 7 }));
  });

  test("now($) returns the current unix time in seconds", () => {
    const before = Math.floor(Date.now() / 1000);
    const v = compileExpression("now($)").evaluate({}) as number;
    const after = Math.floor(Date.now() / 1000);
    expect(v).toBeGreaterThanOrEqual(before);
    expect(v).toBeLessThanOrEqual(after);
  });
});
