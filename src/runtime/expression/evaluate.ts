/**
 * Compiles an expression AST into a closure tree once; evaluating walks no AST and parses
 * nothing (runtime-spec §2.11; this runs on every hop).
 *
 * Evaluation is strict, as Go's RPN evaluation of ajson: every operand of an operator, every
 * argument and all three parts of `? :` are evaluated, and an error in any of them fails the
 * expression (`false && (1/0)` fails in Go too).
 */
import type { Expr } from "./ast.ts";
import { ExpressionEvalError, ExpressionSyntaxError } from "./errors.ts";
import { FUNCTIONS } from "./functions.ts";
import { escapeCount, toValidText } from "../../golang/string.ts";
import { compilePath, type Evaluator, type Loc } from "./jsonpath.ts";
import { BINARY } from "./operators.ts";
import { parseExpression } from "./parser.ts";
import { compileRegex } from "./regex.ts";
import { hasUnreadableNumbers, isObject, stringOf, ternaryTruthy, unpackProblem, UnreadableNumber } from "./values.ts";
import { messageOf } from "../../core/errors.ts";

/**
 * A compiled expression. `evaluate` resolves it against a payload (the incoming message JSON,
 * `$`); results keep their JSON type and may share sub-objects with the payload (not copied).
 */
export interface CompiledExpression {
  /** The expression text between the braces, trimmed. */
  readonly source: string;
  /**
   * Evaluates against a payload.
   *
   * @param payload parsed JSON of the incoming message (`$`)
   * @returns the value, or undefined when a path matched nothing (Go: a nil node, null at the end)
   * @throws ExpressionEvalError when an operator or function fails (e.g. `null + 1`), or the
   *   value holds a number Go cannot read (ajson `Unpack` fails)
   */
  evaluate(payload: unknown): unknown;
  /**
   * As {@link evaluate}, but strings may still hold escaped bytes (src/golang/string.ts), for a caller
   * that joins several results as Go joins bytes (interpolation) and cleans the text itself.
   */
  evaluateRaw(payload: unknown): unknown;
}

/** A closure returning a value together with where it sits in the payload (for parent/root/key). */
type Locator = (root: unknown, current: unknown, currentLoc?: Loc) => Loc | undefined;

function unlocated(value: unknown): Loc | undefined {
  return value === undefined ? undefined : { value, parent: undefined, key: undefined };
}

class Compiler {
  constructor(private readonly source: string) {}

  private nested = (text: string): Evaluator => this.node(parseExpression(text.trim()));

  node(expr: Expr): Evaluator {
    switch (expr.kind) {
      case "literal": {
        const value = expr.value;
        return () => value;
      }
      case "path":
        return compilePath(expr.text, this.source, expr.pos, this.nested).evaluate;
      case "ternary": {
        const test = this.node(expr.test);
        const then = this.node(expr.then);
        const otherwise = this.node(expr.otherwise);
        return (r, c, l) => {
          const t = test(r, c, l);
          const a = then(r, c, l);
          const b = otherwise(r, c, l);
          return ternaryTruthy(t) ? a : b;
        };
      }
      case "call":
        return this.call(expr);
      case "binary": {
        const left = this.node(expr.left);
        if (expr.op === "=~" && expr.right.kind === "literal" && typeof expr.right.value === "string") {
          // A constant pattern is compiled (and checked) once; Go would fail every hop on a bad one.
          let re;
          try {
            re = compileRegex(expr.right.value);
          } catch (err) {
            throw new ExpressionSyntaxError(this.source, expr.right.pos, (err as Error).message);
          }
          return (r, c, l) => re.test(stringOf(left(r, c, l), 'the left side of "=~"'));
        }
        if ((expr.op === "==" || expr.op === "!=") && expr.right.kind === "literal" && typeof expr.right.value === "string") {
          // Comparing with a string literal: equal only to that same string (no deep walk needed).
          const lit = expr.right.value;
          const negate = expr.op === "!=";
          return (r, c, l) => {
            const v = left(r, c, l);
            return v === undefined ? false : negate ? v !== lit : v === lit;
          };
        }
        const right = this.node(expr.right);
        const op = BINARY[expr.op];
        return (r, c, l) => {
          const a = left(r, c, l);
          return op(a, right(r, c, l));
        };
      }
    }
  }

  private call(expr: Extract<Expr, { kind: "call" }>): Evaluator {
    if (expr.name === "parent" || expr.name === "root" || expr.name === "key") {
      const arg = this.locator(expr.args[0]!);
      const name = expr.name;
      return (r, c, l) => {
        const loc = arg(r, c, l);
        if (loc === undefined) return null;
        if (name === "parent") return loc.parent === undefined ? null : loc.parent.value;
        if (name === "root") {
          let top = loc;
          while (top.parent !== undefined) top = top.parent;
          return top.value;
        }
        return loc.parent !== undefined && isObject(loc.parent.value) ? loc.key : null;
      };
    }
    const def = FUNCTIONS.get(expr.name)!;
    const args = expr.args.map((a) => this.node(a));
    const call = def.call;
    if (args.length === 1) {
      const a0 = args[0]!;
      return (r, c, l) => call([a0(r, c, l)]);
    }
    return (r, c, l) => call(args.map((a) => a(r, c, l)));
  }

  /** Compiles an argument of parent/root/key so it keeps its place in the payload. */
  private locator(expr: Expr): Locator {
    if (expr.kind === "path") return compilePath(expr.text, this.source, expr.pos, this.nested).locate;
    if (expr.kind === "ternary") {
      const test = this.node(expr.test);
      const then = this.locator(expr.then);
      const otherwise = this.locator(expr.otherwise);
      return (r, c, l) => {
        const t = test(r, c, l);
        const a = then(r, c, l);
        const b = otherwise(r, c, l);
        return ternaryTruthy(t) ? a : b;
      };
    }
    if (expr.kind === "call" && (expr.name === "parent" || expr.name === "root")) {
      const arg = this.locator(expr.args[0]!);
      const name = expr.name;
      return (r, c, l) => {
        const loc = arg(r, c, l);
        if (loc === undefined) return unlocated(null);
        if (name === "parent") return loc.parent ?? unlocated(null);
        let top = loc;
        while (top.parent !== undefined) top = top.parent;
        return top;
      };
    }
    if (expr.kind === "call" && (expr.name === "first" || expr.name === "last")) {
      const arg = this.locator(expr.args[0]!);
      const first = expr.name === "first";
      return (r, c, l) => {
        const loc = arg(r, c, l);
        const v = loc?.value;
        if (!Array.isArray(v) || v.length === 0) return unlocated(null);
        const i = first ? 0 : v.length - 1;
        return { value: v[i], parent: loc, key: i };
      };
    }
    const value = this.node(expr);
    return (r, c, l) => unlocated(value(r, c, l));
  }
}

/**
 * Compiles an AST node to a closure `(root, current) => value`.
 *
 * @param expr the node
 * @param source the whole expression text, for compile-time errors
 * @throws ExpressionSyntaxError for a path or constant pattern that does not compile
 */
export function compileNode(expr: Expr, source: string): Evaluator {
  return new Compiler(source).node(expr);
}

/** Strips one pair of surrounding `{{ }}` if the whole text is wrapped, then trims. */
function bare(src: string): string {
  const t = src.trim();
  return t.startsWith("{{") && t.endsWith("}}") ? t.slice(2, -2).trim() : t;
}

/**
 * Compiles one expression.
 *
 * @param src the expression text, e.g. `$.request.method == 'GET'` (a whole `{{…}}` is accepted too)
 * @returns the compiled expression; compile once, evaluate per hop
 * @throws ExpressionSyntaxError at compile time: what Go's parser rejects, unknown functions and
 *   constants, wrong argument counts, an invalid constant regex — with the 0-based position
 */
export function compileExpression(src: string): CompiledExpression {
  return compileBare(bare(src));
}

/**
 * Compiles expression text exactly as written (no `{{ }}` stripping): what a template found
 * between its braces. Same errors as {@link compileExpression}.
 */
export function compileBare(source: string): CompiledExpression {
  const ast = parseExpression(source);
  const fn = compileNode(ast, source);
  return {
    source,
    evaluateRaw,
    evaluate(payload: unknown): unknown {
      const escapesBefore = escapeCount();
      const v = evaluateRaw(payload);
      return escapeCount() === escapesBefore ? v : validText(v);
    },
  };

  function evaluateRaw(payload: unknown): unknown {
    let v: unknown;
    try {
      v = fn(payload, payload);
    } catch (err) {
      // Any failure (also a stack overflow on a pathological payload) fails this expression
      // only: the field becomes null and the hop goes on, as in Go.
      throw new ExpressionEvalError(source, messageOf(err));
    }
    if (v instanceof UnreadableNumber) throw new ExpressionEvalError(source, v.reason);
    if (typeof v === "object" && v !== null && hasUnreadableNumbers(payload)) {
      const problem = unpackProblem(v);
      if (problem !== undefined) throw new ExpressionEvalError(source, problem);
    }
    return v;
  }
}

/** The value with every escaped byte as U+FFFD (Go's json.Marshal of invalid UTF-8). */
function validText(v: unknown): unknown {
  if (typeof v === "string") return toValidText(v);
  if (Array.isArray(v)) return v.map(validText);
  return v;
}
