/**
 * Edge/port configuration templates (runtime-spec §2.2 step 5, §2.11; components.md §0.3).
 *
 * `compileTemplate` walks a configuration JSON value once and compiles every `{{…}}` it finds;
 * `evaluate` builds a fresh value per hop. String rules:
 * - exactly one expression (whitespace inside the braces allowed) → "pure": the result keeps its
 *   JSON type; on an evaluation error the value is null and `onError` fires;
 * - expressions among other text → interpolated into a string (null → "", numbers as JSON,
 *   objects/arrays as JSON text); a failing expression leaves its `{{…}}` text in place and
 *   `onError` fires;
 * - no `{{` → literal. Object keys are never evaluated.
 *
 * Unlike Go's greedy `^\{\{(.+)\}\}$`, the scan is a proper one: `"{{$.a}}-{{$.b}}"` is two
 * expressions, and `}}` inside a quoted string of an expression does not end it
 * (docs/compatibility.md "Expressions").
 */
import { ExpressionEvalError, ExpressionSyntaxError } from "./errors.ts";
import { type CompiledExpression, compileExpression } from "./evaluate.ts";
import { cloneJson, isObject, type JsonObject, setKey, toText } from "./values.ts";

/** Receives each evaluation error of a template (the runner logs it and adds a span event). */
export type ExpressionErrorHandler = (err: ExpressionEvalError) => void;

/** A configuration compiled once; evaluate it per hop. */
export interface CompiledTemplate {
  /** True when the configuration holds no expression: `evaluate` only copies it. */
  readonly constant: boolean;
  /** Every expression of the configuration, in walk order (for diagnostics). */
  readonly expressions: readonly CompiledExpression[];
  /**
   * Evaluates every expression against the payload and returns a fresh value (new arrays and
   * objects for the configuration's own containers; values read from the payload are shared,
   * not copied). Never throws for an evaluation error: see the module rules.
   *
   * @param payload parsed JSON of the incoming message (`$`)
   * @param onError called once per failing expression, with its configuration field path
   */
  evaluate(payload: unknown, onError?: ExpressionErrorHandler): unknown;
}

type Build = (payload: unknown, onError: ExpressionErrorHandler | undefined) => unknown;

interface Node {
  readonly build: Build;
  readonly constant: boolean;
  /** Snapshot of the value when constant. */
  readonly value: unknown;
}

/** A piece of an interpolated string: literal text, or an expression with its written text. */
type Part = string | { readonly expr: CompiledExpression; readonly raw: string };

/** A `{{…}}` found by {@link scanTemplateString}: offsets of `{{` and just past `}}`. */
interface Found {
  readonly start: number;
  readonly end: number;
  readonly inner: string;
}

/**
 * Finds the `{{…}}` occurrences of a string. The closing `}}` is the first one outside a
 * single- or double-quoted string literal; if quotes never balance, the first `}}` (as Go's
 * non-greedy match) so the expression's own syntax error is reported. `{{}}` is literal text,
 * as Go's `.+` needs one character.
 */
function scanTemplateString(s: string): Found[] {
  const found: Found[] = [];
  const n = s.length;
  let from = 0;
  for (;;) {
    const start = s.indexOf("{{", from);
    if (start < 0) return found;
    let close = -1;
    let quote = "";
    for (let j = start + 2; j < n; j++) {
      const ch = s[j];
      if (quote !== "") {
        if (ch === "\\") j++;
        else if (ch === quote) quote = "";
      } else if (ch === "'" || ch === '"') {
        quote = ch;
      } else if (ch === "}" && s[j + 1] === "}") {
        close = j;
        break;
      }
    }
    if (close < 0) close = s.indexOf("}}", start + 2);
    if (close < 0) return found;
    if (close === start + 2) {
      from = close + 2; // "{{}}" stays literal
      continue;
    }
    found.push({ start, end: close + 2, inner: s.slice(start + 2, close) });
    from = close + 2;
  }
}

function compileOne(inner: string, field: string): CompiledExpression {
  try {
    return compileExpression(inner);
  } catch (err) {
    if (err instanceof ExpressionSyntaxError) throw err.withField(field);
    throw err;
  }
}

function report(onError: ExpressionErrorHandler | undefined, err: unknown, expr: CompiledExpression, field: string): void {
  if (onError === undefined) return;
  onError(err instanceof ExpressionEvalError ? err.withField(field) : new ExpressionEvalError(expr.source, String(err), field));
}

function constantNode(value: unknown): Node {
  if (typeof value === "object" && value !== null) return { build: () => cloneJson(value), constant: true, value };
  return { build: () => value, constant: true, value };
}

function compileString(s: string, field: string, exprs: CompiledExpression[]): Node {
  const found = scanTemplateString(s);
  if (found.length === 0) return constantNode(s);
  const only = found[0]!;
  if (found.length === 1 && only.start === 0 && only.end === s.length) {
    const expr = compileOne(only.inner, field);
    exprs.push(expr);
    return {
      constant: false,
      value: undefined,
      build: (payload, onError) => {
        try {
          return expr.evaluate(payload);
        } catch (err) {
          report(onError, err, expr, field);
          return null;
        }
      },
    };
  }
  const parts: Part[] = [];
  let at = 0;
  for (const f of found) {
    if (f.start > at) parts.push(s.slice(at, f.start));
    const expr = compileOne(f.inner, field);
    exprs.push(expr);
    parts.push({ expr, raw: s.slice(f.start, f.end) });
    at = f.end;
  }
  if (at < s.length) parts.push(s.slice(at));
  return {
    constant: false,
    value: undefined,
    build: (payload, onError) => {
      let out = "";
      for (let i = 0; i < parts.length; i++) {
        const p = parts[i]!;
        if (typeof p === "string") {
          out += p;
          continue;
        }
        try {
          out += toText(p.expr.evaluate(payload));
        } catch (err) {
          report(onError, err, p.expr, field);
          out += p.raw;
        }
      }
      return out;
    },
  };
}

const IDENT = /^[A-Za-z_][A-Za-z0-9_]*$/;

function childField(parent: string, key: string | number): string {
  if (typeof key === "number") return `${parent}[${key}]`;
  if (IDENT.test(key)) return parent === "" ? key : `${parent}.${key}`;
  return `${parent}[${JSON.stringify(key)}]`;
}

function compileNodeAt(value: unknown, field: string, exprs: CompiledExpression[]): Node {
  if (typeof value === "string") return compileString(value, field, exprs);
  if (Array.isArray(value)) {
    const items = value.map((v, i) => compileNodeAt(v, childField(field, i), exprs));
    if (items.every((c) => c.constant)) return constantNode(items.map((c) => c.value));
    const builds = items.map((c) => c.build);
    return {
      constant: false,
      value: undefined,
      build: (payload, onError) => {
        const out = new Array<unknown>(builds.length);
        for (let i = 0; i < builds.length; i++) out[i] = builds[i]!(payload, onError);
        return out;
      },
    };
  }
  if (isObject(value)) {
    const keys = Object.keys(value);
    const items = keys.map((k) => compileNodeAt(value[k], childField(field, k), exprs));
    if (items.every((c) => c.constant)) {
      const snap: JsonObject = {};
      keys.forEach((k, i) => setKey(snap, k, items[i]!.value));
      return constantNode(snap);
    }
    const builds = items.map((c) => c.build);
    const plainKeys = !keys.includes("__proto__");
    return {
      constant: false,
      value: undefined,
      build: (payload, onError) => {
        const out: JsonObject = {};
        for (let i = 0; i < keys.length; i++) {
          const v = builds[i]!(payload, onError);
          if (plainKeys) out[keys[i]!] = v;
          else setKey(out, keys[i]!, v);
        }
        return out;
      },
    };
  }
  return constantNode(value === undefined ? null : value);
}

/**
 * Compiles a configuration value (object, array or scalar) once.
 *
 * @param config the port/edge configuration as parsed JSON; not mutated, and later changes to
 *   it do not affect the compiled template (constant parts are snapshotted)
 * @returns the compiled template
 * @throws ExpressionSyntaxError for the first malformed expression, naming the expression, the
 *   0-based position inside it and the configuration field (`conditions[0].condition`)
 */
export function compileTemplate(config: unknown): CompiledTemplate {
  const exprs: CompiledExpression[] = [];
  const root = compileNodeAt(config, "", exprs);
  const build = root.build;
  return {
    constant: root.constant,
    expressions: exprs,
    evaluate: (payload, onError) => build(payload, onError),
  };
}

/**
 * True when a compiled template contains no expression, so a caller may skip evaluation and
 * reuse one copy of the configuration.
 */
export function isTemplateConstant(compiled: CompiledTemplate): boolean {
  return compiled.constant;
}
