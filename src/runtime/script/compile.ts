/**
 * Compiles a script (an ES module, JavaScript or TypeScript, plus the modules it may import) into
 * one CommonJS function body the sandbox evaluates (sandbox-worker.ts). `Bun.build` does the work
 * with every file virtual: nothing is read from disk and nothing is fetched.
 *
 * Contract (Go js-module components/eval/eval.go): the main module is `main.js`; `import … from
 * "utils.js"` resolves to the module named `utils.js` in the list given with it (Go `modules`);
 * the default export must be a function. Anything else a script imports — `node:fs`, `bun`, a
 * package, a URL — is refused here, at compile time, with the specifier in the message (Go fetches
 * `https://` imports; tinyhost scripts have no network: docs/security.md, docs/compatibility.md).
 */
import { ScriptError } from "./errors.ts";

/** Script languages a runtime serves: TinyComponent `spec.runtime` values. */
export type ScriptLanguage = "js" | "ts";

/** One module a script may import, by name (Go js-module `ScriptItem`). */
export interface ScriptModule {
  /** The import specifier it answers, e.g. `utils.js` (a leading `./` is ignored). */
  name: string;
  /** Its source. */
  content: string;
}

/** What {@link compileScript} takes. */
export interface ScriptSource {
  /** The main module: default-exports the function each call runs. */
  main: string;
  /** Modules the main module (and each other) may import. */
  modules?: readonly ScriptModule[];
  /** `ts` strips types (every `.ts` module is TypeScript too); default `js`. */
  language?: ScriptLanguage;
}

/** Name of the main module, as Go names it (js-module `mainModule`). */
export const MAIN_MODULE = "main.js";

const ROOT = "/script/";
const NAMESPACE = "tinyhost-script";

/**
 * Bundles `source` into a CommonJS body (`module.exports.default` is the script's function).
 * @throws ScriptError `SCRIPT_COMPILE` naming the module, line and column of a syntax error, or the
 *   specifier of a refused import; for an empty main module.
 */
export async function compileScript(source: ScriptSource): Promise<string> {
  if (typeof source.main !== "string" || source.main.trim() === "") throw new ScriptError("SCRIPT_COMPILE", "empty script");
  const files = new Map<string, string>([[MAIN_MODULE, source.main]]);
  for (const m of source.modules ?? []) {
    const name = moduleName(m.name);
    if (name === "") throw new ScriptError("SCRIPT_COMPILE", "a module has an empty name");
    if (name !== MAIN_MODULE) files.set(name, m.content ?? "");
  }
  const language = source.language ?? "js";
  const refused: string[] = [];
  let result: Awaited<ReturnType<typeof Bun.build>>;
  try {
    result = await Bun.build({
      entrypoints: [ROOT + MAIN_MODULE],
      root: "/",
      target: "browser",
      format: "cjs",
      throw: false,
      plugins: [
        {
          name: "tinyhost-script-files",
          setup(build) {
            build.onResolve({ filter: /.*/ }, (args) => {
              const name = args.path.startsWith(ROOT) ? args.path.slice(ROOT.length) : moduleName(args.path);
              if (files.has(name)) return { path: ROOT + name, namespace: NAMESPACE };
              refused.push(args.path);
              return { path: args.path, namespace: "tinyhost-refused" };
            });
            build.onLoad({ filter: /.*/, namespace: NAMESPACE }, (args) => {
              const name = args.path.slice(ROOT.length);
              return { contents: files.get(name) ?? "", loader: language === "ts" || name.endsWith(".ts") ? "ts" : "js" };
            });
            build.onLoad({ filter: /.*/, namespace: "tinyhost-refused" }, (args) => {
              throw new Error(refusal(args.path, [...files.keys()]));
            });
          },
        },
      ],
    });
  } catch (err) {
    throw new ScriptError("SCRIPT_COMPILE", describeBuildFailure(err, refused, [...files.keys()]), { cause: err });
  }
  if (!result.success) throw new ScriptError("SCRIPT_COMPILE", describeBuildFailure(new AggregateError(result.logs), refused, [...files.keys()]));
  const out = result.outputs[0];
  if (!out) throw new ScriptError("SCRIPT_COMPILE", "the script compiled to nothing");
  return out.text();
}

function moduleName(specifier: string): string {
  return specifier.replace(/^\.\//, "").replace(/^\/+/, "");
}

function refusal(specifier: string, names: string[]): string {
  const given = names.filter((n) => n !== MAIN_MODULE);
  const allowed = given.length > 0 ? `the modules given with it (${given.join(", ")})` : "the modules given with it (none)";
  if (/^https?:\/\//.test(specifier))
    return `import "${specifier}" is refused: scripts have no network, so imports from URLs are not fetched; paste the module into the script's modules instead`;
  return `import "${specifier}" is refused: a script may import only ${allowed}`;
}

/** One line per build message: `module:line:col: message`; a refused import says so plainly. */
function describeBuildFailure(err: unknown, refused: string[], names: string[]): string {
  if (refused.length > 0) return refusal(refused[0]!, names);
  const many = err instanceof AggregateError ? (err.errors as unknown[]) : [err];
  const lines = many
    .filter((m) => (m as { level?: string }).level === undefined || (m as { level?: string }).level === "error")
    .map((m) => {
      const text = String((m as { message?: unknown }).message ?? m);
      const pos = (m as { position?: { file?: string; line?: number; column?: number } | null }).position;
      if (!pos || typeof pos.line !== "number") return text;
      const file = (pos.file ?? "").replace(/^.*\/script\//, "");
      return `${file || MAIN_MODULE}:${pos.line}:${pos.column ?? 0}: ${text}`;
    });
  return lines.length > 0 ? lines.join("; ") : String(err);
}
