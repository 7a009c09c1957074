/**
 * AST of the expression language (runtime-spec §2.11). Produced by `parser.ts`, compiled to
 * closures by `evaluate.ts`. Every node carries the 0-based position of its first character.
 */

/** Binary operators, ajson set plus `=~` (regex match, pkg/tools/prompt_core.go). */
export type BinaryOp =
  | "**" | "*" | "/" | "%" | "<<" | ">>" | "&" | "&^"
  | "+" | "-" | "|" | "^"
  | "==" | "!=" | "<" | "<=" | ">" | ">=" | "=~"
  | "&&" | "||";

/** One step of a JSONPath. */
export type Segment =
  /** `.name` or `['name']`. */
  | { readonly kind: "child"; readonly name: string }
  /** `[3]`, `[-1]` (negative counts from the end). */
  | { readonly kind: "index"; readonly index: number }
  /** `.*` or `[*]`: every element / every value (objects in key order, as ajson). */
  | { readonly kind: "wildcard" }
  /** `[start:end:step]`, each bound optional, Python-like. */
  | { readonly kind: "slice"; readonly start: number | undefined; readonly end: number | undefined; readonly step: number | undefined }
  /** `[0,2]`, `['a','b']`. */
  | { readonly kind: "union"; readonly keys: ReadonlyArray<string | number> }
  /** `[?(expr)]`: elements for which expr (with `@` = element) is truthy. */
  | { readonly kind: "filter"; readonly expr: Expr }
  /** `[(expr)]`: the key or index computed by expr (with `@` = current node). */
  | { readonly kind: "script"; readonly expr: Expr }
  /** `..x`: apply `next` to the node and every descendant (pre-order). */
  | { readonly kind: "descend"; readonly next: Segment };

/** An expression node. */
export type Expr =
  | { readonly kind: "literal"; readonly value: null | boolean | number | string; readonly pos: number }
  | { readonly kind: "path"; readonly root: "$" | "@"; readonly segments: readonly Segment[]; readonly pos: number }
  | { readonly kind: "unary"; readonly op: "!" | "-" | "+"; readonly operand: Expr; readonly pos: number }
  | { readonly kind: "binary"; readonly op: BinaryOp; readonly left: Expr; readonly right: Expr; readonly pos: number }
  | { readonly kind: "ternary"; readonly test: Expr; readonly then: Expr; readonly otherwise: Expr; readonly pos: number }
  | { readonly kind: "call"; readonly name: string; readonly args: readonly Expr[]; readonly pos: number };
