/**
 * Error behaviour (runtime-spec §2.11): syntax errors are thrown when compiling, with the
 * 0-based position; evaluation errors make a pure string null and leave an interpolated
 * `{{…}}` in place, reporting each through onError.
 */
import { describe, expect, test } from "bun:test";
import { compileExpression, compileTemplate, ExpressionEvalError, ExpressionSyntaxError } from "../../../src/runtime/expression/index.ts";

function syntaxError(fn: () => unknown): ExpressionSyntaxError {
  try {
    fn();
  } catch (err) {
    if (err instanceof ExpressionSyntaxError) return err;
    throw new Error(`expected ExpressionSyntaxError, got ${String(err)}`);
  }
  throw new Error("expected ExpressionSyntaxError, nothing was thrown");
}

describe("syntax errors at compile time", () => {
  const cases: Array<[string, string]> = [
    ["$.a +", 'expression "{{$.a +}}": unexpected end of expression at position 5'],
    ["$.a $.b", 'expression "{{$.a $.b}}": unexpected "$.b" after a complete expression at position 4'],
    ["(1 + 2", 'expression "{{(1 + 2}}": unexpected end of expression, expected ")" at position 6'],
    ["'abc", 'expression "{{\'abc}}": malformed or unterminated string at position 0'],
    ["$.a # 1", 'expression "{{$.a # 1}}": unexpected character "#" at position 4'],
    ["foo($.a)", 'expression "{{foo($.a)}}": unknown function "foo" at position 0'],
    ["split($.a)", 'expression "{{split($.a)}}": function "split" takes at least 2 arguments, got 1 at position 0'],
    ["1 + upper('a', 'b')", "expression \"{{1 + upper('a', 'b')}}\": function \"upper\" takes 1 argument, got 2 at position 4"],
    ["$.a == bogus", 'expression "{{$.a == bogus}}": unknown constant "bogus" at position 7'],
    ["$.a ? 1", 'expression "{{$.a ? 1}}": unexpected end of expression, expected ":" of the conditional at position 7'],
    ["!$.a", 'expression "{{!$.a}}": unexpected "!": there is no "!" operator, write not(…) at position 0'],
    ["-$.a", 'expression "{{-$.a}}": a number is expected after "-" (there is no unary -; write 0 - x) at position 0'],
    ["now()", 'expression "{{now()}}": function "now" takes 1 argument, got 0 at position 0'],
    ["$[", 'expression "{{$[}}": unexpected end of expression, expected "]" at position 2'],
    ["$.a =~ '('", "expression \"{{$.a =~ '('}}\": error parsing regexp: missing closing ): `(` at position 7"],
  ];
  for (const [src, message] of cases) {
    test(`rejects ${JSON.stringify(src)} with its position`, () => {
      const err = syntaxError(() => compileExpression(src));
      expect(err.code).toBe("EXPRESSION_SYNTAX");
      expect(err.message).toBe(message);
    });
  }

  test("the error carries the expression, position and reason as fields", () => {
    const err = syntaxError(() => compileExpression("$.a +"));
    expect(err.expression).toBe("$.a +");
    expect(err.position).toBe(5);
    expect(err.reason).toBe("unexpected end of expression");
  });

  test("compileTemplate throws at compile time and names the configuration field", () => {
    const err = syntaxError(() => compileTemplate({ conditions: [{ route: "GET", condition: "{{$.method ==}}" }] }));
    expect(err.message).toBe('expression "{{$.method ==}}": unexpected end of expression at position 11 (in field "conditions[0].condition")');
    expect(err.field).toBe("conditions[0].condition");
  });

  test("positions are relative to the trimmed text between the braces", () => {
    const err = syntaxError(() => compileTemplate({ body: "x = {{   1 + )  }}" }));
    expect(err.expression).toBe("1 + )");
    expect(err.position).toBe(4);
  });

  test("a whitespace-only expression is a syntax error", () => {
    const err = syntaxError(() => compileTemplate("{{  }}"));
    expect(err.reason).toBe("expression is empty");
  });

  test("in tolerant mode a field that does not compile evaluates to null (or keeps its text) and reports the error each time", () => {
    const t = compileTemplate({ bad: "{{$.a +}}", text: "x={{foo}}", ok: "{{$.a}}" }, { tolerant: true });
    expect(t.syntaxErrors.map((e) => e.field)).toEqual(["bad", "text"]);
    const seen: string[] = [];
    expect(t.evaluate({ a: 1 }, (e) => seen.push(e.code))).toEqual({ bad: null, text: "x={{foo}}", ok: 1 });
    expect(seen).toEqual(["EXPRESSION_SYNTAX", "EXPRESSION_SYNTAX"]);
  });
});

describe("evaluation errors", () => {
  test("compileExpression.evaluate throws ExpressionEvalError naming the expression", () => {
    const e = compileExpression("$.a + 1");
    let caught: unknown;
    try {
      e.evaluate({});
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(ExpressionEvalError);
    const err = caught as ExpressionEvalError;
    expect(err.code).toBe("EXPRESSION_EVAL");
    expect(err.message).toBe('expression "{{$.a + 1}}": cannot apply "+" to missing value and number');
  });

  test("a failing pure expression evaluates to null and fires onError once with the field", () => {
    const seen: Array<ExpressionEvalError | ExpressionSyntaxError> = [];
    const out = compileTemplate({ ok: "{{$.n}}", bad: "{{$.n / 0}}" }).evaluate({ n: 3 }, (e) => seen.push(e));
    expect(out).toEqual({ ok: 3, bad: null });
    expect(seen.length).toBe(1);
    expect(seen[0]!.message).toBe('expression "{{$.n / 0}}": division by zero (in field "bad")');
    expect(seen[0]!.field).toBe("bad");
  });

  test("a failing interpolated expression keeps its text as written and fires onError", () => {
    const seen: string[] = [];
    const out = compileTemplate({ line: "n={{ upper($.n) }}, m={{$.m}}" }).evaluate({ n: 3, m: "ok" }, (e) => seen.push(e.message));
    expect(out).toEqual({ line: "n={{ upper($.n) }}, m=ok" });
    expect(seen).toEqual(['expression "{{upper($.n)}}": upper() needs a string, got number (in field "line")']);
  });

  test("evaluation without onError still degrades (null / kept text) instead of throwing", () => {
    const t = compileTemplate({ a: "{{$.x * 2}}", b: "v={{$.x * 2}}" });
    expect(t.evaluate({ x: "text" })).toEqual({ a: null, b: "v={{$.x * 2}}" });
  });

  test("a filter that fails on an element fails the whole path, as in Go", () => {
    const seen: string[] = [];
    const out = compileTemplate({ v: "{{$.items[?(@.n * 2 > 2)]}}" }).evaluate({ items: [{ n: "x" }, { n: 2 }] }, (e) => seen.push(e.message));
    expect(out).toEqual({ v: null });
    expect(seen).toEqual([
      'expression "{{$.items[?(@.n * 2 > 2)]}}": the filter [?(@.n * 2 > 2)] failed on an element: cannot apply "*" to string and number (in field "v")',
    ]);
  });

  test("an element a filter cannot reach (a missing member) just does not match", () => {
    const out = compileTemplate({ v: "{{$.items[?(@.n > 1)]}}" }).evaluate({ items: [{ m: 5 }, { n: 2 }] });
    expect(out).toEqual({ v: { n: 2 } });
  });

  test("a missing path is null without calling onError", () => {
    const seen: unknown[] = [];
    const out = compileTemplate({ a: "{{$.nope}}", b: "x{{$.nope.deeper}}" }).evaluate({}, (e) => seen.push(e));
    expect(out).toEqual({ a: null, b: "x" });
    expect(seen).toEqual([]);
  });

  test("b64decode of invalid input is an evaluation error", () => {
    expect(() => compileExpression("b64decode('***')").evaluate({})).toThrow(ExpressionEvalError);
  });
});
