/**
 * Edge/port configuration templates (runtime-spec §2.2 step 5, §2.11; the SDK's
 * pkg/evaluator/evaluator.go). `compileTemplate` walks a configuration JSON value once and
 * compiles every `{{…}}` it finds; `evaluate` builds a fresh value per hop. String rules, as Go:
 *
 * - a string that is `{{…}}` as a whole (Go `^\{\{(.+)\}\}$`: nothing outside the braces, no
 *   newline inside) is "pure": the expression is everything between the outer braces, trimmed,
 *   and the result keeps its JSON type; on an error the value is null and `onError` fires;
 * - otherwise each `{{…}}` (Go `\{\{(.+?)\}\}`: the nearest `}}`, at least one character, no
 *   newline) is interpolated: null → "", a failing expression leaves its `{{…}}` text in place
 *   and `onError` fires;
 * - no `{{…}}` → literal. Object keys are never evaluated.
 *
 * One deliberate difference (docs/compatibility.md): a whole-string `{{a}}…{{b}}` whose outer
 * text is no valid expression, but which holds several `{{…}}`, is interpolated here; Go takes it
 * as one broken expression and yields null. Interpolated values print as JSON (numbers `1000000`,
 * objects `{"k":1}`), not Go's `%v` (`1e+06`, `map[k:1]`).
 *
 * A `{{…}}` that does not compile fails the configuration in strict mode (`compileTemplate`
 * throws); in tolerant mode — what the runner uses — it behaves like an expression failing on
 * every hop (null, or its text kept), as Go, and is listed in `syntaxErrors`.
 */
import { ExpressionEvalError, ExpressionSyntaxError, NonFiniteNumberError } from "./errors.ts";
import { type CompiledExpression, compileBare } from "./evaluate.ts";
import { escapeCount, goTrimSpace, joinedText, toValidText } from "../../golang/string.ts";
import { cloneJson, isObject, type JsonObject, setKey, toText } from "./values.ts";

/** Receives each failing expression of a template per hop (the runner logs it and adds a span event). */
export type ExpressionErrorHandler = (err: ExpressionEvalError | ExpressionSyntaxError) => void;

/** How {@link compileTemplate} treats a `{{…}}` that does not compile. */
export interface TemplateOptions {
  /**
   * false (default): throw its ExpressionSyntaxError. true: keep going, as Go — that field
   * evaluates to null (or keeps its text inside a string) and the error is reported on every
   * evaluation and listed in `syntaxErrors`.
   */
  readonly tolerant?: boolean;
  /**
   * True for a field (named as errors name it, `templates[0].content`) whose string is text of the
   * component's own template language: kept as written, never read as an expression.
   */
  readonly verbatim?: (field: string) => boolean;
}

/** A configuration compiled once; evaluate it per hop. */
export interface CompiledTemplate {
  /** True when the configuration holds no expression: `evaluate` only copies it. */
  readonly constant: boolean;
  /** Every expression that compiled, in walk order (for diagnostics). */
  readonly expressions: readonly CompiledExpression[];
  /** The expressions that did not compile (tolerant mode), each naming its field. */
  readonly syntaxErrors: readonly ExpressionSyntaxError[];
  /**
   * A number in the configuration itself that JSON cannot carry (`1e400` decodes as Infinity):
   * Go fails every hop through this configuration. Undefined when there is none.
   */
  readonly unreadableConstant: string | undefined;
  /**
   * Evaluates every expression against the payload and returns a fresh value (new arrays and
   * objects for the configuration's own containers; values read from the payload are shared,
   * not copied). Never throws for an expression error: see the module rules.
   *
   * @throws NonFiniteNumberError when a whole-string expression yields NaN or ±Infinity
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
type Part = string | { readonly expr: CompiledExpression | ExpressionSyntaxError; readonly raw: string };

/** A `{{…}}` found by Go's non-greedy rule: offsets of `{{` and just past `}}`, and the inner text. */
interface Found {
  readonly start: number;
  readonly end: number;
  readonly inner: string;
}

/** Go `\{\{(.+?)\}\}` occurrences, left to right, not overlapping. */
function scanTemplateString(s: string): Found[] {
  const found: Found[] = [];
  const anyNewline = s.includes("\n");
  let from = 0;
  for (;;) {
    const start = s.indexOf("{{", from);
    if (start < 0) return found;
    const close = s.indexOf("}}", start + 3);
    if (close < 0) return found;
    const newline = anyNewline ? s.indexOf("\n", start + 2) : -1;
    if (newline >= 0 && newline < close) {
      from = start + 1; // `.` does not cross a newline: try the next start
      continue;
    }
    found.push({ start, end: close + 2, inner: s.slice(start + 2, close) });
    from = close + 2;
  }
}

/** Go `^\{\{(.+)\}\}$`: the inner text of a whole-string expression, or undefined. */
function pureInner(s: string): string | undefined {
  if (s.length < 5 || !s.startsWith("{{") || !s.endsWith("}}")) return undefined;
  const inner = s.slice(2, -2);
  return inner.includes("\n") ? undefined : inner;
}

class TemplateCompiler {
  readonly expressions: CompiledExpression[] = [];
  readonly syntaxErrors: ExpressionSyntaxError[] = [];
  unreadableConstant: string | undefined;

  constructor(
    private readonly tolerant: boolean,
    private readonly verbatim: ((field: string) => boolean) | undefined = undefined,
  ) {}

  /** Compiles one expression text (already trimmed); a syntax error is thrown or kept. */
  private expression(text: string, field: string): CompiledExpression | ExpressionSyntaxError {
    try {
      const e = compileBare(text);
      this.expressions.push(e);
      return e;
    } catch (err) {
      if (!(err instanceof ExpressionSyntaxError)) throw err;
      const located = err.withField(field);
      if (!this.tolerant) throw located;
      this.syntaxErrors.push(located);
      return located;
    }
  }

  private string(s: string, field: string): Node {
    const found = scanTemplateString(s);
    const inner = pureInner(s);
    if (inner !== undefined && (found.length < 2 || compiles(goTrimSpace(inner)))) {
      const expr = this.expression(goTrimSpace(inner), field);
      return {
        constant: false,
        value: undefined,
        build: (payload, onError) => {
          if (expr instanceof ExpressionSyntaxError) {
            onError?.(expr);
            return null;
          }
          let v: unknown;
          try {
            v = expr.evaluate(payload);
          } catch (err) {
            report(onError, err, expr, field);
            return null;
          }
          if (typeof v === "number" && !Number.isFinite(v)) throw new NonFiniteNumberError(field, v);
          return v === undefined ? null : v;
        },
      };
    }
    if (found.length === 0) return constantNode(toValidText(s));
    const parts: Part[] = [];
    let at = 0;
    for (const f of found) {
      if (f.start > at) parts.push(s.slice(at, f.start));
      parts.push({ expr: this.expression(goTrimSpace(f.inner), field), raw: s.slice(f.start, f.end) });
      at = f.end;
    }
    if (at < s.length) parts.push(s.slice(at));
    return {
      constant: false,
      value: undefined,
      build: (payload, onError) => {
        const escapesBefore = escapeCount();
        let out = "";
        for (let i = 0; i < parts.length; i++) {
          const p = parts[i]!;
          if (typeof p === "string") {
            out += p;
            continue;
          }
          const expr = p.expr;
          if (expr instanceof ExpressionSyntaxError) {
            onError?.(expr);
            out += p.raw;
            continue;
          }
          try {
            out += toText(expr.evaluateRaw(payload));
          } catch (err) {
            report(onError, err, expr, field);
            out += p.raw;
          }
        }
        // Escaped bytes (src/golang/string.ts) from parts are joined as Go joins bytes, then cleaned.
        return escapeCount() === escapesBefore ? out : joinedText(out);
      },
    };
  }

  node(value: unknown, field: string): Node {
    if (typeof value === "string") return this.verbatim?.(field) ? constantNode(value) : this.string(value, field);
    if (Array.isArray(value)) {
      const items = value.map((v, i) => this.node(v, childField(field, i)));
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
      const items = keys.map((k) => this.node(value[k], childField(field, k)));
      const names = keys.map(toValidText); // Go decodes a lone surrogate in a key as U+FFFD
      if (items.every((c) => c.constant)) {
        const snap: JsonObject = {};
        names.forEach((k, i) => setKey(snap, k, items[i]!.value));
        return constantNode(snap);
      }
      const builds = items.map((c) => c.build);
      if (!names.includes("__proto__")) return { constant: false, value: undefined, build: objectBuild(names, builds) };
      return {
        constant: false,
        value: undefined,
        build: (payload, onError) => {
          const out: JsonObject = {};
          for (let i = 0; i < names.length; i++) setKey(out, names[i]!, builds[i]!(payload, onError));
          return out;
        },
      };
    }
    if (typeof value === "number" && !Number.isFinite(value)) {
      this.unreadableConstant ??= `the number at ${JSON.stringify(field === "" ? "$" : field)} is out of range`;
    }
    return constantNode(value === undefined ? null : value);
  }
}

/**
 * The build of an object configuration: a function generated for its keys, `{"k0": b0(…), …}`.
 * Why generated: one shared loop writing `out[name]` sees the keys of every configuration of the
 * process, and the engine's property caches give up on it (bench/http.ts); a literal per
 * configuration builds its object with one shape. Keys are embedded as JSON string literals and
 * evaluated in their order, as the loop did. `__proto__` is not allowed here (a literal key would
 * set the prototype): the caller builds such objects with `setKey`.
 */
function objectBuild(names: readonly string[], builds: readonly Build[]): Build {
  const fields = names.map((n, i) => `${JSON.stringify(n)}: builds[${i}](payload, onError)`).join(", ");
  return new Function("builds", `return function buildObject(payload, onError) { return {${fields}}; };`)(builds) as Build;
}

function compiles(text: string): boolean {
  try {
    compileBare(text);
    return true;
  } catch {
    return false;
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

const IDENT = /^[A-Za-z_][A-Za-z0-9_]*$/;

function childField(parent: string, key: string | number): string {
  if (typeof key === "number") return `${parent}[${key}]`;
  if (IDENT.test(key)) return parent === "" ? key : `${parent}.${key}`;
  return `${parent}[${JSON.stringify(key)}]`;
}

/**
 * Compiles a configuration value (object, array or scalar) once.
 *
 * @param config the port/edge configuration as parsed JSON; not mutated, and later changes to
 *   it do not affect the compiled template (constant parts are snapshotted)
 * @param options `tolerant: true` keeps going past expressions that do not compile (the runner)
 * @returns the compiled template
 * @throws ExpressionSyntaxError (strict mode) for the first malformed expression, naming the
 *   expression, the 0-based position inside it and the configuration field (`conditions[0].condition`)
 */
export function compileTemplate(config: unknown, options: TemplateOptions = {}): CompiledTemplate {
  const compiler = new TemplateCompiler(options.tolerant === true, options.verbatim);
  const root = compiler.node(config, "");
  const build = root.build;
  return {
    constant: root.constant,
    expressions: compiler.expressions,
    syntaxErrors: compiler.syntaxErrors,
    unreadableConstant: compiler.unreadableConstant,
    evaluate: (payload, onError) => build(payload, onError),
  };
}

/**
 * A {@link TemplateOptions.verbatim} test for field paths written with `[]` for any index
 * (`templates[].content` matches `templates[3].content`).
 */
export function fieldMatcher(paths: readonly string[]): (field: string) => boolean {
  const set = new Set(paths);
  return (field) => set.has(field.replace(/\[\d+\]/g, "[]"));
}

/**
 * True when a compiled template contains no expression, so a caller may skip evaluation and
 * reuse one copy of the configuration.
 */
export function isTemplateConstant(compiled: CompiledTemplate): boolean {
  return compiled.constant;
}
