/**
 * JSONPath with ajson v0.1.6's semantics (jsonpath.go `ParseJSONPath`, `ApplyJSONPath`), over
 * plain JSON values. A path's text is split into commands once, at compile time:
 * `$.store.book[?(@.price < 10)].title` → `$`, `store`, `book`, `?(@.price < 10)`, `title`.
 * Each command maps the current list of nodes to the next:
 *
 * - `$` / `@` as the first command: the root / the current node; later they do nothing.
 * - `..`: the list plus every container below each node, in ajson's order (all container children
 *   of a node, then the containers below the first child, and so on).
 * - `*`: every child (array elements; object members by sorted key).
 * - a command with a `:` token: an array slice `[start:end:step]`; bounds may be `(expr)`.
 * - `?(expr)`: the children of each container for which expr is true (`@` = the child); an
 *   error in expr fails the whole path.
 * - `(expr)`: the child named (string) or numbered (integer ≥ 0) by expr; `true` = all children.
 * - otherwise a key, or a `,` union of keys (key-major order): a member of an object; of an array
 *   the element at an integer index (negative counts from the end) or `length`.
 *
 * Result: no node → MISSING (undefined), one node → it, several → an array of them.
 * `parent`/`root`/`key` need locations: {@link CompiledPath.locate} returns them.
 */
import { scanNumber, scanPath, scanString, escaped } from "./lexer.ts";
import { EvalFailure, ExpressionSyntaxError } from "./errors.ts";
import { isObject, type JsonObject, numeric, sortedKeys, truthy, UnreadableNumber } from "./values.ts";

/** A compiled expression: evaluated with the payload root (`$`) and the current node (`@`). */
export type Evaluator = (root: unknown, current: unknown, currentLoc?: Loc) => unknown;

/** A node of the payload with where it sits: its parent node and its key (or index) there. */
export interface Loc {
  readonly value: unknown;
  readonly parent: Loc | undefined;
  readonly key: string | number | undefined;
}

/** Compiles the body of a filter or script (text inside `?(…)` / `(…)`); supplied by evaluate.ts. */
export type CompileNested = (text: string) => Evaluator;

/** A compiled path. */
export interface CompiledPath {
  /** The value: MISSING (undefined), the single match, or an array of the matches. */
  readonly evaluate: Evaluator;
  /** The match with its location (several matches: a new array without a parent). */
  readonly locate: (root: unknown, current: unknown, currentLoc?: Loc) => Loc | undefined;
}

type Step = (nodes: Loc[], root: unknown, first: Loc) => Loc[];

const hasOwn = Object.prototype.hasOwnProperty;

function at(value: unknown, parent: Loc | undefined, key: string | number | undefined): Loc {
  return { value, parent, key };
}

/** Children of a node in ajson `Inheritors` order, with locations. */
function childLocs(loc: Loc): Loc[] {
  const v = loc.value;
  if (Array.isArray(v)) {
    const out = new Array<Loc>(v.length);
    for (let i = 0; i < v.length; i++) out[i] = { value: v[i], parent: loc, key: i };
    return out;
  }
  if (isObject(v)) {
    const obj: JsonObject = v;
    return sortedKeys(obj).map((k) => at(obj[k], loc, k));
  }
  return [];
}

function isContainer(v: unknown): boolean {
  return Array.isArray(v) || isObject(v);
}

/** ajson `recursiveChildren`: container children first, then what lies below each of them. */
function descendants(loc: Loc): Loc[] {
  const direct = childLocs(loc).filter((c) => isContainer(c.value));
  const out = [...direct];
  for (const c of direct) out.push(...descendants(c));
  return out;
}

/** Go `strconv.Atoi`: optional sign and decimal digits, else undefined. */
function atoi(s: string): number | undefined {
  return /^[+-]?\d+$/.test(s) ? Number(s) : undefined;
}

/** ajson `str(key)`: a quoted key is unquoted (undecodable → ""), anything else is used as-is. */
function unquoteKey(key: string): string {
  if (key.length > 1 && ((key[0] === '"' && key.endsWith('"')) || (key[0] === "'" && key.endsWith("'")))) {
    const s = scanString(key, 0);
    return s !== undefined && s.end === key.length ? s.value : "";
  }
  return key;
}

/**
 * ajson `tokenize` of one command: the pieces used to find `:` and `,` (and to rebuild slice
 * bounds and union keys, joined without the spaces between pieces).
 */
const OPS = ["**", "<<", ">>", "&^", "==", "!=", "<=", ">=", "=~", "&&", "||", "*", "/", "%", "&", "+", "-", "|", "^", "<", ">"];
/** A command that is one plain name or index: its tokens hold no `:` or `,`. */
const PLAIN = /^[A-Za-z0-9_]+$/;

function commandTokens(cmd: string, fail: (reason: string) => never): string[] {
  if (PLAIN.test(cmd)) return [cmd];
  const out: string[] = [];
  let i = 0;
  let operand = false;
  const n = cmd.length;
  const ops = OPS;
  while (i < n) {
    const ch = cmd[i]!;
    const c = cmd.charCodeAt(i);
    if (ch === " " || ch === "\t" || ch === "\n" || ch === "\r") {
      i++;
      continue;
    }
    if ("*/%<>&|^+-=!".includes(ch) && (operand || (ch !== "-" && ch !== "+"))) {
      const op = ops.find((o) => cmd.startsWith(o, i));
      if (op === undefined) fail(`unexpected ${JSON.stringify(ch)}`);
      out.push(op!);
      i += op!.length;
      operand = false;
      continue;
    }
    if ((c >= 48 && c <= 57) || ch === "." || ch === "-" || ch === "+") {
      const len = ch === "+" ? -1 : scanNumber(cmd, i);
      if (len < 0) {
        if (ch !== ".") fail("malformed number");
        out.push(".");
        i++;
        operand = true;
        continue;
      }
      out.push(cmd.slice(i, i + len));
      i += len;
      operand = true;
      continue;
    }
    if (ch === "'" || ch === '"') {
      const s = scanString(cmd, i);
      if (s === undefined) fail("malformed or unterminated string");
      out.push(cmd.slice(i, s!.end));
      i = s!.end;
      operand = true;
      continue;
    }
    if (ch === "$" || ch === "@") {
      const end = scanPath(cmd, i, (_p, r) => fail(r));
      out.push(cmd.slice(i, end));
      i = end;
      operand = true;
      continue;
    }
    if (ch === "(" || ch === ")") {
      out.push(ch);
      i++;
      operand = ch === ")";
      continue;
    }
    const start = i;
    while (i < n && ((cmd.charCodeAt(i) >= 65 && cmd.charCodeAt(i) <= 122) || (cmd.charCodeAt(i) >= 48 && cmd.charCodeAt(i) <= 57))) i++;
    if (i === start) i++; // one other character is a token of its own (`:`, `,`, `?`, …)
    out.push(cmd.slice(start, i).toLowerCase());
    operand = true;
  }
  return out;
}

/** Joins the tokens between separators (ajson `tokens.slice`). */
function splitTokens(tokens: string[], sep: string): string[] {
  const out: string[] = [];
  let cur: string[] = [];
  for (const t of tokens) {
    if (t === sep) {
      out.push(cur.join(""));
      cur = [];
    } else cur.push(t);
  }
  out.push(cur.join(""));
  return out;
}

/**
 * Splits path text into commands (ajson `ParseJSONPath`).
 * @throws ExpressionSyntaxError for an unclosed bracket or a character that starts no command
 */
export function pathCommands(path: string, source: string, pos: number): string[] {
  const out: string[] = [];
  const n = path.length;
  let i = 0;
  while (i < n) {
    const ch = path[i]!;
    if (ch === "$" || ch === "@") {
      out.push(ch);
      i++;
    } else if (ch === ".") {
      if (i + 1 >= n) break;
      if (path[i + 1] === ".") {
        out.push("..");
        i++;
        continue;
      }
      let j = i + 1;
      while (j < n && !((path[j] === "." || path[j] === "[") && !escaped(path, j))) j++;
      if (j > i + 1) out.push(path.slice(i + 1, j));
      i = j;
    } else if (ch === "[") {
      if (i + 1 >= n) throw new ExpressionSyntaxError(source, pos + n, 'unexpected end of expression, expected "]"');
      let depth = 1;
      let quote = "";
      let j = i + 1;
      let closed = false;
      for (; j < n; j++) {
        const c = path[j]!;
        if (c === "'" || c === '"') {
          if (quote === "") quote = c;
          else if (quote === c && !escaped(path, j)) quote = "";
        } else if (quote === "" && !escaped(path, j)) {
          if (c === "[") depth++;
          else if (c === "]" && --depth === 0) {
            closed = true;
            break;
          }
        }
      }
      if (!closed) throw new ExpressionSyntaxError(source, pos + n, 'unexpected end of expression, expected "]"');
      out.push(path.slice(i + 1, j));
      i = j + 1;
    } else {
      throw new ExpressionSyntaxError(source, pos + i, `unexpected ${JSON.stringify(ch)} in path`);
    }
  }
  return out;
}

/** A slice bound or union key that may be `(expr)`: its integer value for an array, or undefined for "". */
type IndexFn = (array: Loc, root: unknown) => number | undefined;

function compileIndex(raw: string, cmd: string, nested: CompileNested): IndexFn {
  if (raw === "") return () => undefined;
  if (raw === "(@.length)") return (a) => (a.value as unknown[]).length;
  if (raw.startsWith("(") && raw.endsWith(")")) {
    const body = nested(raw.slice(1, -1));
    return (a, root) => {
      const v = body(root, a.value, a);
      const n = numeric(v, `the index (${raw.slice(1, -1)}) in [${cmd}]`);
      if (n % 1 !== 0 || !Number.isFinite(n)) throw new EvalFailure(`the index (${raw.slice(1, -1)}) in [${cmd}] is not an integer: ${n}`);
      return n;
    };
  }
  const n = atoi(raw);
  return () => {
    if (n === undefined) throw new EvalFailure(`the slice bound ${JSON.stringify(raw)} in [${cmd}] is not an integer`);
    return n;
  };
}

function sliceStep(cmd: string, tokens: string[], nested: CompileNested): Step {
  const keys = splitTokens(tokens, ":");
  const startFn = compileIndex(keys[0]!, cmd, nested);
  const endFn = compileIndex(keys[1]!, cmd, nested);
  const stepFn = keys.length >= 3 ? compileIndex(keys[2]!, cmd, nested) : () => 1;
  return (nodes, root) => {
    const out: Loc[] = [];
    for (const loc of nodes) {
      const arr = loc.value;
      if (!Array.isArray(arr) || arr.length === 0) continue;
      const size = arr.length;
      const s0 = startFn(loc, root);
      const e0 = endFn(loc, root);
      const step = Math.trunc(stepFn(loc, root) ?? 1);
      if (step === 0) throw new EvalFailure(`the slice [${cmd}] has a step of 0`);
      let start = s0 === undefined ? (step > 0 ? 0 : size - 1) : s0 < 0 ? s0 + size : s0;
      let end = e0 === undefined ? (step > 0 ? size : -1) : e0 < 0 ? e0 + size : e0;
      if (step > 0) {
        start = Math.max(start, 0);
        end = Math.min(end, size);
        for (let i = start; i < end; i += step) if (i >= 0 && i < size) out.push(at(arr[i], loc, i));
      } else {
        start = Math.min(start, size);
        end = Math.max(end, -1);
        for (let i = start; i > end; i += step) if (i >= 0 && i < size) out.push(at(arr[i], loc, i));
      }
    }
    return out;
  };
}

function filterStep(cmd: string, nested: CompileNested): Step {
  const test = nested(cmd.slice(2, -1));
  return (nodes, root) => {
    const out: Loc[] = [];
    for (const loc of nodes) {
      if (!isContainer(loc.value)) continue;
      for (const child of childLocs(loc)) {
        let v: unknown;
        try {
          v = test(root, child.value, child);
        } catch (err) {
          if (err instanceof EvalFailure) throw new EvalFailure(`the filter [${cmd}] failed on an element: ${err.message}`);
          throw err;
        }
        if (v === undefined) continue;
        let keep = false;
        try {
          keep = truthy(v);
        } catch {
          keep = false;
        }
        if (keep) out.push(child);
      }
    }
    return out;
  };
}

/** The child of a container named by a script's string or integer result (ajson script command). */
function childByKey(loc: Loc, key: string): Loc | undefined {
  const v = loc.value;
  if (Array.isArray(v)) {
    if (!/^(0|[1-9]\d*)$/.test(key)) return undefined;
    const i = Number(key);
    return i < v.length ? at(v[i], loc, i) : undefined;
  }
  if (isObject(v) && hasOwn.call(v, key)) return at(v[key], loc, key);
  return undefined;
}

function scriptStep(cmd: string, nested: CompileNested): Step {
  const pick = nested(cmd.slice(1, -1));
  return (nodes, root) => {
    const out: Loc[] = [];
    for (const loc of nodes) {
      if (!isContainer(loc.value)) continue;
      let v: unknown;
      try {
        v = pick(root, loc.value, loc);
      } catch (err) {
        if (err instanceof EvalFailure) throw new EvalFailure(`the script [${cmd}] failed: ${err.message}`);
        throw err;
      }
      if (typeof v === "string") {
        const c = childByKey(loc, v);
        if (c) out.push(c);
      } else if (typeof v === "number" || v instanceof UnreadableNumber) {
        const n = numeric(v, `the script [${cmd}]`);
        // ajson numbers a negative index from size - n (so it never matches) and a fraction by its text.
        const key = n % 1 === 0 && Number.isFinite(n) ? String(n < 0 ? size(loc.value) - n : n) : String(n);
        const c = childByKey(loc, key);
        if (c) out.push(c);
      } else if (v === true) {
        out.push(...childLocs(loc));
      }
    }
    return out;
  };
}

function size(v: unknown): number {
  return Array.isArray(v) ? v.length : isObject(v) ? Object.keys(v).length : 0;
}

/** A compiled key of a key/union command. */
interface KeyStep {
  /** The object member name (unquoted). */
  readonly name: string;
  /** The array index (from `name`), undefined when not an integer. */
  readonly index: number | undefined;
  /** `length` (also quoted): the array's length. */
  readonly length: boolean;
  /** `(expr)`: an index computed against the array. */
  readonly script: IndexFn | undefined;
}

function compileKey(raw: string, cmd: string, nested: CompileNested): KeyStep {
  const length = raw === "length" || raw === "'length'" || raw === '"length"';
  const script = raw.startsWith("(") && raw.endsWith(")") ? compileIndex(raw, cmd, nested) : undefined;
  const name = unquoteKey(raw);
  return { name, index: atoi(name), length, script };
}

/** One key applied to one node: the node found, or undefined. */
function applyKey(k: KeyStep, loc: Loc, root: unknown): Loc | undefined {
  const v = loc.value;
  if (Array.isArray(v)) {
    if (k.length) return at(v.length, undefined, undefined);
    let i: number | undefined;
    if (k.script) {
      const n = k.script(loc, root);
      if (v.length === 0 || n === undefined) return undefined;
      i = n;
    } else {
      if (k.index === undefined || v.length === 0) return undefined;
      i = k.index;
    }
    if (i < 0) i += v.length;
    return i >= 0 && i < v.length ? at(v[i], loc, i) : undefined;
  }
  if (isObject(v) && hasOwn.call(v, k.name)) return at(v[k.name], loc, k.name);
  return undefined;
}

function keysStep(keys: KeyStep[]): Step {
  return (nodes, root) => {
    const out: Loc[] = [];
    for (const k of keys) {
      for (const loc of nodes) {
        const found = applyKey(k, loc, root);
        if (found) out.push(found);
      }
    }
    return out;
  };
}

/**
 * Compiles path text (a `path` token: `$…` or `@…`).
 * @param path the path text
 * @param source the whole expression, for error messages
 * @param pos offset of the path in `source`
 * @param nested compiles filter/script bodies
 * @throws ExpressionSyntaxError when a command does not parse (as Go fails every evaluation)
 */
export function compilePath(path: string, source: string, pos: number, nested: CompileNested): CompiledPath {
  const commands = pathCommands(path, source, pos);
  const fail = (reason: string): never => {
    throw new ExpressionSyntaxError(source, pos, `${reason} in path ${JSON.stringify(path)}`);
  };
  const steps: Step[] = [];
  const simple: KeyStep[] = [];
  let isSimple = true;
  commands.forEach((cmd, index) => {
    const tokens = commandTokens(cmd, fail);
    if (cmd === "$" || cmd === "@") {
      if (index === 0) steps.push(cmd === "$" ? (_n, root) => [at(root, undefined, undefined)] : (_n, _r, first) => [first]);
      else if (cmd === "@") isSimple = false; // a later `@`/`$` does nothing
      return;
    }
    if (cmd === "..") {
      isSimple = false;
      steps.push((nodes) => [...nodes, ...nodes.flatMap(descendants)]);
    } else if (cmd === "*") {
      isSimple = false;
      steps.push((nodes) => nodes.flatMap(childLocs));
    } else if (tokens.includes(":")) {
      isSimple = false;
      if (tokens.filter((t) => t === ":").length > 3) fail("a slice has at most three colons");
      steps.push(sliceStep(cmd, tokens, nested));
    } else if (cmd.startsWith("?(") && cmd.endsWith(")")) {
      isSimple = false;
      steps.push(filterStep(cmd, nested));
    } else if (cmd.startsWith("(") && cmd.endsWith(")")) {
      isSimple = false;
      steps.push(scriptStep(cmd, nested));
    } else {
      const raws = tokens.includes(",") ? splitTokens(tokens, ",") : [cmd];
      const keys = raws.map((r) => compileKey(r, cmd, nested));
      if (keys.length !== 1 || keys[0]!.script) isSimple = false;
      else simple.push(keys[0]!);
      steps.push(keysStep(keys));
    }
  });
  const fromRoot = commands[0] === "$";

  const locate = (root: unknown, current: unknown, currentLoc?: Loc): Loc | undefined => {
    const first = currentLoc ?? at(current, undefined, undefined);
    let nodes: Loc[] = [];
    for (const step of steps) nodes = step(nodes, root, first);
    if (nodes.length === 0) return undefined;
    if (nodes.length === 1) return nodes[0];
    return at(
      nodes.map((n) => n.value),
      undefined,
      undefined,
    );
  };

  if (isSimple) {
    // Every command is one plain key: walk the values without building locations.
    return {
      locate,
      evaluate: (root, current) => {
        let v: unknown = fromRoot ? root : current;
        for (let s = 0; s < simple.length; s++) {
          const k = simple[s]!;
          if (Array.isArray(v)) {
            if (k.length) v = v.length;
            else if (k.index === undefined || v.length === 0) return undefined;
            else {
              const i = k.index < 0 ? k.index + v.length : k.index;
              if (i < 0 || i >= v.length) return undefined;
              v = v[i];
            }
          } else if (isObject(v) && hasOwn.call(v, k.name)) {
            v = v[k.name];
          } else return undefined;
        }
        return v;
      },
    };
  }
  return {
    locate,
    evaluate: (root, current, currentLoc) => {
      const loc = locate(root, current, currentLoc);
      return loc === undefined ? undefined : loc.value;
    },
  };
}
