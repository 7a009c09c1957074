/**
 * Queries: expression text evaluated against a document, as the Go components evaluate a query
 * field (kv `query`, array_filter `query`: ajson `Eval` then `Unpack`, the same dialect and
 * functions as `{{…}}` edge expressions, runtime-spec §2.11). The text is taken as written — no
 * `{{ }}` — because the runner already evaluated any braces on the edge before the query arrived.
 */
import { compileBare } from "../runtime/expression/evaluate.ts";

/** A compiled query; compile once, evaluate per document. */
export interface Query {
  /** The expression text. */
  readonly source: string;
  /**
   * Evaluates against `document` (`$`).
   * @returns the value (`true` for a matching predicate), or undefined when a path matched nothing
   * @throws ExpressionEvalError (code `EXPRESSION_EVAL`) when an operator or function fails
   */
  evaluate(document: unknown): unknown;
}

/**
 * Compiles `expression` (e.g. `$.status == 'DOWN'`).
 * @throws ExpressionSyntaxError (code `EXPRESSION_SYNTAX`) with the 0-based position, for text Go's
 *   parser rejects — also an empty text
 */
export function compileQuery(expression: string): Query {
  const compiled = compileBare(expression);
  return { source: compiled.source, evaluate: (document) => compiled.evaluate(document) };
}
