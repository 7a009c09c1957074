/**
 * AST of the expression language (runtime-spec §2.11). Produced by `parser.ts`, compiled to
 * closures by `evaluate.ts`. Every node carries the 0-based position of its first character.
 */

/** Binary operators: ajson's set (math.go) with the SDK's `+`/`-` (pkg/evaluator/functions.go). */
export type BinaryOp = "**" | "*" | "/" | "%" | "<<" | ">>" | "&" | "&^" | "+" | "-" | "|" | "^" | "==" | "!=" | "<" | "<=" | ">" | ">=" | "=~" | "&&" | "||";

/** An expression node. */
export type Expr =
  /** A number (or unreadable number), string or constant. */
  | { readonly kind: "literal"; readonly value: unknown; readonly pos: number }
  /** A JSONPath as written (`$.items[?(@.n > 1)].name`); jsonpath.ts compiles it. */
  | { readonly kind: "path"; readonly text: string; readonly pos: number }
  | { readonly kind: "binary"; readonly op: BinaryOp; readonly left: Expr; readonly right: Expr; readonly pos: number }
  | { readonly kind: "ternary"; readonly test: Expr; readonly then: Expr; readonly otherwise: Expr; readonly pos: number }
  | { readonly kind: "call"; readonly name: string; readonly args: readonly Expr[]; readonly pos: number };
