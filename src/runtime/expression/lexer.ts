/**
 * Lexer for the expression language (ajson-compatible; runtime-spec §2.11).
 *
 * Turns the text between `{{` and `}}` into tokens with 0-based positions. Context rule, as in
 * ajson: a `.` right after a value (path, `]`, name…) is member access and is followed by a path
 * name, which may start with a digit (`$.items.0`) and never is a keyword; elsewhere `.5` is a
 * number. A path name ends at any character that is not a letter, digit or `_` — so `$.a-1` is
 * `$.a - 1`, as in ajson (write `$['content-type']` for such keys).
 */
import { ExpressionSyntaxError } from "./errors.ts";

/** Token kinds. `name` is a path member name, `wild` a `*` after `.`/`..`, `op` an operator. */
export type TokenKind =
  | "num" | "str" | "ident" | "name" | "wild" | "op"
  | "$" | "@" | "." | ".." | "[" | "]" | "(" | ")" | "," | ":" | "?" | "eof";

/** One token: its kind, text value (unescaped for strings), numeric value and 0-based offsets. */
export interface Token {
  readonly kind: TokenKind;
  /** Operator text, identifier/name text, or the unescaped string literal. */
  readonly value: string;
  /** Value of a `num` token (0 otherwise). */
  readonly num: number;
  /** 0-based offset of the first character. */
  readonly pos: number;
}

/** Operators, longest first so `**` wins over `*`, `&&` over `&`, `&^` over `&`. */
const OPERATORS = [
  "**", "&&", "||", "==", "!=", "<=", ">=", "=~", "<<", ">>", "&^",
  "*", "/", "%", "+", "-", "<", ">", "!", "&", "|", "^",
] as const;

const PUNCTUATION: Record<string, TokenKind> = {
  "[": "[", "]": "]", "(": "(", ")": ")", ",": ",", ":": ":", "?": "?", $: "$", "@": "@",
};

/** Token kinds after which `.` is member access rather than the start of a number. */
const VALUE_END = new Set<TokenKind>(["num", "str", "ident", "name", "wild", "$", "@", "]", ")"]);

function isDigit(c: number): boolean {
  return c >= 48 && c <= 57;
}

function isIdentStart(c: number): boolean {
  return (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95;
}

function isNameChar(c: number): boolean {
  return isIdentStart(c) || isDigit(c) || c > 127;
}

function isSpace(c: number): boolean {
  return c === 32 || c === 9 || c === 10 || c === 13;
}

const ESCAPES: Record<string, string> = {
  n: "\n", t: "\t", r: "\r", b: "\b", f: "\f", "/": "/", "\\": "\\", "'": "'", '"': '"',
};

/**
 * Splits an expression into tokens, ending with an `eof` token at `text.length`.
 *
 * @param text expression text (between the braces, trimmed)
 * @throws ExpressionSyntaxError on an unexpected character, a malformed number or an
 *   unterminated string, naming the 0-based position
 */
export function tokenize(text: string): Token[] {
  const tokens: Token[] = [];
  const n = text.length;
  let i = 0;
  const fail = (pos: number, reason: string): never => {
    throw new ExpressionSyntaxError(text, pos, reason);
  };
  const push = (kind: TokenKind, value: string, pos: number, num = 0): void => {
    tokens.push({ kind, value, num, pos });
  };
  const last = (): TokenKind | undefined => tokens[tokens.length - 1]?.kind;

  // After `.` or `..`: a member name, `*`, or (for `..`) a bracket follows without spaces.
  const readMember = (): void => {
    if (i >= n) return;
    const c = text.charCodeAt(i);
    if (c === 42 /* * */) {
      push("wild", "*", i);
      i++;
      return;
    }
    if (!isNameChar(c)) return; // parser reports what it expected
    const start = i;
    while (i < n && isNameChar(text.charCodeAt(i))) i++;
    push("name", text.slice(start, i), start);
  };

  while (i < n) {
    const c = text.charCodeAt(i);
    if (isSpace(c)) {
      i++;
      continue;
    }
    const ch = text[i] as string;
    if (ch === ".") {
      if (text[i + 1] === ".") {
        push("..", "..", i);
        i += 2;
        readMember();
        continue;
      }
      const prev = last();
      if (prev !== undefined && VALUE_END.has(prev)) {
        push(".", ".", i);
        i++;
        readMember();
        continue;
      }
      if (!isDigit(text.charCodeAt(i + 1))) fail(i, 'unexpected character "."');
    }
    if (isDigit(c) || ch === ".") {
      const start = i;
      while (i < n && isDigit(text.charCodeAt(i))) i++;
      if (text[i] === "." && isDigit(text.charCodeAt(i + 1))) {
        i++;
        while (i < n && isDigit(text.charCodeAt(i))) i++;
      }
      if (text[i] === "e" || text[i] === "E") {
        let j = i + 1;
        if (text[j] === "+" || text[j] === "-") j++;
        if (!isDigit(text.charCodeAt(j))) fail(i, "malformed number exponent");
        i = j;
        while (i < n && isDigit(text.charCodeAt(i))) i++;
      }
      if (i < n && isIdentStart(text.charCodeAt(i))) fail(i, `unexpected character ${JSON.stringify(text[i])} after number`);
      const raw = text.slice(start, i);
      push("num", raw, start, Number(raw));
      continue;
    }
    if (ch === "'" || ch === '"') {
      const start = i;
      i++;
      let out = "";
      let closed = false;
      while (i < n) {
        const d = text[i] as string;
        if (d === ch) {
          closed = true;
          i++;
          break;
        }
        if (d === "\\") {
          const e = text[i + 1];
          if (e === undefined) break;
          if (e === "u") {
            const hex = text.slice(i + 2, i + 6);
            if (!/^[0-9a-fA-F]{4}$/.test(hex)) fail(i, "malformed \\u escape in string");
            out += String.fromCharCode(parseInt(hex, 16));
            i += 6;
            continue;
          }
          // Unknown escapes keep their backslash so regex patterns read naturally: '^a\.b$'.
          out += ESCAPES[e] ?? `\\${e}`;
          i += 2;
          continue;
        }
        out += d;
        i++;
      }
      if (!closed) fail(start, "unterminated string");
      push("str", out, start);
      continue;
    }
    if (isIdentStart(c)) {
      const start = i;
      while (i < n && (isIdentStart(text.charCodeAt(i)) || isDigit(text.charCodeAt(i)))) i++;
      push("ident", text.slice(start, i), start);
      continue;
    }
    const punct = PUNCTUATION[ch];
    if (punct !== undefined) {
      push(punct, ch, i);
      i++;
      continue;
    }
    let matched: string | undefined;
    for (const op of OPERATORS) {
      if (text.startsWith(op, i)) {
        matched = op;
        break;
      }
    }
    if (matched === undefined) fail(i, `unexpected character ${JSON.stringify(ch)}`);
    push("op", matched as string, i);
    i += (matched as string).length;
  }
  push("eof", "", n);
  return tokens;
}
