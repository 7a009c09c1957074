/**
 * The executor of Go's text/template (Go 1.26 text/template/exec.go, funcs.go) over the values a
 * Go component's `any` holds when it came from JSON, plus `int` (bigint) and Go values with methods
 * (src/golang/time.ts). Go's rules kept: a missing map key is `<no value>`; a field of null fails
 * `nil pointer evaluating interface {}.x`; truth (empty string, list, map, zero, false, nil);
 * `range` over lists, maps (sorted keys) and ints, with `break`/`continue` and `else`; variables
 * scoped to their block; `and`/`or` short-circuit and return an operand; `eq` refuses to compare
 * an `int` literal with a JSON number (`incompatible types for comparison`); `printf` is Go's fmt;
 * errors read `template: NAME:LINE:COL: executing "NAME" at <NODE>: …`.
 *
 * Limits Go does not have, because a template runs on the module's event loop: output beyond
 * {@link ExecLimits.maxOutputBytes} and execution beyond {@link ExecLimits.maxMillis} fail the
 * call, and `{{template}}` nests at most {@link MAX_TEMPLATE_DEPTH} deep (Go: 100000).
 */
import { TinyError } from "../../core/errors.ts";
import { goSprint, goSprintf, goSprintln, goTypeName, isGoStringer } from "../fmt.ts";
import { compareGoStrings } from "../unicode.ts";
import { utf8Length } from "../unicode.ts";
import { nodeString, type ArgNode, type CommandNode, type ControlNode, type ListNode, type Node, type PipeNode, type Tree } from "./parse.ts";

/** A failed execution; `message` is Go's text. code `TEMPLATE_EXEC`. */
export class TemplateExecError extends TinyError<"TEMPLATE_EXEC"> {
  constructor(message: string) {
    super("TEMPLATE_EXEC", message);
  }
}

/** How deep `{{template}}` calls may nest (Go allows 100000; the JS call stack does not). */
export const MAX_TEMPLATE_DEPTH = 1000;

/** Budgets of one execution. */
export interface ExecLimits {
  /** Output size in UTF-16 code units; default 32 MiB. */
  maxOutputBytes: number;
  /** Wall-clock budget in ms; default 10 000. */
  maxMillis: number;
}

/** Go's invalid `reflect.Value` (a missing map key, nil data): prints `<no value>`. */
export const NO_VALUE: unique symbol = Symbol("no value");
/** A value of interface kind (a map or list element), as Go's reflection sees it. */
export class Iface {
  constructor(readonly v: unknown) {}
}
type Val = unknown;

/** How an argument is converted for a parameter (Go's parameter types of the builtins). */
type Param = "value" | "any" | "string" | "int";
/** A callable: Go's parameter kinds, variadic tail, and the implementation. */
export interface GoFunc {
  params: Param[];
  variadic?: Param;
  /** `callee`: the text of the first argument (what `call` names in its errors). */
  call: (args: Val[], name: string, callee: string) => Val;
}

const elem = (v: Val): Val => (v instanceof Iface ? (v.v === null || v.v === undefined ? NO_VALUE : v.v) : v);
const typeOf = (v: Val): string => (v instanceof Iface ? "interface {}" : v === NO_VALUE ? "<invalid reflect.Value>" : goTypeName(v));
const isObj = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v) && !isGoStringer(v) && !(v instanceof Iface);

/** Go `isTrue` of an already unwrapped value; `undefined` when Go cannot tell. */
function truth(v: Val): boolean {
  const x = elem(v);
  if (x === NO_VALUE || x === null || x === undefined) return false;
  if (typeof x === "boolean") return x;
  if (typeof x === "number") return x !== 0;
  if (typeof x === "bigint") return x !== 0n;
  if (typeof x === "string") return x.length > 0;
  if (Array.isArray(x)) return x.length > 0;
  if (isObj(x)) return Object.keys(x).length > 0;
  return true;
}

/** Go's `%v` of a reflect.Value in error texts. */
function show(v: Val): string {
  const x = elem(v);
  return x === NO_VALUE ? "<invalid reflect.Value>" : goSprint(x);
}

class Unwind {
  constructor(readonly kind: "break" | "continue") {}
}

/** Executes trees of one template set. */
export class Executor {
  #out: string[] = [];
  #size = 0;
  #deadline: number;
  #vars: { name: string; value: Val }[] = [];
  #node: Node | undefined;
  #tmplName: string;
  #depth = 0;
  #steps = 0;

  constructor(
    private readonly lookup: (name: string) => Tree | undefined,
    private readonly funcs: ReadonlyMap<string, GoFunc>,
    private readonly limits: ExecLimits,
    tmplName: string,
  ) {
    this.#tmplName = tmplName;
    this.#deadline = Date.now() + limits.maxMillis;
  }

  /** Runs `tree` with `data` as dot and `$`. @throws TemplateExecError */
  run(tree: Tree, data: unknown): string {
    const dot = data === null || data === undefined ? NO_VALUE : data;
    this.#vars = [{ name: "$", value: dot }];
    this.walk(dot, tree.root);
    return this.#out.join("");
  }

  private errorf(msg: string): never {
    const name = this.#tmplName;
    const n = this.#node;
    if (!n) throw new TemplateExecError(`template: ${name}: ${msg}`);
    const text = n.tree.text.slice(0, n.pos);
    const nl = text.lastIndexOf("\n");
    const col = nl < 0 ? utf8Length(text) : utf8Length(text.slice(nl + 1));
    const line = 1 + (text.match(/\n/g)?.length ?? 0);
    throw new TemplateExecError(`template: ${n.tree.parseName}:${line}:${col}: executing ${JSON.stringify(name)} at <${nodeString(n)}>: ${msg}`);
  }

  private at(n: Node): void {
    this.#node = n;
  }

  private write(s: string): void {
    this.#size += s.length;
    if (this.#size > this.limits.maxOutputBytes) this.errorf(`output exceeds ${this.limits.maxOutputBytes} characters`);
    this.#out.push(s);
  }

  private tick(): void {
    if ((++this.#steps & 1023) === 0 && Date.now() > this.#deadline) this.errorf(`execution exceeded ${this.limits.maxMillis} ms`);
  }

  private walk(dot: Val, node: Node): void {
    this.tick();
    this.at(node);
    switch (node.t) {
      case "action": {
        const val = this.evalPipeline(dot, node.pipe);
        if (node.pipe.decl.length === 0) this.printValue(node, val);
        return;
      }
      case "break":
      case "continue":
        throw new Unwind(node.t);
      case "if":
      case "with": {
        const mark = this.#vars.length;
        const val = this.evalPipeline(dot, node.pipe);
        if (truth(val)) this.walk(node.t === "with" ? val : dot, node.list);
        else if (node.elseList) this.walk(dot, node.elseList);
        this.#vars.length = mark;
        return;
      }
      case "list":
        for (const n of node.nodes) this.walk(dot, n);
        return;
      case "range":
        return this.walkRange(dot, node);
      case "template":
        return this.walkTemplate(dot, node);
      case "text":
        this.write(node.text);
        return;
      default:
        this.errorf(`unknown node: ${nodeString(node)}`);
    }
  }

  private walkRange(dot: Val, r: ControlNode): void {
    const mark = this.#vars.length;
    const val = elem(this.evalPipeline(dot, r.pipe));
    const decl = r.pipe.decl;
    const one = (index: Val, value: Val): boolean => {
      // Go setTopVar: the last declared variable takes the element, the one before it the index.
      const top = mark + decl.length - 1;
      if (decl.length > 0) {
        if (r.pipe.isAssign) this.setVar(decl[0]!, decl.length > 1 ? index : value);
        else this.#vars[top]!.value = value;
      }
      if (decl.length > 1) {
        if (r.pipe.isAssign) this.setVar(decl[1]!, value);
        else this.#vars[top - 1]!.value = index;
      }
      const inner = this.#vars.length;
      try {
        this.walk(value, r.list);
      } catch (e) {
        if (!(e instanceof Unwind)) throw e;
        if (e.kind === "break") return false;
      } finally {
        this.#vars.length = inner;
      }
      return true;
    };
    let ran = false;
    if (typeof val === "bigint") {
      if (decl.length > 1) this.errorf(`can't use ${show(val)} to iterate over more than one variable`);
      for (let i = 0n; i < val; i++) {
        ran = true;
        if (!one(NO_VALUE, i)) break;
      }
    } else if (Array.isArray(val)) {
      for (let i = 0; i < val.length; i++) {
        ran = true;
        if (!one(BigInt(i), new Iface(val[i]))) break;
      }
    } else if (isObj(val)) {
      for (const k of Object.keys(val).sort(compareGoStrings)) {
        ran = true;
        if (!one(k, new Iface(val[k]))) break;
      }
    } else if (val !== NO_VALUE) {
      this.errorf(`range can't iterate over ${show(val)}`);
    }
    this.#vars.length = mark;
    if (!ran && r.elseList) this.walk(dot, r.elseList);
  }

  private walkTemplate(dot: Val, t: Extract<Node, { t: "template" }>): void {
    this.at(t);
    const tree = this.lookup(t.name);
    if (!tree) this.errorf(`template ${JSON.stringify(t.name)} not defined`);
    if (this.#depth >= MAX_TEMPLATE_DEPTH) this.errorf(`exceeded maximum template depth (${MAX_TEMPLATE_DEPTH})`);
    const newDot = t.pipe ? this.evalPipeline(dot, t.pipe) : NO_VALUE;
    const saved = { vars: this.#vars, name: this.#tmplName };
    this.#vars = [{ name: "$", value: newDot }];
    this.#tmplName = t.name;
    this.#depth++;
    try {
      this.walk(newDot, tree!.root);
    } finally {
      this.#depth--;
      this.#vars = saved.vars;
      this.#tmplName = saved.name;
    }
  }

  private setVar(name: string, value: Val): void {
    for (let i = this.#vars.length - 1; i >= 0; i--) {
      if (this.#vars[i]!.name === name) {
        this.#vars[i]!.value = value;
        return;
      }
    }
    this.errorf(`undefined variable: ${name}`);
  }

  private varValue(name: string): Val {
    for (let i = this.#vars.length - 1; i >= 0; i--) if (this.#vars[i]!.name === name) return this.#vars[i]!.value;
    return this.errorf(`undefined variable: ${name}`);
  }

  private evalPipeline(dot: Val, pipe: PipeNode): Val {
    this.at(pipe);
    let value: Val = MISSING;
    for (const cmd of pipe.cmds) {
      value = this.evalCommand(dot, cmd, value);
      value = elem(value); // an interface value becomes what it holds (nil: no value)
    }
    for (const name of pipe.decl) {
      if (pipe.isAssign) this.setVar(name, value);
      else this.#vars.push({ name, value });
    }
    return value;
  }

  private notAFunction(args: ArgNode[], final: Val): void {
    if (args.length > 1 || final !== MISSING) this.errorf(`can't give argument to non-function ${nodeString(args[0]!)}`);
  }

  private evalCommand(dot: Val, cmd: CommandNode, final: Val): Val {
    const first = cmd.args[0]!;
    switch (first.t) {
      case "field":
        this.at(first);
        return this.evalFieldChain(dot, dot, first, first.ident, cmd.args, final);
      case "chain":
        return this.evalChain(dot, first, cmd.args, final);
      case "identifier":
        return this.evalFunction(dot, first, cmd, cmd.args, final);
      case "pipe":
        this.notAFunction(cmd.args, final);
        return this.evalPipeline(dot, first);
      case "variable":
        return this.evalVariable(dot, first, cmd.args, final);
    }
    this.at(first);
    this.notAFunction(cmd.args, final);
    switch (first.t) {
      case "bool":
        return first.value;
      case "dot":
        return dot;
      case "nil":
        return this.errorf("nil is not a command");
      case "number":
        return this.idealConstant(first);
      case "string":
        return first.text;
    }
  }

  private idealConstant(n: Extract<ArgNode, { t: "number" }>): Val {
    this.at(n);
    if (n.isFloat && !/^[+-]?0[xX]/.test(n.text)) return n.float!;
    if (n.int !== undefined) {
      if (n.int >= 2n ** 63n || n.int < -(2n ** 63n)) this.errorf(`${n.text} overflows int`);
      return n.int;
    }
    return n.float!;
  }

  private evalChain(dot: Val, chain: Extract<ArgNode, { t: "chain" }>, args: ArgNode[], final: Val): Val {
    this.at(chain);
    if (chain.node.t === "nil") this.errorf(`indirection through explicit nil in ${nodeString(chain)}`);
    const pipe = this.evalArg(dot, "value", chain.node);
    return this.evalFieldChain(dot, pipe, chain, chain.field, args, final);
  }

  private evalVariable(dot: Val, v: Extract<ArgNode, { t: "variable" }>, args: ArgNode[], final: Val): Val {
    this.at(v);
    const value = this.varValue(v.ident[0]!);
    if (v.ident.length === 1) {
      this.notAFunction(args, final);
      return value;
    }
    return this.evalFieldChain(dot, value, v, v.ident.slice(1), args, final);
  }

  private evalFieldChain(dot: Val, receiver: Val, node: Node, ident: string[], args: ArgNode[], final: Val): Val {
    let r = receiver;
    for (let i = 0; i < ident.length - 1; i++) r = this.evalField(dot, ident[i]!, node, [], MISSING, r);
    return this.evalField(dot, ident[ident.length - 1]!, node, args, final, r);
  }

  private evalFunction(dot: Val, node: Extract<ArgNode, { t: "identifier" }>, cmd: CommandNode, args: ArgNode[], final: Val): Val {
    this.at(node);
    const fn = this.funcs.get(node.ident);
    if (!fn) this.errorf(`${JSON.stringify(node.ident)} is not a defined function`);
    return this.evalCall(dot, fn!, cmd, node.ident, args, final);
  }

  private evalField(dot: Val, fieldName: string, node: Node, args: ArgNode[], final: Val, receiver: Val): Val {
    if (receiver === NO_VALUE) return NO_VALUE;
    const typ = typeOf(receiver);
    const r = receiver instanceof Iface ? receiver.v : receiver;
    if (receiver instanceof Iface && (r === null || r === undefined)) this.errorf(`nil pointer evaluating ${typ}.${fieldName}`);
    const method = methodOf(r, fieldName);
    if (method) return this.evalCall(dot, method, node, fieldName, args, final);
    const hasArgs = args.length > 1 || final !== MISSING;
    if (isObj(r)) {
      if (hasArgs) this.errorf(`${fieldName} is not a method but has arguments`);
      return Object.hasOwn(r, fieldName) ? new Iface(r[fieldName]) : NO_VALUE;
    }
    return this.errorf(`can't evaluate field ${fieldName} in type ${typ}`);
  }

  private evalCall(dot: Val, fn: GoFunc, node: Node, name: string, argNodes: ArgNode[], final: Val): Val {
    const args = argNodes.slice(1);
    const numIn = args.length + (final !== MISSING ? 1 : 0);
    const numFixed = fn.params.length;
    if (fn.variadic !== undefined) {
      if (numIn < numFixed) this.errorf(`wrong number of args for ${name}: want at least ${numFixed} got ${args.length}`);
    } else if (numIn !== numFixed) this.errorf(`wrong number of args for ${name}: want ${numFixed} got ${numIn}`);
    if (name === "and" || name === "or") {
      let v: Val = NO_VALUE;
      for (const a of args) {
        v = this.evalArg(dot, "value", a);
        if (truth(v) === (name === "or")) return v;
      }
      if (final !== MISSING) v = final;
      return v;
    }
    const argv: Val[] = [];
    let i = 0;
    for (; i < numFixed && i < args.length; i++) argv.push(this.evalArg(dot, fn.params[i]!, args[i]!));
    for (; i < args.length; i++) argv.push(this.evalArg(dot, fn.variadic!, args[i]!));
    if (final !== MISSING) {
      const kind = argv.length < numFixed ? fn.params[argv.length]! : (fn.variadic ?? fn.params[fn.params.length - 1]!);
      argv.push(this.validateType(final, kind));
    }
    try {
      return fn.call(argv, name, args.length > 0 ? nodeString(args[0]!) : show(final));
    } catch (err) {
      if (err instanceof TemplateExecError || err instanceof Unwind) throw err;
      this.at(node);
      return this.errorf(`error calling ${name}: ${(err as Error).message}`);
    }
  }

  private validateType(value: Val, kind: Param): Val {
    if (value === NO_VALUE) {
      if (kind === "any") return null;
      if (kind === "value") return NO_VALUE;
      return this.errorf(`invalid value; expected ${kind}`);
    }
    if (kind === "value") return value;
    if (kind === "any") return value instanceof Iface ? (value.v ?? null) : value;
    let v = value;
    if (v instanceof Iface) {
      if (v.v === null || v.v === undefined) return this.errorf(`wrong type for value; expected ${kind}; got interface {}`);
      v = v.v;
    }
    if (kind === "string" && typeof v === "string") return v;
    if (kind === "int" && typeof v === "bigint") return v;
    return this.errorf(`wrong type for value; expected ${kind}; got ${typeOf(v)}`);
  }

  private evalArg(dot: Val, kind: Param, n: ArgNode): Val {
    this.at(n);
    switch (n.t) {
      case "dot":
        return this.validateType(dot, kind);
      case "nil":
        if (kind === "any") return null;
        if (kind === "value") return NO_VALUE;
        return this.errorf(`cannot assign nil to ${kind}`);
      case "field":
        return this.validateType(this.evalFieldChain(dot, dot, n, n.ident, [n], MISSING), kind);
      case "variable":
        return this.validateType(this.evalVariable(dot, n, [], MISSING), kind);
      case "pipe":
        return this.validateType(this.evalPipeline(dot, n), kind);
      case "identifier": {
        const fn = this.funcs.get(n.ident);
        if (!fn) return this.errorf(`${JSON.stringify(n.ident)} is not a defined function`);
        return this.validateType(this.evalCall(dot, fn, n, n.ident, [], MISSING), kind);
      }
      case "chain":
        return this.validateType(this.evalChain(dot, n, [], MISSING), kind);
    }
    switch (kind) {
      case "string":
        if (n.t === "string") return n.text;
        return this.errorf(`expected string; found ${nodeString(n)}`);
      case "int":
        if (n.t === "number" && n.int !== undefined && !n.isFloat) return n.int;
        return this.errorf(`expected integer; found ${nodeString(n)}`);
      default:
        if (n.t === "bool") return n.value;
        if (n.t === "string") return n.text;
        if (n.t === "number") return this.idealConstant(n);
        return this.errorf(`can't handle assignment of ${nodeString(n)} to empty interface argument`);
    }
  }

  private printValue(n: Node, v: Val): void {
    this.at(n);
    const x = v instanceof Iface ? v.v : v;
    this.write(x === NO_VALUE ? "<no value>" : goSprint(x ?? null));
  }
}

/** The "no final value" marker of a pipeline's first command. */
const MISSING: unique symbol = Symbol("missing");

/** Methods of the Go values a template can reach (time.Time, time.Month, time.Weekday). */
function methodOf(receiver: unknown, name: string): GoFunc | undefined {
  if (!isGoStringer(receiver)) return undefined;
  if (name === "String") return { params: [], call: () => receiver.goString() };
  const m = (receiver as unknown as Record<string, unknown>)[name];
  if (typeof m !== "function" || name === "constructor" || name.startsWith("go") || !/^[A-Z]/.test(name)) return undefined;
  const params: Param[] = name === "Format" ? ["string"] : name === "AddDate" ? ["int", "int", "int"] : [];
  return { params, call: (args) => (m as (...a: unknown[]) => unknown).apply(receiver, args) };
}

// ---- builtins (Go text/template funcs.go) ------------------------------------------------------

function indirectValue(v: Val): Val {
  return elem(v);
}

function basicKind(v: Val): string | undefined {
  if (typeof v === "boolean") return "bool";
  if (typeof v === "bigint") return "int";
  if (typeof v === "number") return "float";
  if (typeof v === "string") return "string";
  if (isGoStringer(v) && v.goInt !== undefined) return "int";
  return undefined;
}

const asNumber = (v: Val): number | bigint => (isGoStringer(v) && v.goInt !== undefined ? v.goInt : (v as number | bigint));

function eq(arg1: Val, ...rest: Val[]): boolean {
  const a = indirectValue(arg1);
  if (rest.length === 0) throw new Error("missing argument for comparison");
  const k1 = basicKind(a);
  for (const raw of rest) {
    const b = indirectValue(raw);
    const k2 = basicKind(b);
    let same = false;
    if (k1 !== k2) {
      if (a !== NO_VALUE && b !== NO_VALUE) throw new Error(`incompatible types for comparison: ${typeOf(a)} and ${typeOf(b)}`);
    } else if (k1 !== undefined) {
      same = asNumber(a) === asNumber(b) || a === b;
    } else {
      const nilA = a === NO_VALUE || a === null;
      const nilB = b === NO_VALUE || b === null;
      if (nilA || nilB) same = nilA === nilB;
      else throw new Error(`non-comparable type ${show(b)}: ${typeOf(b)}`);
    }
    if (same) return true;
  }
  return false;
}

function lt(arg1: Val, arg2: Val): boolean {
  const a = indirectValue(arg1);
  const k1 = basicKind(a);
  if (k1 === undefined) throw new Error("invalid type for comparison");
  const b = indirectValue(arg2);
  const k2 = basicKind(b);
  if (k2 === undefined) throw new Error("invalid type for comparison");
  if (k1 !== k2) throw new Error(`incompatible types for comparison: ${typeOf(a)} and ${typeOf(b)}`);
  if (k1 === "bool") throw new Error("invalid type for comparison");
  if (k1 === "string") return compareGoStrings(a as string, b as string) < 0;
  return asNumber(a) < asNumber(b);
}

/** Go `le`: lt, then eq. */
function le(a: Val, b: Val): boolean {
  return lt(a, b) || eq(a, b);
}

function indexArg(index: Val, cap: number): number {
  const i = indirectValue(index);
  if (i === NO_VALUE || i === null) throw new Error("cannot index slice/array with nil");
  if (typeof i !== "bigint") throw new Error(`cannot index slice/array with type ${typeOf(i)}`);
  if (i < 0n || i > BigInt(cap)) throw new Error(`index out of range: ${i}`);
  return Number(i);
}

function index(item: Val, ...indexes: Val[]): Val {
  let v = indirectValue(item);
  if (v === NO_VALUE) throw new Error("index of untyped nil");
  for (const raw of indexes) {
    v = v instanceof Iface ? indirectValue(v) : v;
    if (v === NO_VALUE || v === null) throw new Error("index of nil pointer");
    if (Array.isArray(v) || typeof v === "string") {
      const len = typeof v === "string" ? utf8Length(v) : v.length;
      const x = indexArg(raw, len);
      if (x >= len) throw new Error(`index out of range: ${x}`);
      v = typeof v === "string" ? BigInt(new TextEncoder().encode(v)[x]!) : new Iface(v[x]);
    } else if (isObj(v)) {
      const k = indirectValue(raw);
      if (typeof k !== "string") throw new Error(k === NO_VALUE ? "value is nil; should be of type string" : `value has type ${typeOf(k)}; should be string`);
      v = new Iface(Object.hasOwn(v, k) ? v[k] : null);
    } else throw new Error(`can't index item of type ${typeOf(v)}`);
  }
  return v;
}

function slice(item: Val, ...indexes: Val[]): Val {
  const v = indirectValue(item);
  if (v === NO_VALUE) throw new Error("slice of untyped nil");
  if (indexes.length > 3) throw new Error(`too many slice indexes: ${indexes.length}`);
  let cap: number;
  if (typeof v === "string") {
    if (indexes.length === 3) throw new Error("cannot 3-index slice a string");
    cap = utf8Length(v);
  } else if (Array.isArray(v)) cap = v.length;
  else throw new Error(`can't slice item of type ${typeOf(v)}`);
  const idx = [0, cap];
  indexes.forEach((ix, k) => (idx[k] = indexArg(ix, cap)));
  if (idx[0]! > idx[1]!) throw new Error(`invalid slice index: ${idx[0]} > ${idx[1]}`);
  if (indexes.length === 3 && idx[1]! > idx[2]!) throw new Error(`invalid slice index: ${idx[1]} > ${idx[2]}`);
  if (typeof v === "string") return new TextDecoder().decode(new TextEncoder().encode(v).subarray(idx[0], idx[1]));
  return v.slice(idx[0], idx[1]);
}

function length(item: Val): bigint {
  const v = indirectValue(item);
  if (typeof v === "string") return BigInt(utf8Length(v));
  if (Array.isArray(v)) return BigInt(v.length);
  if (isObj(v)) return BigInt(Object.keys(v).length);
  if (v === NO_VALUE) throw new Error("len of nil pointer");
  throw new Error(`len of type ${typeOf(v)}`);
}

/** Go `evalArgs`: one string argument as it is, otherwise `fmt.Sprint` of them all (nil as `<no value>`). */
function evalArgs(args: Val[]): string {
  if (args.length === 1 && typeof args[0] === "string") return args[0];
  return goSprint(...args.map((a) => (a === null || a === undefined ? "<no value>" : a)));
}

const HTML_ESCAPES: Record<string, string> = { "\0": "\uFFFD", '"': "&#34;", "'": "&#39;", "&": "&amp;", "<": "&lt;", ">": "&gt;" };

/** Go `template.HTMLEscapeString`. */
export function htmlEscape(s: string): string {
  return s.replace(/[\0"'&<>]/g, (c) => HTML_ESCAPES[c]!);
}

/** Go `template.JSEscapeString`. */
export function jsEscape(s: string): string {
  let out = "";
  for (const ch of s) {
    const c = ch.codePointAt(0)!;
    if (ch === "\\") out += "\\\\";
    else if (ch === "'") out += "\\'";
    else if (ch === '"') out += '\\"';
    else if (ch === "<") out += "\\u003C";
    else if (ch === ">") out += "\\u003E";
    else if (ch === "&") out += "\\u0026";
    else if (ch === "=") out += "\\u003D";
    else if (ch === "\n") out += "\\n";
    else if (ch === "\r") out += "\\r";
    else if (ch === "\t") out += "\\t";
    else if (c < 0x20) out += "\\u" + c.toString(16).toUpperCase().padStart(4, "0");
    else if (c >= 0x80 && !/^[\p{L}\p{M}\p{N}\p{P}\p{S} ]$/u.test(ch)) out += "\\u" + c.toString(16).toUpperCase().padStart(4, "0");
    else out += ch;
  }
  return out;
}

/** Go `url.QueryEscape`. */
function queryEscape(s: string): string {
  let out = "";
  for (const b of new TextEncoder().encode(s)) {
    const c = String.fromCharCode(b);
    if (/[A-Za-z0-9\-_.~]/.test(c)) out += c;
    else if (c === " ") out += "+";
    else out += "%" + b.toString(16).toUpperCase().padStart(2, "0");
  }
  return out;
}

/** text/template's predefined functions with Go's parameter kinds. */
export const BUILTINS: ReadonlyMap<string, GoFunc> = new Map<string, GoFunc>([
  ["and", { params: ["value"], variadic: "value", call: () => NO_VALUE }],
  ["or", { params: ["value"], variadic: "value", call: () => NO_VALUE }],
  ["not", { params: ["value"], call: ([a]) => !truth(a) }],
  ["len", { params: ["value"], call: ([a]) => length(a) }],
  ["index", { params: ["value"], variadic: "value", call: ([a, ...rest]) => index(a, ...rest) }],
  ["slice", { params: ["value"], variadic: "value", call: ([a, ...rest]) => slice(a, ...rest) }],
  ["print", { params: [], variadic: "any", call: (args) => goSprint(...args) }],
  ["printf", { params: ["string"], variadic: "any", call: ([f, ...args]) => goSprintf(f as string, ...args) }],
  ["println", { params: [], variadic: "any", call: (args) => goSprintln(...args) }],
  ["html", { params: [], variadic: "any", call: (args) => htmlEscape(evalArgs(args)) }],
  ["js", { params: [], variadic: "any", call: (args) => jsEscape(evalArgs(args)) }],
  ["urlquery", { params: [], variadic: "any", call: (args) => queryEscape(evalArgs(args)) }],
  ["eq", { params: ["value"], variadic: "value", call: ([a, ...rest]) => eq(a, ...rest) }],
  ["ne", { params: ["value", "value"], call: ([a, b]) => !eq(a, b) }],
  ["lt", { params: ["value", "value"], call: ([a, b]) => lt(a, b) }],
  ["le", { params: ["value", "value"], call: ([a, b]) => le(a, b) }],
  ["gt", { params: ["value", "value"], call: ([a, b]) => !le(a, b) }],
  ["ge", { params: ["value", "value"], call: ([a, b]) => !lt(a, b) }],
  [
    "call",
    {
      params: ["value"],
      variadic: "value",
      call: ([fn], _name, callee) => {
        const f = indirectValue(fn);
        if (f === NO_VALUE) throw new Error("call of nil");
        throw new Error(`non-function ${callee} of type ${typeOf(f)}`); // JSON data holds no functions
      },
    },
  ],
]);

export type { ListNode };
