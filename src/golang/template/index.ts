/**
 * Go's text/template for go_template (src/golang/template: lex.ts, parse.ts, exec.ts), written
 * here because no npm package implements it: @ctrl/golang-template lacks `define`, `template` and
 * `block` — the layouts and partials go_template is for — plus variables, comparisons and printf;
 * @evertdespiegeleer/go-template is a single-template WebAssembly build of Go with no functions, no
 * template sets, no time limit, and a wasm file read from disk at run time that `bun build
 * --compile` does not carry.
 *
 * What is supported — checked against Go's text/template in test/conformance/encoding (op
 * `template`, including cases from Go's own exec_test.go and parse_test.go):
 * - syntax: text, actions, trim markers `{{- -}}`, comments; `if`/`else if`/`else`, `with`/`else
 *   with`/`else`, `range` (lists, maps in key order, integers; `$i, $e :=`; `else`; `break`,
 *   `continue`), `define`, `template`, `block`; pipelines with `|`, parenthesised pipelines,
 *   variables `$`, `$x := …`, `$x = …`; fields and chains `.a.b`, `$x.a`, `(…).a`; constants:
 *   strings, raw strings, characters, integers (decimal, hex, octal, binary, `_`), floats, bools, nil;
 * - functions: and, or, not, len, index, slice, print, printf, println, html, js, urlquery, eq,
 *   ne, lt, le, gt, ge, call (data holds no functions, so call always fails), and the component's
 *   `now` (time.Time: UTC, Local, Year, Month, Day, Hour, Minute, Second, Nanosecond, YearDay,
 *   Weekday, Unix, UnixMilli, UnixMicro, UnixNano, IsZero, AddDate, Format, String) and `builtWith`;
 * - sets: templates parsed into one set with its partials; a later empty definition does not
 *   replace a non-empty one (how `block` defaults work).
 * Not supported: custom delimiters, complex constants, hex-float constants, `Option("missingkey=…")`
 * (the component never sets it), range over functions or channels (JSON has none).
 */
import { TemplateExecError, Executor, BUILTINS, type ExecLimits, type GoFunc } from "./exec.ts";
import { parseTemplate, isEmptyTree, TemplateParseError, type Tree } from "./parse.ts";

export { TemplateExecError, BUILTINS, htmlEscape, jsEscape, type GoFunc, type ExecLimits } from "./exec.ts";
export { TemplateParseError } from "./parse.ts";

const DEFAULT_LIMITS: ExecLimits = { maxOutputBytes: 32 * 1024 * 1024, maxMillis: 10_000 };

/**
 * A set of associated templates (Go `*template.Template` with its namespace): parse texts into it,
 * then execute one by name.
 */
export class GoTemplateSet {
  readonly #trees = new Map<string, Tree>();
  readonly #funcs: Map<string, GoFunc>;

  /** @param funcs extra functions, by name (Go `Funcs`), beside the builtins. */
  constructor(funcs: ReadonlyMap<string, GoFunc> = new Map()) {
    this.#funcs = new Map([...BUILTINS, ...funcs]);
  }

  /**
   * Parses `text` as the template `name` (Go `t.New(name).Parse(text)`): its main tree and every
   * definition join the set; an empty definition never replaces a non-empty one.
   * @throws TemplateParseError with Go's text.
   */
  parse(name: string, text: string): void {
    const trees = parseTemplate(name, text, (fn) => this.#funcs.has(fn));
    for (const [treeName, tree] of trees) {
      const old = this.#trees.get(treeName);
      if (old && isEmptyTree(tree.root)) continue;
      this.#trees.set(treeName, tree);
    }
  }

  /** Whether the set has a template `name`. */
  has(name: string): boolean {
    return this.#trees.has(name);
  }

  /**
   * Executes the template `name` with `data` (Go `ExecuteTemplate`).
   * @throws TemplateExecError with Go's text (also for an unknown name).
   */
  execute(name: string, data: unknown, limits: Partial<ExecLimits> = {}): string {
    const tree = this.#trees.get(name);
    if (!tree) throw new TemplateExecError(`template: no template ${JSON.stringify(name)} associated with template ${JSON.stringify(name)}`);
    const exec = new Executor((n) => this.#trees.get(n), this.#funcs, { ...DEFAULT_LIMITS, ...limits }, name);
    try {
      return exec.run(tree, data);
    } catch (err) {
      if (err instanceof RangeError) throw new TemplateExecError(`template: ${name}: nesting too deep to execute`);
      throw err;
    }
  }
}
