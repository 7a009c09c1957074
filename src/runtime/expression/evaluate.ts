/**
 * Compiles an expression AST into a closure tree once; evaluating walks no AST and parses
 * nothing (runtime-spec §2.11; this runs on every hop).
 */
import type { Expr } from "./ast.ts";
import { EvalFailure, ExpressionEvalError, ExpressionSyntaxError } from "./errors.ts";
import { FUNCTIONS } from "./functions.ts";
import { compilePath, type Evaluator } from "./jsonpath.ts";
import { BINARY, compileRegex } from "./operators.ts";
import { parseExpression } from "./parser.ts";
import { truthy, typeName } from "./values.ts";

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
   * @param payload parsed JSON of the incoming message (`$`); undefined counts as null
   * @returns the value (null when a path matches nothing)
   * @throws ExpressionEvalError when an operator or function fails (e.g. `null + 1`)
   */
  evaluate(payload: unknown): unknown;
}

/**
 * Compiles an AST node to a closure `(root, current) => value`.
 *
 * @param expr the node
 * @param source the whole expression text, for compile-time errors
 * @throws ExpressionSyntaxError for an invalid constant regular expression
 */
export function compileNode(expr: Expr, source: string): Evaluator {
  const sub = (e: Expr): Evaluator => compileNode(e, source);
  switch (expr.kind) {
    case "literal": {
      const value = expr.value;
      return () => value;
    }
    case "path":
      return compilePath(expr.root, expr.segments, sub);
    case "unary": {
      const operand = sub(expr.operand);
      if (expr.op === "!") return (r, c) => !truthy(operand(r, c));
      const negate = expr.op === "-";
      return (r, c) => {
        const v = operand(r, c);
        if (typeof v !== "number") throw new EvalFailure(`cannot apply unary ${JSON.stringify(expr.op)} to ${typeName(v)}`);
        return negate ? -v : v;
      };
    }
    case "ternary": {
      const test = sub(expr.test);
      const then = sub(expr.then);
      const otherwise = sub(expr.otherwise);
      return (r, c) => (truthy(test(r, c)) ? then(r, c) : otherwise(r, c));
    }
    case "call": {
      const def = FUNCTIONS.get(expr.name);
      if (def === undefined) throw new ExpressionSyntaxError(source, expr.pos, `unknown function ${JSON.stringify(expr.name)}`);
      const args = expr.args.map(sub);
      const call = def.call;
      if (args.length === 1) {
        const a0 = args[0]!;
        return (r, c) => call([a0(r, c)]);
      }
      return (r, c) => call(args.map((a) => a(r, c)));
    }
    case "binary": {
      const left = sub(expr.left);
      const right = sub(expr.right);
      switch (expr.op) {
        // Short-circuit; the result is a boolean, as ajson's AND/OR.
        case "&&":
          return (r, c) => truthy(left(r, c)) && truthy(right(r, c));
        case "||":
          return (r, c) => truthy(left(r, c)) || truthy(right(r, c));
        case "=~":
          if (expr.right.kind === "literal" && typeof expr.right.value === "string") {
            // Constant pattern: compile (and validate) the regex once, at compile time.
            let re: RegExp;
            try {
              re = compileRegex(expr.right.value);
            } catch (err) {
              if (err instanceof EvalFailure) throw new ExpressionSyntaxError(source, expr.right.pos, err.message);
              throw err;
            }
            return (r, c) => {
              const v = left(r, c);
              return typeof v === "string" && re.test(v);
            };
          }
          break;
        case "==":
          // Comparing with a scalar literal needs no deep walk.
          if (expr.right.kind === "literal" && expr.right.value !== null) {
            const lit = expr.right.value;
            return (r, c) => left(r, c) === lit;
          }
          break;
        default:
          break;
      }
      const op = BINARY[expr.op];
      return (r, c) => op(left(r, c), right(r, c));
    }
  }
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
 * @throws ExpressionSyntaxError at compile time: bad syntax, unknown function or identifier,
 *   wrong argument count, invalid constant regex — with the 0-based position
 */
export function compileExpression(src: string): CompiledExpression {
  const source = bare(src);
  const ast = parseExpression(source);
  const fn = compileNode(ast, source);
  return {
    source,
    evaluate(payload: unknown): unknown {
      try {
        const v = fn(payload, payload);
        return v === undefined ? null : v;
      } catch (err) {
        // Any failure (also a stack overflow on a pathological payload) fails this expression
        // only: the hop decides what to do with it, the process never sees it.
        throw new ExpressionEvalError(source, err instanceof Error ? err.message : String(err));
      }
    },
  };
}
