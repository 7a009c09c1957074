/**
 * The parser of Go's text/template (Go 1.26 text/template/parse/parse.go, node.go): one text makes
 * a main tree and a tree per `{{define}}`/`{{block}}`; control structures `if`/`else if`/`with`/
 * `else with`/`range`/`break`/`continue`, pipelines with `|`, declarations `$x :=` / `$x =`,
 * parenthesised pipelines, field chains. Errors are Go's:
 * `template: NAME:LINE: function "x" not defined`, `unexpected "}" in operand`, `unexpected EOF` ….
 */
import { TinyError } from "../../core/errors.ts";
import { itemString, lex, type Item, type ItemType } from "./lex.ts";

/** A template that does not parse; `message` is Go's text. code `TEMPLATE_PARSE`. */
export class TemplateParseError extends TinyError<"TEMPLATE_PARSE"> {
  constructor(message: string) {
    super("TEMPLATE_PARSE", message);
  }
}

/** Where a node came from, for Go's `ErrorContext` (`name:line:col`). */
export interface TreeInfo {
  /** The name of the text being parsed (Go `ParseName`). */
  parseName: string;
  /** That text. */
  text: string;
}

interface Base {
  pos: number;
  tree: TreeInfo;
}
export type Node =
  | (Base & { t: "text"; text: string })
  | (Base & { t: "action"; line: number; pipe: PipeNode })
  | ControlNode
  | (Base & { t: "template"; line: number; name: string; pipe?: PipeNode })
  | (Base & { t: "break" | "continue"; line: number })
  | (Base & { t: "list"; nodes: Node[] })
  | PipeNode
  | CommandNode
  | ArgNode;
export type ListNode = Base & { t: "list"; nodes: Node[] };
/** `if`, `with` and `range`: a pipeline, a body and an optional else. */
export type ControlNode = Base & { t: "if" | "with" | "range"; line: number; pipe: PipeNode; list: ListNode; elseList?: ListNode };
export type PipeNode = Base & { t: "pipe"; line: number; isAssign: boolean; decl: string[]; cmds: CommandNode[] };
export type CommandNode = Base & { t: "command"; args: ArgNode[] };
/** Operands of a command. */
export type ArgNode =
  | (Base & { t: "field"; ident: string[] })
  | (Base & { t: "variable"; ident: string[] })
  | (Base & { t: "identifier"; ident: string })
  | (Base & { t: "chain"; node: ArgNode; field: string[] })
  | (Base & { t: "dot" })
  | (Base & { t: "nil" })
  | (Base & { t: "bool"; value: boolean })
  | (Base & { t: "string"; quoted: string; text: string })
  | (Base & { t: "number"; text: string; int?: bigint; float?: number; isFloat: boolean })
  | PipeNode;

/** A parsed tree: its name and body. */
export interface Tree {
  name: string;
  root: ListNode;
  info: TreeInfo;
}

/** Go `Node.String()`: the node as template text, used in exec errors' `<…>`. */
export function nodeString(n: Node): string {
  switch (n.t) {
    case "text":
      return JSON.stringify(n.text);
    case "action":
      return `{{${nodeString(n.pipe)}}}`;
    case "pipe": {
      const decl = n.decl.length > 0 ? `${n.decl.join(", ")} ${n.isAssign ? "=" : ":="} ` : "";
      return decl + n.cmds.map(nodeString).join(" | ");
    }
    case "command":
      return n.args.map((a) => (a.t === "pipe" ? `(${nodeString(a)})` : nodeString(a))).join(" ");
    case "field":
      return n.ident.map((i) => `.${i}`).join("");
    case "variable":
      return n.ident.join(".");
    case "identifier":
      return n.ident;
    case "chain":
      return (n.node.t === "pipe" ? `(${nodeString(n.node)})` : nodeString(n.node)) + n.field.map((f) => `.${f}`).join("");
    case "dot":
      return ".";
    case "nil":
      return "nil";
    case "bool":
      return String(n.value);
    case "string":
      return n.quoted;
    case "number":
      return n.text;
    case "list":
      return n.nodes.map(nodeString).join("");
    case "if":
    case "with":
    case "range": {
      const e = n.elseList ? `{{else}}${nodeString(n.elseList)}` : "";
      return `{{${n.t} ${nodeString(n.pipe)}}}${nodeString(n.list)}${e}{{end}}`;
    }
    case "template":
      return n.pipe ? `{{template ${JSON.stringify(n.name)} ${nodeString(n.pipe)}}}` : `{{template ${JSON.stringify(n.name)}}}`;
    case "break":
    case "continue":
      return `{{${n.t}}}`;
  }
}

/** Go `parse.IsEmptyTree`: only white space text and comments. */
export function isEmptyTree(n: Node | undefined): boolean {
  if (!n) return true;
  if (n.t === "list") return n.nodes.every(isEmptyTree);
  if (n.t === "text") return n.text.trim().replace(/^[\s\u0085\u00a0]+|[\s\u0085\u00a0]+$/g, "") === "";
  return false;
}

/** Go's maximum depth of nested parenthesised pipelines. */
const MAX_STACK_DEPTH = 10000;

/** Marker nodes `{{end}}` / `{{else}}` the list parser returns. */
type Terminator = { t: "end"; pos: number } | { t: "else"; pos: number; line: number };

/**
 * Parses one template text (Go `parse.Parse`): the main tree named `name` and every tree it
 * defines. Within one text a second non-empty definition of a name is an error.
 * @param hasFunction whether a function name is known (Go's parse-time check).
 * @throws TemplateParseError with Go's text.
 */
export function parseTemplate(name: string, text: string, hasFunction: (name: string) => boolean): Map<string, Tree> {
  const items = lex(text);
  const info: TreeInfo = { parseName: name, text };
  const treeSet = new Map<string, Tree>();
  let i = 0;
  let vars: string[] = ["$"];
  let rangeDepth = 0;
  let stackDepth = 0;
  let actionLine = 0;
  let lastLine = 1;

  const peek = (): Item => {
    const it = items[i] ?? items[items.length - 1]!;
    lastLine = it.line;
    return it;
  };
  const next = (): Item => {
    const it = peek();
    if (i < items.length) i++;
    return it;
  };
  const backup = (n = 1) => {
    i -= n;
  };
  const nextNonSpace = (): Item => {
    let it = next();
    while (it.typ === "space") it = next();
    return it;
  };
  const peekNonSpace = (): Item => {
    const it = nextNonSpace();
    backup();
    return it;
  };
  const errorf = (msg: string): never => {
    throw new TemplateParseError(`template: ${name}:${lastLine}: ${msg}`);
  };
  const unexpected = (token: Item, context: string): never => {
    if (token.typ === "error") {
      let extra = "";
      if (actionLine !== 0 && actionLine !== token.line) {
        extra = ` in action started at ${name}:${actionLine}`;
        if (token.val.endsWith(" action")) extra = extra.slice(" in action".length);
      }
      lastLine = token.line;
      return errorf(`${token.val}${extra}`);
    }
    return errorf(`unexpected ${itemString(token)} in ${context}`);
  };
  const expect = (typ: ItemType, context: string): Item => {
    const token = nextNonSpace();
    if (token.typ !== typ) unexpected(token, context);
    return token;
  };
  const unquote = (token: Item): string => {
    if (token.typ === "rawString") return token.val.slice(1, -1).replaceAll("\r", "");
    try {
      return JSON.parse(goStringToJson(token.val)) as string;
    } catch {
      return errorf("invalid syntax");
    }
  };
  const list = (pos: number): ListNode => ({ t: "list", pos, tree: info, nodes: [] });

  const addTree = (tree: Tree) => {
    const old = treeSet.get(tree.name);
    if (!old || isEmptyTree(old.root)) {
      treeSet.set(tree.name, tree);
      return;
    }
    if (!isEmptyTree(tree.root)) errorf(`template: multiple definition of template ${JSON.stringify(tree.name)}`);
  };

  /** Go `itemList`: nodes up to `{{end}}` or `{{else}}`. */
  const itemList = (): [ListNode, Terminator] => {
    const l = list(peekNonSpace().pos);
    while (peekNonSpace().typ !== "EOF") {
      const n = textOrAction();
      if ("t" in n && (n.t === "end" || n.t === "else")) return [l, n as Terminator];
      l.nodes.push(n as Node);
    }
    return errorf("unexpected EOF");
  };

  const textOrAction = (): Node | Terminator => {
    const token = nextNonSpace();
    if (token.typ === "text") return { t: "text", pos: token.pos, tree: info, text: token.val };
    if (token.typ === "leftDelim") {
      actionLine = token.line;
      try {
        return action();
      } finally {
        actionLine = 0;
      }
    }
    return unexpected(token, "input");
  };

  const action = (): Node | Terminator => {
    const token = nextNonSpace();
    switch (token.typ) {
      case "block":
        return blockControl();
      case "break":
      case "continue": {
        const closing = nextNonSpace();
        if (closing.typ !== "rightDelim") unexpected(closing, `{{${token.typ}}}`);
        if (rangeDepth === 0) errorf(`{{${token.typ}}} outside {{range}}`);
        return { t: token.typ, pos: token.pos, line: token.line, tree: info };
      }
      case "else": {
        const p = peekNonSpace();
        if (p.typ === "if" || p.typ === "with") return { t: "else", pos: p.pos, line: p.line };
        const closing = expect("rightDelim", "else");
        return { t: "else", pos: closing.pos, line: closing.line };
      }
      case "end":
        return { t: "end", pos: expect("rightDelim", "end").pos };
      case "if":
      case "range":
      case "with":
        return control(token.typ);
      case "template": {
        const nameToken = nextNonSpace();
        const tmplName = templateName(nameToken, "template clause");
        let pipe: PipeNode | undefined;
        if (nextNonSpace().typ !== "rightDelim") {
          backup();
          pipe = pipeline("template clause", "rightDelim");
        }
        return { t: "template", pos: nameToken.pos, line: nameToken.line, tree: info, name: tmplName, pipe };
      }
    }
    backup();
    const at = peek();
    return { t: "action", pos: at.pos, line: at.line, tree: info, pipe: pipeline("command", "rightDelim") };
  };

  const templateName = (token: Item, context: string): string => {
    if (token.typ === "string" || token.typ === "rawString") return unquote(token);
    return unexpected(token, context);
  };

  const blockControl = (): Node => {
    const context = "block clause";
    const token = nextNonSpace();
    const blockName = templateName(token, context);
    const pipe = pipeline(context, "rightDelim");
    const saved = { vars, rangeDepth };
    vars = ["$"];
    rangeDepth = 0;
    const [root, end] = itemList();
    if (end.t !== "end") errorf(`unexpected {{else}} in ${context}`);
    addTree({ name: blockName, root, info });
    ({ vars, rangeDepth } = saved);
    return { t: "template", pos: token.pos, line: token.line, tree: info, name: blockName, pipe };
  };

  const control = (context: "if" | "range" | "with"): Node => {
    const mark = vars.length;
    try {
      const pipe = pipeline(context, "rightDelim");
      if (context === "range") rangeDepth++;
      let [body, end] = itemList();
      if (context === "range") rangeDepth--;
      let elseList: ListNode | undefined;
      if (end.t === "else") {
        if (context === "if" && peek().typ === "if") {
          next();
          elseList = list(end.pos);
          elseList.nodes.push(control("if"));
        } else if (context === "with" && peek().typ === "with") {
          next();
          elseList = list(end.pos);
          elseList.nodes.push(control("with"));
        } else {
          [elseList, end] = itemList();
          if (end.t !== "end") errorf("expected end; found {{else}}");
        }
      }
      return { t: context, pos: pipe.pos, line: pipe.line, tree: info, pipe, list: body, elseList };
    } finally {
      vars = vars.slice(0, mark);
    }
  };

  const pipeline = (context: string, end: ItemType): PipeNode => {
    const token = peekNonSpace();
    const pipe: PipeNode = { t: "pipe", pos: token.pos, line: token.line, tree: info, isAssign: false, decl: [], cmds: [] };
    for (;;) {
      const v = peekNonSpace();
      if (v.typ !== "variable") break;
      nextNonSpace();
      const afterVariable = peek();
      const nxt = peekNonSpace();
      if (nxt.typ === "assign" || nxt.typ === "declare") {
        pipe.isAssign = nxt.typ === "assign";
        nextNonSpace();
        pipe.decl.push(v.val);
        vars.push(v.val);
        break;
      }
      if (nxt.typ === "char" && nxt.val === ",") {
        nextNonSpace();
        pipe.decl.push(v.val);
        vars.push(v.val);
        if (context === "range" && pipe.decl.length < 2) {
          const p = peekNonSpace().typ;
          if (p === "variable" || p === "rightDelim" || p === "rightParen") continue;
          errorf("range can only initialize variables");
        }
        errorf(`too many declarations in ${context}`);
      }
      if (afterVariable.typ === "space") backup(2);
      else backup();
      break;
    }
    for (;;) {
      const token = nextNonSpace();
      if (token.typ === end) {
        if (pipe.cmds.length === 0) errorf(`missing value for ${context}`);
        pipe.cmds.slice(1).forEach((c, k) => {
          const first = c.args[0]!.t;
          if (first === "bool" || first === "dot" || first === "nil" || first === "number" || first === "string")
            errorf(`non executable command in pipeline stage ${k + 2}`);
        });
        return pipe;
      }
      switch (token.typ) {
        case "bool":
        case "charConstant":
        case "complex":
        case "dot":
        case "field":
        case "identifier":
        case "number":
        case "nil":
        case "rawString":
        case "string":
        case "variable":
        case "leftParen":
          backup();
          pipe.cmds.push(command());
          break;
        default:
          unexpected(token, context);
      }
    }
  };

  const command = (): CommandNode => {
    const cmd: CommandNode = { t: "command", pos: peekNonSpace().pos, tree: info, args: [] };
    for (;;) {
      peekNonSpace();
      const op = operand();
      if (op) cmd.args.push(op);
      const token = next();
      if (token.typ === "space") continue;
      if (token.typ === "rightDelim" || token.typ === "rightParen") backup();
      else if (token.typ !== "pipe") unexpected(token, "operand");
      break;
    }
    if (cmd.args.length === 0) errorf("empty command");
    return cmd;
  };

  const operand = (): ArgNode | undefined => {
    const node = term();
    if (!node) return undefined;
    if (peek().typ !== "field") return node;
    const fields: string[] = [];
    const pos = peek().pos;
    while (peek().typ === "field") fields.push(...next().val.slice(1).split("."));
    switch (node.t) {
      case "field":
        return { t: "field", pos, tree: info, ident: [...node.ident, ...fields] };
      case "variable":
        return { t: "variable", pos, tree: info, ident: [...node.ident, ...fields] };
      case "bool":
      case "string":
      case "number":
      case "nil":
      case "dot":
        return errorf(`unexpected . after term ${JSON.stringify(nodeString(node))}`);
      default:
        return { t: "chain", pos, tree: info, node, field: fields };
    }
  };

  const term = (): ArgNode | undefined => {
    const token = nextNonSpace();
    switch (token.typ) {
      case "identifier":
        if (!hasFunction(token.val)) errorf(`function ${JSON.stringify(token.val)} not defined`);
        return { t: "identifier", pos: token.pos, tree: info, ident: token.val };
      case "dot":
        return { t: "dot", pos: token.pos, tree: info };
      case "nil":
        return { t: "nil", pos: token.pos, tree: info };
      case "variable": {
        const ident = token.val.split(".");
        if (!vars.includes(ident[0]!)) errorf(`undefined variable ${JSON.stringify(ident[0])}`);
        return { t: "variable", pos: token.pos, tree: info, ident };
      }
      case "field":
        return { t: "field", pos: token.pos, tree: info, ident: token.val.slice(1).split(".") };
      case "bool":
        return { t: "bool", pos: token.pos, tree: info, value: token.val === "true" };
      case "charConstant":
      case "complex":
      case "number":
        return numberNode(token);
      case "leftParen": {
        if (stackDepth >= MAX_STACK_DEPTH) errorf("max expression depth exceeded");
        stackDepth++;
        try {
          return pipeline("parenthesized pipeline", "rightParen");
        } finally {
          stackDepth--;
        }
      }
      case "string":
      case "rawString":
        return { t: "string", pos: token.pos, tree: info, quoted: token.val, text: unquote(token) };
    }
    backup();
    return undefined;
  };

  const numberNode = (token: Item): ArgNode => {
    const text = token.val;
    if (token.typ === "complex") return errorf(`complex constants are not supported: ${text}`);
    if (token.typ === "charConstant") {
      const ch = unquoteChar(text);
      if (ch === "syntax") return errorf("invalid syntax");
      if (ch === undefined) return errorf(`malformed character constant: ${text}`);
      return { t: "number", pos: token.pos, tree: info, text, int: BigInt(ch), float: ch, isFloat: false };
    }
    const clean = text.replaceAll("_", "");
    const intText = /^[+-]?(0[xX][0-9a-fA-F]+|0[oO]?[0-7]*|0[bB][01]+|[1-9][0-9]*|0)$/.test(clean) ? clean : undefined;
    if (intText !== undefined && !clean.endsWith("i")) {
      const neg = intText.startsWith("-");
      let digits = intText.replace(/^[+-]/, "");
      if (/^0[0-7]+$/.test(digits)) digits = "0o" + digits.slice(1);
      if (/^0[oO]$/.test(digits)) return errorf(`illegal number syntax: ${JSON.stringify(text)}`);
      const v = BigInt(digits.toLowerCase());
      const int = neg ? -v : v;
      return { t: "number", pos: token.pos, tree: info, text, int, float: Number(int), isFloat: false };
    }
    const f = Number(clean);
    if (!/^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(clean) || !Number.isFinite(f)) return errorf(`illegal number syntax: ${JSON.stringify(text)}`);
    // A float with an integral value is also an integer constant (Go keeps both views).
    const int = Number.isInteger(f) && Math.abs(f) < 2 ** 63 ? BigInt(f) : undefined;
    return { t: "number", pos: token.pos, tree: info, text, int, float: f, isFloat: true };
  };

  // parse(): top level, `{{define}}` handled here.
  const root = list(peek().pos);
  while (peek().typ !== "EOF") {
    if (peek().typ === "leftDelim") {
      const delim = next();
      if (nextNonSpace().typ === "define") {
        const context = "define clause";
        const nameToken = nextNonSpace();
        if (nameToken.typ !== "string" && nameToken.typ !== "rawString") unexpected(nameToken, context);
        const defName = unquote(nameToken);
        expect("rightDelim", context);
        const saved = { vars, rangeDepth };
        vars = ["$"];
        rangeDepth = 0;
        const [body, end] = itemList();
        if (end.t !== "end") errorf(`unexpected {{else}} in ${context}`);
        addTree({ name: defName, root: body, info });
        ({ vars, rangeDepth } = saved);
        continue;
      }
      i = items.indexOf(delim);
    }
    const n = textOrAction();
    if (n.t === "end" || n.t === "else") errorf(`unexpected {{${n.t}}}`);
    root.nodes.push(n as Node);
  }
  addTree({ name, root, info });
  return treeSet;
}

/** Go string literal → JSON string literal (Go's escapes `\a \v \x.. \NNN \U........` included). */
function goStringToJson(quoted: string): string {
  const body = quoted.slice(1, -1);
  let out = "";
  for (let k = 0; k < body.length; k++) {
    const c = body[k]!;
    if (c !== "\\") {
      out += c === '"' ? '\\"' : c < " " ? `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}` : c;
      continue;
    }
    const e = body[++k];
    switch (e) {
      case "a":
        out += "\\u0007";
        break;
      case "v":
        out += "\\u000b";
        break;
      case "'":
        throw new Error("invalid escape");
      case "x":
        out += `\\u00${body.slice(k + 1, k + 3)}`;
        k += 2;
        break;
      case "U": {
        const cp = parseInt(body.slice(k + 1, k + 9), 16);
        out += JSON.stringify(String.fromCodePoint(cp)).slice(1, -1);
        k += 8;
        break;
      }
      default:
        if (e !== undefined && e >= "0" && e <= "7") {
          out += `\\u00${parseInt(body.slice(k, k + 3), 8)
            .toString(16)
            .padStart(2, "0")}`;
          k += 2;
        } else out += "\\" + e;
    }
  }
  return `"${out}"`;
}

/**
 * The code point of a Go character literal `'a'`, `'\n'`, `'\x41'`, `'\u00e9'`: `"syntax"` for a
 * bad escape (Go `strconv.UnquoteChar`: invalid syntax), undefined for more than one character.
 */
function unquoteChar(lit: string): number | "syntax" | undefined {
  const body = lit.slice(1, -1);
  if (body === "'" || body === "") return "syntax";
  if (!body.startsWith("\\")) {
    const cps = [...body];
    return cps.length === 1 ? cps[0]!.codePointAt(0) : undefined;
  }
  const esc = /^\\(?:[abfnrtv\\'"]|x[0-9a-fA-F]{2}|u[0-9a-fA-F]{4}|U[0-9a-fA-F]{8}|[0-7]{3})/.exec(body);
  if (!esc) return "syntax";
  if (esc[0].length !== body.length) return undefined;
  const s = JSON.parse(goStringToJson(`"${body === "\\'" ? "'" : body}"`)) as string;
  return s.codePointAt(0);
}
