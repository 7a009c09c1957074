/**
 * JSONPath evaluation over plain JSON values (runtime-spec §2.11, ajson jsonpath.go semantics).
 *
 * Result rule, as ajson `eval` (observable in Go, so followed): no match → null (not an error);
 * exactly one match → that value; several → an array of the matches. This holds for wildcards,
 * filters and recursive descent too: `$.items[*]` over a one-element array is the element itself.
 * Object members are visited in sorted key order, as ajson `Inheritors` does.
 *
 * Paths are compiled once into closures; a definite path (`$.a.b[0]`) walks without allocating.
 */
import type { Expr, Segment } from "./ast.ts";
import { EvalFailure } from "./errors.ts";
import { isObject, type JsonObject, sortedKeys, truthy } from "./values.ts";

/** A compiled expression: evaluated with the payload root (`$`) and the current node (`@`). */
export type Evaluator = (root: unknown, current: unknown) => unknown;

/** Compiles a nested expression (filter/script bodies); supplied by evaluate.ts. */
export type CompileNested = (expr: Expr) => Evaluator;

type Step = (node: unknown, out: unknown[], root: unknown) => void;

const hasOwn = Object.prototype.hasOwnProperty;

/** A member name compiled once: whether it collides with Object.prototype, and its array index form. */
interface Key {
  readonly name: string;
  /** `name in Object.prototype` (e.g. `constructor`): needs an own-property check. */
  readonly inherited: boolean;
  /** The name as an array index (`$.items.0`), or -1. */
  readonly index: number;
}

function compileKey(name: string): Key {
  return { name, inherited: name in Object.prototype, index: /^\d+$/.test(name) ? Number(name) : -1 };
}

/** Reads an own member, array `length`, or an array element for a numeric name; undefined when absent. */
function member(node: unknown, key: Key): unknown {
  if (isObject(node)) {
    if (key.inherited && !hasOwn.call(node, key.name)) return undefined; // never `constructor`, `__proto__`…
    return node[key.name];
  }
  if (Array.isArray(node)) {
    if (key.name === "length") return node.length;
    if (key.index >= 0) return node[key.index];
  }
  return undefined;
}

function element(node: unknown, index: number): unknown {
  if (!Array.isArray(node)) return undefined;
  return node[index < 0 ? node.length + index : index];
}

/** Children in ajson order: array elements, or object values by sorted key. */
function children(node: unknown): readonly unknown[] {
  if (Array.isArray(node)) return node;
  if (isObject(node)) {
    const obj: JsonObject = node;
    return sortedKeys(obj).map((k) => obj[k]);
  }
  return [];
}

function push(out: unknown[], value: unknown): void {
  if (value !== undefined) out.push(value);
}

function sliceIndices(length: number, start: number | undefined, end: number | undefined, step: number | undefined): number[] {
  const s = step ?? 1;
  const norm = (i: number): number => (i < 0 ? Math.max(length + i, s > 0 ? 0 : -1) : Math.min(i, s > 0 ? length : length - 1));
  const out: number[] = [];
  if (s > 0) {
    const from = start === undefined ? 0 : norm(start);
    const to = end === undefined ? length : norm(end);
    for (let i = from; i < to; i += s) out.push(i);
  } else {
    const from = start === undefined ? length - 1 : norm(start);
    const to = end === undefined ? -1 : norm(end);
    for (let i = from; i > to; i += s) out.push(i);
  }
  return out;
}

function compileStep(seg: Segment, nested: CompileNested): Step {
  switch (seg.kind) {
    case "child": {
      const key = compileKey(seg.name);
      return (node, out) => push(out, member(node, key));
    }
    case "index": {
      const index = seg.index;
      return (node, out) => push(out, element(node, index));
    }
    case "wildcard":
      return (node, out) => {
        for (const c of children(node)) out.push(c);
      };
    case "slice": {
      const { start, end, step } = seg;
      return (node, out) => {
        if (!Array.isArray(node)) return;
        for (const i of sliceIndices(node.length, start, end, step)) push(out, node[i]);
      };
    }
    case "union": {
      const keys = seg.keys.map((k) => (typeof k === "number" ? k : compileKey(k)));
      return (node, out) => {
        for (const k of keys) push(out, typeof k === "number" ? element(node, k) : member(node, k));
      };
    }
    case "filter": {
      const test = nested(seg.expr);
      return (node, out, root) => {
        for (const c of children(node)) {
          let keep = false;
          try {
            keep = truthy(test(root, c));
          } catch (err) {
            if (!(err instanceof EvalFailure)) throw err;
            // an element the filter cannot be applied to does not match
          }
          if (keep) out.push(c);
        }
      };
    }
    case "script": {
      const pick = nested(seg.expr);
      return (node, out, root) => {
        const key = pick(root, node);
        if (typeof key === "number" && Number.isInteger(key)) push(out, element(node, key));
        else if (typeof key === "string") push(out, member(node, compileKey(key)));
      };
    }
    case "descend": {
      const next = compileStep(seg.next, nested);
      const walk = (node: unknown, out: unknown[], root: unknown): void => {
        next(node, out, root);
        for (const c of children(node)) if (typeof c === "object" && c !== null) walk(c, out, root);
      };
      return walk;
    }
  }
}

/** Compiles a path whose every step selects at most one value (`.a`, `['a']`, `[0]`). */
function compileDefinite(root: "$" | "@", segments: readonly Segment[]): Evaluator {
  const steps = segments.map((s) => (s.kind === "child" ? compileKey(s.name) : (s as { index: number }).index));
  const fromRoot = root === "$";
  if (steps.length === 0) return fromRoot ? (r) => r ?? null : (_r, c) => c ?? null;
  return (r, c) => {
    let node: unknown = fromRoot ? r : c;
    for (let i = 0; i < steps.length; i++) {
      const s = steps[i]!;
      node = typeof s === "number" ? element(node, s) : member(node, s);
      if (node === undefined) return null;
    }
    return node;
  };
}

/**
 * Compiles a JSONPath (root `$` = payload, `@` = current node) into an evaluator returning null,
 * the single match, or an array of matches.
 *
 * @param root `$` or `@`
 * @param segments the parsed steps
 * @param nested compiles filter/script bodies
 */
export function compilePath(root: "$" | "@", segments: readonly Segment[], nested: CompileNested): Evaluator {
  if (segments.every((s) => s.kind === "child" || s.kind === "index")) return compileDefinite(root, segments);
  const steps = segments.map((s) => compileStep(s, nested));
  const fromRoot = root === "$";
  return (r, c) => {
    let nodes: unknown[] = [fromRoot ? r : c];
    for (const step of steps) {
      const next: unknown[] = [];
      for (const n of nodes) step(n, next, r);
      if (next.length === 0) return null;
      nodes = next;
    }
    return nodes.length === 1 ? nodes[0] ?? null : nodes;
  };
}
