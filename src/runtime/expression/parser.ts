/**
 * Parser: tokens → AST (runtime-spec §2.11), accepting what ajson v0.1.6's `rpn` accepts.
 *
 * Precedence, loosest first (ajson math.go `priority`): `? :` < `||` < `&&` <
 * `== != < <= > >= =~` < `+ - | ^` < `* / % << >> & &^` < `**` (right-associative); operators of
 * one level associate to the left. Two deliberate differences from Go (docs/compatibility.md):
 * the SDK re-registers `+` and `-` at the level of the comparisons, so in Go `2 == $.a + 1`
 * compares first and fails — here `+`/`-` keep ajson's own level; and `a ? b : c ? d : e` nests
 * to the right (Go groups it as `(a ? b : c) ? d : e`).
 *
 * Everything Go rejects is a syntax error here: unknown functions and constants, a function of
 * one argument called with none or several, a multi-argument function given fewer than it
 * needs. Go reports those on every hop; we know them when the configuration is compiled.
 */
import type { BinaryOp, Expr } from "./ast.ts";
import { ExpressionSyntaxError } from "./errors.ts";
import { CONSTANTS, FUNCTIONS, LOCATED_FUNCTIONS } from "./functions.ts";
import { type Token, tokenize } from "./lexer.ts";

const PRECEDENCE: Readonly<Record<BinaryOp, number>> = {
  "||": 1,
  "&&": 2,
  "==": 3,
  "!=": 3,
  "<": 3,
  "<=": 3,
  ">": 3,
  ">=": 3,
  "=~": 3,
  "+": 4,
  "-": 4,
  "|": 4,
  "^": 4,
  "*": 5,
  "/": 5,
  "%": 5,
  "<<": 5,
  ">>": 5,
  "&": 5,
  "&^": 5,
  "**": 6,
};

function describe(tok: Token): string {
  switch (tok.kind) {
    case "eof":
      return "end of expression";
    case "str":
      return `string ${tok.text}`;
    default:
      return JSON.stringify(tok.text);
  }
}

class Parser {
  private readonly tokens: Token[];
  private i = 0;

  constructor(private readonly text: string) {
    this.tokens = tokenize(text);
  }

  parseAll(): Expr {
    const expr = this.ternary();
    const rest = this.peek();
    if (rest.kind !== "eof") this.fail(rest.pos, `unexpected ${describe(rest)} after a complete expression`);
    return expr;
  }

  private peek(): Token {
    return this.tokens[this.i]!;
  }

  private next(): Token {
    const tok = this.tokens[this.i]!;
    if (tok.kind !== "eof") this.i++;
    return tok;
  }

  private fail(pos: number, reason: string): never {
    throw new ExpressionSyntaxError(this.text, pos, reason);
  }

  private expect(kind: Token["kind"], what: string): Token {
    const tok = this.peek();
    if (tok.kind !== kind) {
      if (tok.kind === "eof") this.fail(tok.pos, `unexpected end of expression, expected ${what}`);
      this.fail(tok.pos, `expected ${what}, found ${describe(tok)}`);
    }
    return this.next();
  }

  private ternary(): Expr {
    const test = this.binary(1);
    if (this.peek().kind !== "?") return test;
    this.next();
    const then = this.ternary();
    this.expect(":", '":" of the conditional');
    const otherwise = this.ternary();
    return { kind: "ternary", test, then, otherwise, pos: test.pos };
  }

  private binary(minPrecedence: number): Expr {
    let left = this.primary();
    for (;;) {
      const tok = this.peek();
      if (tok.kind !== "op") return left;
      const op = tok.text as BinaryOp;
      const prec = PRECEDENCE[op];
      if (prec < minPrecedence) return left;
      this.next();
      const right = this.binary(op === "**" ? prec : prec + 1);
      left = { kind: "binary", op, left, right, pos: left.pos };
    }
  }

  private primary(): Expr {
    const tok = this.next();
    switch (tok.kind) {
      case "num":
      case "str":
        return { kind: "literal", value: tok.value, pos: tok.pos };
      case "path":
        return { kind: "path", text: tok.text, pos: tok.pos };
      case "(": {
        if (this.peek().kind === ")") this.fail(this.peek().pos, "empty parentheses");
        const inner = this.ternary();
        this.expect(")", '")"');
        return inner;
      }
      case "call":
        return this.call(tok);
      case "ident": {
        if (!CONSTANTS.has(tok.text)) {
          const hint = FUNCTIONS.has(tok.text) || LOCATED_FUNCTIONS.has(tok.text) ? ` (${tok.text} is a function: write ${tok.text}(…) without a space)` : "";
          this.fail(tok.pos, `unknown constant ${JSON.stringify(tok.text)}${hint}`);
        }
        return { kind: "literal", value: CONSTANTS.get(tok.text), pos: tok.pos };
      }
      case "eof":
        return this.fail(tok.pos, "unexpected end of expression");
      default:
        return this.fail(tok.pos, `unexpected ${describe(tok)}`);
    }
  }

  private call(nameTok: Token): Expr {
    const name = nameTok.text;
    const def = FUNCTIONS.get(name);
    if (def === undefined && !LOCATED_FUNCTIONS.has(name)) this.fail(nameTok.pos, `unknown function ${JSON.stringify(name)}`);
    this.next(); // (
    const args: Expr[] = [];
    if (this.peek().kind !== ")") {
      args.push(this.ternary());
      while (this.peek().kind === ",") {
        this.next();
        args.push(this.ternary());
      }
    }
    this.expect(")", '")" closing the argument list');
    const min = def?.minArgs ?? 1;
    const max = def === undefined || !def.multi ? (def?.maxArgs ?? 1) : Infinity;
    if (args.length < min || args.length > max) {
      const want = max === Infinity ? `at least ${min}` : min === max ? `${min}` : `${min} to ${max}`;
      this.fail(nameTok.pos, `function ${JSON.stringify(name)} takes ${want} argument${max === 1 ? "" : "s"}, got ${args.length}`);
    }
    return { kind: "call", name, args, pos: nameTok.pos };
  }
}

/**
 * Parses one expression (the text between `{{` and `}}`).
 *
 * @param text expression text, trimmed
 * @returns the AST
 * @throws ExpressionSyntaxError with the 0-based position of the first problem
 */
export function parseExpression(text: string): Expr {
  if (text.length === 0) throw new ExpressionSyntaxError(text, 0, "expression is empty");
  return new Parser(text).parseAll();
}
