/**
 * Parser: tokens → AST (runtime-spec §2.11; ajson operator precedence, from Go's spec).
 *
 * Precedence, loosest first: `? :` (right-assoc) < `||` < `&&` < comparison `== != < <= > >= =~`
 * < `+ - | ^` < `* / % << >> & &^` < `**` (right-assoc) < unary `! - +` < primary.
 * Unary binds tighter than `**` so `-2 ** 2` is 4, as ajson reads the signed literal `-2`.
 * Unknown functions, unknown identifiers and wrong argument counts are syntax errors here, so a
 * broken configuration fails when it is compiled rather than on every hop.
 */
import type { BinaryOp, Expr, Segment } from "./ast.ts";
import { ExpressionSyntaxError } from "./errors.ts";
import { CONSTANTS, FUNCTIONS } from "./functions.ts";
import { type Token, tokenize } from "./lexer.ts";

const PRECEDENCE: Readonly<Record<BinaryOp, number>> = {
  "||": 1,
  "&&": 2,
  "==": 3, "!=": 3, "<": 3, "<=": 3, ">": 3, ">=": 3, "=~": 3,
  "+": 4, "-": 4, "|": 4, "^": 4,
  "*": 5, "/": 5, "%": 5, "<<": 5, ">>": 5, "&": 5, "&^": 5,
  "**": 6,
};

function isBinaryOp(op: string): op is BinaryOp {
  return Object.prototype.hasOwnProperty.call(PRECEDENCE, op);
}

function describe(tok: Token): string {
  switch (tok.kind) {
    case "eof":
      return "end of expression";
    case "str":
      return `string ${JSON.stringify(tok.value)}`;
    default:
      return `token ${JSON.stringify(tok.value)}`;
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
    if (rest.kind !== "eof") this.unexpected(rest);
    return expr;
  }

  private peek(offset = 0): Token {
    return this.tokens[Math.min(this.i + offset, this.tokens.length - 1)] as Token;
  }

  private next(): Token {
    const tok = this.peek();
    if (this.i < this.tokens.length - 1) this.i++;
    return tok;
  }

  private fail(pos: number, reason: string): never {
    throw new ExpressionSyntaxError(this.text, pos, reason);
  }

  private unexpected(tok: Token): never {
    return this.fail(tok.pos, `unexpected ${describe(tok)}`);
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
    let left = this.unary();
    for (;;) {
      const tok = this.peek();
      if (tok.kind !== "op" || !isBinaryOp(tok.value)) return left;
      const op = tok.value;
      const prec = PRECEDENCE[op];
      if (prec < minPrecedence) return left;
      this.next();
      const right = this.binary(op === "**" ? prec : prec + 1);
      left = { kind: "binary", op, left, right, pos: left.pos };
    }
  }

  private unary(): Expr {
    const tok = this.peek();
    if (tok.kind === "op" && (tok.value === "!" || tok.value === "-" || tok.value === "+")) {
      this.next();
      const operand = this.unary();
      if (operand.kind === "literal" && typeof operand.value === "number" && tok.value !== "!") {
        return { kind: "literal", value: tok.value === "-" ? -operand.value : operand.value, pos: tok.pos };
      }
      return { kind: "unary", op: tok.value, operand, pos: tok.pos };
    }
    return this.primary();
  }

  private primary(): Expr {
    const tok = this.next();
    switch (tok.kind) {
      case "num":
        return { kind: "literal", value: tok.num, pos: tok.pos };
      case "str":
        return { kind: "literal", value: tok.value, pos: tok.pos };
      case "$":
      case "@":
        return { kind: "path", root: tok.kind, segments: this.segments(), pos: tok.pos };
      case "(": {
        const inner = this.ternary();
        this.expect(")", '")"');
        return inner;
      }
      case "ident":
        return this.peek().kind === "(" ? this.call(tok) : this.constant(tok);
      default:
        if (tok.kind === "eof") this.fail(tok.pos, "unexpected end of expression");
        return this.unexpected(tok);
    }
  }

  private constant(tok: Token): Expr {
    const key = tok.value.toLowerCase();
    if (!CONSTANTS.has(key)) {
      const hint = FUNCTIONS.has(key) ? ` (${key} is a function: write ${key}(…))` : "";
      this.fail(tok.pos, `unknown identifier ${JSON.stringify(tok.value)}${hint}`);
    }
    return { kind: "literal", value: CONSTANTS.get(key) ?? null, pos: tok.pos };
  }

  private call(nameTok: Token): Expr {
    const name = nameTok.value.toLowerCase();
    const def = FUNCTIONS.get(name);
    if (def === undefined) this.fail(nameTok.pos, `unknown function ${JSON.stringify(nameTok.value)}`);
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
    if (args.length < def.minArgs || args.length > def.maxArgs) {
      const want =
        def.minArgs === def.maxArgs
          ? `${def.minArgs} argument${def.minArgs === 1 ? "" : "s"}`
          : `${def.minArgs} to ${def.maxArgs} arguments`;
      this.fail(nameTok.pos, `function ${JSON.stringify(name)} expects ${want}, got ${args.length}`);
    }
    return { kind: "call", name, args, pos: nameTok.pos };
  }

  // ---- JSONPath ------------------------------------------------------------------------------

  private segments(): Segment[] {
    const out: Segment[] = [];
    for (;;) {
      const tok = this.peek();
      if (tok.kind === ".") {
        this.next();
        out.push(this.member(tok));
      } else if (tok.kind === "..") {
        this.next();
        const after = this.peek();
        if (after.kind === "[" && after.pos === tok.pos + 2) {
          this.next();
          out.push({ kind: "descend", next: this.bracket() });
        } else {
          out.push({ kind: "descend", next: this.member(tok) });
        }
      } else if (tok.kind === "[") {
        this.next();
        out.push(this.bracket());
      } else {
        return out;
      }
    }
  }

  private member(dot: Token): Segment {
    const tok = this.peek();
    if (tok.kind === "name") {
      this.next();
      return { kind: "child", name: tok.value };
    }
    if (tok.kind === "wild") {
      this.next();
      return { kind: "wildcard" };
    }
    return this.fail(tok.kind === "eof" ? tok.pos : dot.pos + dot.value.length, `expected a member name after "${dot.value}"`);
  }

  /** After `[`: `*`, `?(…)`, `(…)`, index/key, union or slice; consumes the closing `]`. */
  private bracket(): Segment {
    const tok = this.peek();
    if (tok.kind === "op" && tok.value === "*" && this.peek(1).kind === "]") {
      this.next();
      this.next();
      return { kind: "wildcard" };
    }
    if (tok.kind === "?") {
      this.next();
      this.expect("(", '"(" after "[?"');
      const expr = this.ternary();
      this.expect(")", '")" closing the filter');
      this.expect("]", '"]"');
      return { kind: "filter", expr };
    }
    if (tok.kind === "(") {
      this.next();
      const expr = this.ternary();
      this.expect(")", '")" closing the script');
      this.expect("]", '"]"');
      return { kind: "script", expr };
    }
    const first = this.optionalInt();
    if (this.peek().kind === ":") {
      this.next();
      const end = this.optionalInt();
      let step: number | undefined;
      if (this.peek().kind === ":") {
        this.next();
        step = this.optionalInt();
        if (step === 0) this.fail(this.tokens[this.i - 1]?.pos ?? 0, "slice step must not be 0");
      }
      this.expect("]", '"]" closing the slice');
      return { kind: "slice", start: first, end, step };
    }
    const keys: Array<string | number> = [first ?? this.key()];
    while (this.peek().kind === ",") {
      this.next();
      keys.push(this.optionalInt() ?? this.key());
    }
    this.expect("]", '"]"');
    if (keys.length > 1) return { kind: "union", keys };
    const only = keys[0] as string | number;
    return typeof only === "number" ? { kind: "index", index: only } : { kind: "child", name: only };
  }

  private key(): string {
    const tok = this.peek();
    if (tok.kind === "str") {
      this.next();
      return tok.value;
    }
    if (tok.kind === "eof") return this.fail(tok.pos, "unexpected end of expression, expected an index or a quoted key");
    return this.fail(tok.pos, `expected an index or a quoted key, found ${describe(tok)}`);
  }

  private optionalInt(): number | undefined {
    const tok = this.peek();
    let sign = 1;
    let numTok = tok;
    if (tok.kind === "op" && (tok.value === "-" || tok.value === "+")) {
      numTok = this.peek(1);
      if (numTok.kind !== "num") return undefined;
      sign = tok.value === "-" ? -1 : 1;
    } else if (tok.kind !== "num") {
      return undefined;
    }
    if (!Number.isInteger(numTok.num)) this.fail(numTok.pos, `index must be an integer, got ${numTok.value}`);
    if (numTok !== tok) this.next();
    this.next();
    return sign * numTok.num;
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
  if (text.length === 0) throw new ExpressionSyntaxError(text, 0, "empty expression");
  return new Parser(text).parseAll();
}
