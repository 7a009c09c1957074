/**
 * Lexer for the expression language, with the token boundaries of ajson v0.1.6 (buffer.go `rpn`
 * and `token`, runtime-spec §2.11), so an expression splits into the same pieces as in Go:
 *
 * - A path runs from `$`/`@` over letters, digits, `_ . @ $ ? * ^ \` and backquote, with brackets,
 *   parentheses and quoted strings kept whole inside it; any other character ends it. So `$.a-1`
 *   is `$.a - 1`, while `$.a*2` is the member `a*2` (as in Go). Write spaces around operators.
 * - A number is a JSON number; a `-` where an operand is expected starts one (`-1e6`, `1 - -1`).
 *   `.5`, `+1`, `1.` and a `-` before anything but digits are errors, as in Go.
 * - Strings are JSON strings in `"…"` or `'…'`: escapes `\\ \/ \b \f \n \r \t \uXXXX` and the
 *   enclosing quote; other escapes and raw control characters are errors.
 * - An identifier is letters, digits and `_` (ASCII `A`–`z`), lowercased; directly followed by
 *   `(` it names a function.
 * - An operator is read after an operand only, longest first; `!` and `=` alone are not operators.
 */
import { ExpressionSyntaxError } from "./errors.ts";
import { UnreadableNumber } from "./values.ts";

/** Token kinds. */
export type TokenKind = "num" | "str" | "path" | "ident" | "call" | "op" | "(" | ")" | "," | "?" | ":" | "eof";

/** One token with the 0-based offset of its first character. */
export interface Token {
  readonly kind: TokenKind;
  /** Source text (operator, path, number), or the lowercased name of an identifier/function. */
  readonly text: string;
  /** Value of a `num` (number or UnreadableNumber) or `str` token. */
  readonly value: unknown;
  readonly pos: number;
}

/** Binary operators, longest first (ajson `comparisonOperationsOrder`). */
const OPERATORS = ["**", "<<", ">>", "&^", "==", "!=", "<=", ">=", "=~", "&&", "||", "*", "/", "%", "&", "+", "-", "|", "^", "<", ">"];

/** Characters that start an operator (ajson `priorityChar`). */
const OPERATOR_START = new Set(["*", "/", "%", "<", ">", "&", "|", "^", "+", "-", "=", "!"]);

function isDigit(c: number): boolean {
  return c >= 48 && c <= 57;
}

/** ajson's identifier characters: ASCII `A`..`z` (which includes `[ \ ] ^ _` and backquote) and digits. */
function isIdentChar(c: number): boolean {
  return (c >= 65 && c <= 122) || isDigit(c);
}

function isSpace(c: number): boolean {
  return c === 32 || c === 9 || c === 10 || c === 13;
}

/**
 * Length of the JSON number at `i` (optional `-`, then `0` or digits, fraction, exponent), or -1
 * when the longest number-shaped prefix does not end a number (`1.`, `1e`, `-`, `.5`).
 */
export function scanNumber(text: string, i: number): number {
  const n = text.length;
  let j = i;
  if (text.charCodeAt(j) === 45 /* - */) j++;
  if (j >= n || !isDigit(text.charCodeAt(j))) return -1;
  if (text.charCodeAt(j) === 48 /* 0 */) j++;
  else while (j < n && isDigit(text.charCodeAt(j))) j++;
  if (text.charCodeAt(j) === 46 /* . */) {
    j++;
    if (!isDigit(text.charCodeAt(j))) return -1;
    while (j < n && isDigit(text.charCodeAt(j))) j++;
  }
  const e = text.charCodeAt(j);
  if (e === 101 || e === 69) {
    j++;
    const s = text.charCodeAt(j);
    if (s === 43 || s === 45) j++;
    if (!isDigit(text.charCodeAt(j))) return -1;
    while (j < n && isDigit(text.charCodeAt(j))) j++;
  }
  return j - i;
}

/** The value of number text as Go's `strconv.ParseFloat`: beyond float64 it cannot be read. */
export function numberValue(raw: string): number | UnreadableNumber {
  const v = Number(raw);
  if (Number.isFinite(v)) return v;
  return new UnreadableNumber(`strconv.ParseFloat: parsing ${JSON.stringify(raw)}: value out of range`);
}

const ESCAPES: Record<string, string> = { "\\": "\\", "/": "/", b: "\b", f: "\f", n: "\n", r: "\r", t: "\t" };

/**
 * Scans the string literal opening at `i` (its quote character); returns its end (just past the
 * closing quote) and value, or undefined when it is malformed or unterminated. Surrogate escapes
 * that do not pair become U+FFFD, as Go's unquote does.
 */
export function scanString(text: string, i: number): { end: number; value: string } | undefined {
  const quote = text[i]!;
  let out = "";
  let j = i + 1;
  const n = text.length;
  while (j < n) {
    const c = text.charCodeAt(j);
    const ch = text[j]!;
    if (ch === quote) return { end: j + 1, value: out };
    if (c < 0x20) return undefined; // raw control characters (also tab, newline) are not allowed
    if (ch !== "\\") {
      out += ch;
      j++;
      continue;
    }
    const e = text[j + 1];
    if (e === undefined) return undefined;
    if (e === quote) {
      out += quote;
      j += 2;
    } else if (e === "u") {
      const unit = hex4(text, j + 2);
      if (unit < 0) return undefined;
      j += 6;
      if (unit >= 0xd800 && unit <= 0xdbff && text[j] === "\\" && text[j + 1] === "u") {
        const low = hex4(text, j + 2);
        if (low >= 0xdc00 && low <= 0xdfff) {
          out += String.fromCharCode(unit, low);
          j += 6;
          continue;
        }
      }
      out += unit >= 0xd800 && unit <= 0xdfff ? "\ufffd" : String.fromCharCode(unit);
    } else {
      const mapped = ESCAPES[e];
      if (mapped === undefined) return undefined;
      out += mapped;
      j += 2;
    }
  }
  return undefined;
}

function hex4(text: string, i: number): number {
  const h = text.slice(i, i + 4);
  return /^[0-9a-fA-F]{4}$/.test(h) ? parseInt(h, 16) : -1;
}

/**
 * End of the path starting at `i` (`$` or `@`), by ajson's `token` rule (see the module comment).
 * @throws ExpressionSyntaxError for an unbalanced bracket or an unterminated quote
 */
export function scanPath(text: string, i: number, fail: (pos: number, reason: string) => never): number {
  const stack: string[] = [];
  const n = text.length;
  let j = i;
  for (; j < n; j++) {
    const ch = text[j]!;
    const c = text.charCodeAt(j);
    if (ch === '"' || ch === "'") {
      let k = j + 1;
      while (k < n && !(text[k] === ch && !escaped(text, k))) k++;
      if (k >= n) fail(j, "unterminated string in path");
      j = k;
    } else if (ch === "[" || ch === "(") {
      stack.push(ch);
    } else if (ch === "]" || ch === ")") {
      if (stack.length === 0) {
        if (j === i) fail(j, `unexpected ${JSON.stringify(ch)}`);
        break;
      }
      if (stack[stack.length - 1] !== (ch === "]" ? "[" : "(")) fail(j, `unexpected ${JSON.stringify(ch)}`);
      stack.pop();
    } else if (ch === "." || ch === "@" || ch === "$" || ch === "?" || ch === "*" || isIdentChar(c)) {
      continue;
    } else if (stack.length === 0) {
      break;
    }
  }
  if (stack.length !== 0) fail(n, `unexpected end of expression, expected ${stack[stack.length - 1] === "[" ? '"]"' : '")"'}`);
  return j;
}

/** True when the character at `i` is preceded by an odd number of backslashes. */
export function escaped(text: string, i: number): boolean {
  let odd = false;
  for (let k = i - 1; k >= 0 && text[k] === "\\"; k--) odd = !odd;
  return odd;
}

/**
 * Splits an expression into tokens, ending with an `eof` token at `text.length`.
 *
 * @param text expression text (between the braces, trimmed)
 * @throws ExpressionSyntaxError on a character Go's parser rejects, naming the 0-based position
 */
export function tokenize(text: string): Token[] {
  const tokens: Token[] = [];
  const n = text.length;
  let i = 0;
  let operand = false; // ajson's `variable`: the last token ended an operand
  const fail = (pos: number, reason: string): never => {
    throw new ExpressionSyntaxError(text, pos, reason);
  };
  const push = (kind: TokenKind, t: string, pos: number, value: unknown = undefined): void => {
    tokens.push({ kind, text: t, value, pos });
  };
  while (i < n) {
    const c = text.charCodeAt(i);
    if (isSpace(c)) {
      i++;
      continue;
    }
    const ch = text[i]!;
    if (OPERATOR_START.has(ch) && (operand || (ch !== "-" && ch !== "+"))) {
      if (!operand) {
        fail(i, ch === "!" ? 'unexpected "!": there is no "!" operator, write not(…)' : `unexpected ${JSON.stringify(ch)}: an operand is expected`);
      }
      const op = OPERATORS.find((o) => text.startsWith(o, i));
      if (op === undefined) fail(i, `unknown operator ${JSON.stringify(text.slice(i, i + 2).trim())}`);
      push("op", op!, i);
      i += op!.length;
      operand = false;
      continue;
    }
    if (isDigit(c) || ch === "." || ch === "-" || ch === "+") {
      const len = ch === "+" ? -1 : scanNumber(text, i);
      if (len < 0) {
        fail(i, ch === "+" || ch === "-" ? `a number is expected after ${JSON.stringify(ch)} (there is no unary ${ch}; write 0 ${ch} x)` : "malformed number");
      }
      const raw = text.slice(i, i + len);
      push("num", raw, i, numberValue(raw));
      i += len;
      operand = true;
      continue;
    }
    if (ch === "'" || ch === '"') {
      const s = scanString(text, i);
      if (s === undefined) fail(i, "malformed or unterminated string");
      push("str", text.slice(i, s!.end), i, s!.value);
      i = s!.end;
      operand = true;
      continue;
    }
    if (ch === "$" || ch === "@") {
      const end = scanPath(text, i, fail);
      push("path", text.slice(i, end), i);
      i = end;
      operand = true;
      continue;
    }
    if (ch === "(" || ch === ")" || ch === "," || ch === "?" || ch === ":") {
      push(ch, ch, i);
      i++;
      operand = ch === ")";
      continue;
    }
    const start = i;
    while (i < n && isIdentChar(text.charCodeAt(i))) i++;
    const name = text.slice(start, i).toLowerCase();
    if (name === "") fail(start, `unexpected character ${JSON.stringify(ch)}`);
    if (text[i] === "(") {
      push("call", name, start);
      operand = false;
    } else {
      push("ident", name, start);
      operand = true;
    }
  }
  push("eof", "", n);
  return tokens;
}
