/**
 * Property fuzzing of the expression lexer, parser and evaluator (src/runtime/expression): any
 * text inside `{{…}}` either compiles or fails with ExpressionSyntaxError, and a compiled
 * expression either evaluates or fails with ExpressionEvalError/NonFiniteNumberError — never
 * another exception, never a hang.
 */
import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { compileTemplate, ExpressionEvalError, ExpressionSyntaxError, NonFiniteNumberError } from "../../../src/runtime/expression/index.ts";
import { runs } from "./runs.ts";
import { TOKEN as SHARED_TOKEN } from "./expression-arbitraries.ts";

const KNOWN = [ExpressionSyntaxError, ExpressionEvalError, NonFiniteNumberError];
const known = (e: unknown) => KNOWN.some((k) => e instanceof k);

/** Tokens of the expression language, so generated text reaches past the lexer into the parser and evaluator (`now` too: no engine is compared here). */
const TOKEN = fc.oneof(SHARED_TOKEN, fc.constant("now"));
const PAYLOAD = fc.jsonValue({ maxDepth: 3 }).map((v) => ({ name: "n", items: [1, 2, 3], nested: { a: v }, v }));

function evaluate(expr: string, payload: unknown): void {
  let t;
  try {
    t = compileTemplate({ field: `{{${expr}}}` });
  } catch (e) {
    if (!known(e)) throw e;
    return;
  }
  try {
    t.evaluate(payload);
  } catch (e) {
    if (!known(e)) throw e;
  }
}

describe("expression fuzzing", () => {
  test("arbitrary text: compiles or fails with a syntax error, never another exception", () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 80 }), PAYLOAD, (text, payload) => evaluate(text, payload)),
      runs(3000),
    );
  });

  test("token soup from the language's own vocabulary: only coded expression errors", () => {
    fc.assert(
      fc.property(fc.array(TOKEN, { maxLength: 24 }), PAYLOAD, (tokens, payload) => evaluate(tokens.join(""), payload)),
      runs(5000),
    );
  });

  test("deep nesting does not overflow the stack into a crash", () => {
    for (const depth of [100, 1000, 5000]) {
      for (const [open, close] of [
        ["(", ")"],
        ["[", "]"],
        ["!", ""],
        ["-", ""],
      ]) {
        const text = open!.repeat(depth) + "1" + close!.repeat(depth);
        expect(() => evaluate(text, {})).not.toThrow();
      }
    }
  });
});
