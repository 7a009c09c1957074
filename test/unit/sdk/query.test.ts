// compileQuery (src/sdk/query.ts): a query field evaluated per document as kv and array_filter do
// (ajson Eval + Unpack), with the edge-expression dialect.
import { describe, expect, test } from "bun:test";
import { compileQuery } from "../../../src/sdk/query.ts";

describe("compileQuery", () => {
  test("a predicate answers true or false per document", () => {
    const q = compileQuery("$.status == 'DOWN'");
    expect(q.evaluate({ status: "DOWN" })).toBe(true);
    expect(q.evaluate({ status: "UP" })).toBe(false);
    expect(compileQuery("$.restarts > 3").evaluate({ restarts: 7 })).toBe(true);
  });

  test("a path that matches nothing gives undefined; a field gives its value", () => {
    expect(compileQuery("$.missing").evaluate({ a: 1 })).toBeUndefined();
    expect(compileQuery("$.name").evaluate({ name: "api" })).toBe("api");
  });

  test("the text is taken as written: braces are not stripped", () => {
    expect(() => compileQuery("{{$.a}}")).toThrow();
  });

  test("a syntax error and an empty query throw at compile time with a code", () => {
    for (const text of ["$.a ==", ""]) {
      let code: string | undefined;
      try {
        compileQuery(text);
      } catch (err) {
        code = (err as { code?: string }).code;
      }
      expect(code).toBe("EXPRESSION_SYNTAX");
    }
  });

  test("an operator that fails on a document throws EXPRESSION_EVAL", () => {
    let code: string | undefined;
    try {
      compileQuery("$.a + 1").evaluate({ a: null });
    } catch (err) {
      code = (err as { code?: string }).code;
    }
    expect(code).toBe("EXPRESSION_EVAL");
  });
});
