/**
 * The lexer of Go's text/template (Go 1.26 text/template/parse/lex.go): text and `{{ }}` actions
 * with trim markers `{{- ` / ` -}}`, comments (`/*` … `*` `/` inside braces), and inside actions identifiers and
 * keywords, `.fields`, `$variables`, strings, raw strings, characters, numbers, `:=`, `=`, `|`,
 * parentheses. Errors carry Go's texts (`unclosed action`, `bad character U+0023 '#'`, …).
 */

/** Token kinds (Go `itemType`); keywords come after `keyword`. */
export type ItemType =
  | "error"
  | "bool"
  | "char"
  | "charConstant"
  | "complex"
  | "assign"
  | "declare"
  | "EOF"
  | "field"
  | "identifier"
  | "leftDelim"
  | "leftParen"
  | "number"
  | "pipe"
  | "rawString"
  | "rightDelim"
  | "rightParen"
  | "space"
  | "string"
  | "text"
  | "variable"
  | "dot"
  | "block"
  | "break"
  | "continue"
  | "define"
  | "else"
  | "end"
  | "if"
  | "nil"
  | "range"
  | "template"
  | "with";

const KEYWORDS = new Set<ItemType>(["block", "break", "continue", "define", "else", "end", "if", "range", "template", "with"]);

/** One token: its kind, text, start (UTF-16 index into the template) and line. */
export interface Item {
  typ: ItemType;
  val: string;
  pos: number;
  line: number;
}

/** Go `item.String()`, used in "unexpected … in …" errors. */
export function itemString(i: Item): string {
  if (i.typ === "EOF") return "EOF";
  if (i.typ === "error") return i.val;
  if (KEYWORDS.has(i.typ) || i.typ === "dot" || i.typ === "nil") return `<${i.val}>`; // Go lists these after itemKeyword
  if ([...i.val].length > 10) return `${goQuoteN(i.val, 10)}...`;
  return goQuoteN(i.val, Infinity);
}

/** Go `%.Nq`: the first `n` characters, quoted. */
function goQuoteN(s: string, n: number): string {
  return JSON.stringify([...s].slice(0, n).join(""));
}

const LEFT = "{{";
const RIGHT = "}}";
const isSpace = (c: string | undefined) => c === " " || c === "\t" || c === "\r" || c === "\n";
const isAlphaNumeric = (c: string | undefined) => c !== undefined && (c === "_" || /^[\p{L}\p{Nd}]$/u.test(c));

/** Go `%#U` of a character: `U+0023 '#'`. */
function hashU(c: string): string {
  const cp = c.codePointAt(0)!;
  const hex = cp.toString(16).toUpperCase().padStart(4, "0");
  return /^[\p{L}\p{M}\p{N}\p{P}\p{S} ]$/u.test(c) ? `U+${hex} '${c}'` : `U+${hex}`;
}

/**
 * Splits `input` into tokens, ending with an `EOF` or an `error` token (whose `val` is Go's text).
 * `breakOK`: `break`/`continue` are keywords (they are identifiers when no such function clashes).
 */
export function lex(input: string): Item[] {
  const items: Item[] = [];
  let pos = 0;
  let start = 0;
  let line = 1;
  let startLine = 1;
  let parenDepth = 0;
  const emit = (typ: ItemType, val = input.slice(start, pos)) => {
    items.push({ typ, val, pos: start, line: startLine });
    start = pos;
    startLine = line;
  };
  const ignore = () => {
    line += count(input.slice(start, pos), "\n");
    start = pos;
    startLine = line;
  };
  const fail = (msg: string) => {
    items.push({ typ: "error", val: msg, pos: start, line: startLine });
    return false;
  };
  const next = (): string | undefined => {
    if (pos >= input.length) return undefined;
    const c = String.fromCodePoint(input.codePointAt(pos)!);
    pos += c.length;
    if (c === "\n") line++;
    return c;
  };
  const backup = (c: string | undefined) => {
    if (c === undefined) return;
    pos -= c.length;
    if (c === "\n") line--;
  };
  const peek = () => (pos < input.length ? String.fromCodePoint(input.codePointAt(pos)!) : undefined);
  const hasLeftTrim = (at: number) => input[at] === "-" && isSpace(input[at + 1]);
  const hasRightTrim = (at: number) => isSpace(input[at]) && input[at + 1] === "-";
  const atRightDelim = (): [boolean, boolean] => {
    if (hasRightTrim(pos) && input.startsWith(RIGHT, pos + 2)) return [true, true];
    if (input.startsWith(RIGHT, pos)) return [true, false];
    return [false, false];
  };
  const atTerminator = () => {
    const r = peek();
    if (isSpace(r) || r === undefined || r === "." || r === "," || r === "|" || r === ":" || r === ")" || r === "(") return true;
    return input.startsWith(RIGHT, pos);
  };

  // Each state returns false when the lexer stopped (EOF or error).
  const text = (): boolean => {
    const x = input.indexOf(LEFT, pos);
    if (x < 0) {
      pos = input.length;
      if (pos > start) {
        line += count(input.slice(start, pos), "\n");
        emit("text");
      }
      emit("EOF");
      return false;
    }
    if (x > pos || x > start) {
      pos = x;
      let trim = 0;
      if (hasLeftTrim(x + 2)) trim = input.slice(start, pos).length - input.slice(start, pos).replace(/[ \t\r\n]+$/, "").length;
      pos -= trim;
      line += count(input.slice(start, pos), "\n");
      const val = input.slice(start, pos);
      const item: Item = { typ: "text", val, pos: start, line: startLine };
      pos += trim;
      ignore();
      if (val.length > 0) items.push(item);
    }
    return leftDelim();
  };

  const leftDelim = (): boolean => {
    pos += LEFT.length;
    const trim = hasLeftTrim(pos);
    const after = trim ? 2 : 0;
    if (input.startsWith("/*", pos + after)) {
      pos += after;
      ignore();
      return comment();
    }
    const item: Item = { typ: "leftDelim", val: LEFT, pos: start, line: startLine };
    pos += after;
    ignore();
    parenDepth = 0;
    items.push(item);
    return insideAction();
  };

  const comment = (): boolean => {
    pos += 2;
    const x = input.indexOf("*/", pos);
    if (x < 0) return fail("unclosed comment");
    pos = x + 2;
    const [delim, trim] = atRightDelim();
    if (!delim) return fail("comment ends before closing delimiter");
    line += count(input.slice(start, pos), "\n");
    if (trim) pos += 2;
    pos += RIGHT.length;
    if (trim) pos += input.slice(pos).length - input.slice(pos).replace(/^[ \t\r\n]+/, "").length;
    ignore();
    return true;
  };

  const rightDelim = (): boolean => {
    const [, trim] = atRightDelim();
    if (trim) {
      pos += 2;
      ignore();
    }
    pos += RIGHT.length;
    emit("rightDelim");
    if (trim) {
      pos += input.slice(pos).length - input.slice(pos).replace(/^[ \t\r\n]+/, "").length;
      ignore();
    }
    return true;
  };

  const insideAction = (): boolean => {
    for (;;) {
      const [delim] = atRightDelim();
      if (delim) {
        if (parenDepth === 0) return rightDelim();
        return fail("unclosed left paren");
      }
      const r = next();
      if (r === undefined) return fail("unclosed action");
      if (isSpace(r)) {
        backup(r);
        // lexSpace
        let n = 0;
        while (isSpace(peek())) {
          next();
          n++;
        }
        if (hasRightTrim(pos - 1) && input.startsWith(RIGHT, pos + 1)) {
          backup(input[pos - 1]);
          if (n === 1) return rightDelim();
        }
        emit("space");
        continue;
      }
      if (r === "=") emit("assign");
      else if (r === ":") {
        if (next() !== "=") return fail("expected :=");
        emit("declare");
      } else if (r === "|") emit("pipe");
      else if (r === '"') {
        if (!quote('"', "unterminated quoted string")) return false;
        emit("string");
      } else if (r === "`") {
        const x = input.indexOf("`", pos);
        if (x < 0) return fail("unterminated raw quoted string");
        line += count(input.slice(pos, x), "\n");
        pos = x + 1;
        emit("rawString");
      } else if (r === "$") {
        if (!fieldOrVariable("variable")) return false;
      } else if (r === "'") {
        if (!quote("'", "unterminated character constant")) return false;
        emit("charConstant");
      } else if (r === "." && !(input[pos] !== undefined && input[pos]! >= "0" && input[pos]! <= "9")) {
        if (!fieldOrVariable("field")) return false;
      } else if (r === "." || r === "+" || r === "-" || (r >= "0" && r <= "9")) {
        backup(r);
        if (!number()) return false;
      } else if (isAlphaNumeric(r)) {
        backup(r);
        if (!identifier()) return false;
      } else if (r === "(") {
        parenDepth++;
        emit("leftParen");
      } else if (r === ")") {
        parenDepth--;
        if (parenDepth < 0) return fail("unexpected right paren");
        emit("rightParen");
      } else if (r.codePointAt(0)! < 0x80 && /^[\x20-\x7e]$/.test(r)) emit("char");
      else return fail(`unrecognized character in action: ${hashU(r)}`);
      if (items[items.length - 1]!.typ === "rightDelim") return true;
    }
  };

  const quote = (q: string, err: string): boolean => {
    for (;;) {
      const c = next();
      if (c === "\\") {
        const d = next();
        if (d !== undefined && d !== "\n") continue;
        return fail(err);
      }
      if (c === undefined || c === "\n") return fail(err);
      if (c === q) return true;
    }
  };

  const fieldOrVariable = (typ: "field" | "variable"): boolean => {
    if (atTerminator()) {
      emit(typ === "variable" ? "variable" : "dot");
      return true;
    }
    let r: string | undefined;
    for (;;) {
      r = next();
      if (!isAlphaNumeric(r)) {
        backup(r);
        break;
      }
    }
    if (!atTerminator()) return fail(`bad character ${hashU(r ?? "")}`);
    emit(typ);
    return true;
  };

  const identifier = (): boolean => {
    let r: string | undefined;
    for (;;) {
      r = next();
      if (!isAlphaNumeric(r)) {
        backup(r);
        break;
      }
    }
    const word = input.slice(start, pos);
    if (!atTerminator()) return fail(`bad character ${hashU(r ?? "")}`);
    if (KEYWORDS.has(word as ItemType)) emit(word as ItemType);
    else if (word === "nil") emit("nil");
    else if (word === "true" || word === "false") emit("bool");
    else emit("identifier");
    return true;
  };

  const accept = (valid: string) => {
    const c = peek();
    if (c !== undefined && valid.includes(c)) {
      next();
      return true;
    }
    return false;
  };
  const acceptRun = (valid: string) => {
    while (accept(valid));
  };
  const scanNumber = (): boolean => {
    accept("+-");
    let digits = "0123456789_";
    if (accept("0")) {
      if (accept("xX")) digits = "0123456789abcdefABCDEF_";
      else if (accept("oO")) digits = "01234567_";
      else if (accept("bB")) digits = "01_";
    }
    acceptRun(digits);
    if (accept(".")) acceptRun(digits);
    if (digits.length === 11 && accept("eE")) {
      accept("+-");
      acceptRun("0123456789_");
    }
    if (digits.length === 23 && accept("pP")) {
      accept("+-");
      acceptRun("0123456789_");
    }
    accept("i");
    if (isAlphaNumeric(peek())) {
      next();
      return false;
    }
    return true;
  };
  const number = (): boolean => {
    if (!scanNumber()) return fail(`bad number syntax: ${JSON.stringify(input.slice(start, pos))}`);
    const sign = peek();
    if (sign === "+" || sign === "-") {
      if (!scanNumber() || input[pos - 1] !== "i") return fail(`bad number syntax: ${JSON.stringify(input.slice(start, pos))}`);
      emit("complex");
      return true;
    }
    emit("number");
    return true;
  };

  while (text());
  return items;
}

function count(s: string, sub: string): number {
  let n = 0;
  for (let i = s.indexOf(sub); i >= 0; i = s.indexOf(sub, i + 1)) n++;
  return n;
}
