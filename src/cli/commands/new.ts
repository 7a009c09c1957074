/**
 * `tinyhost new component <name>` writes `components/<name>.ts` and its test
 * `test/unit/components/<name>.test.ts` (src/cli/scaffold/component.ts); `tinyhost new flow <dir>`
 * writes a minimal runnable flow into `<dir>` (src/cli/scaffold/flow.ts). Existing files are never
 * overwritten.
 */
import { existsSync, mkdirSync, readdirSync, writeFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { isCompiledBinary } from "../components-source.ts";
import type { CommandRunner } from "../command.ts";
import { FlagError, parseFlags } from "../flags.ts";
import { componentFiles, DEFAULT_COMPONENT_LAYOUT, type ScaffoldFile } from "../scaffold/component.ts";
import { newFlowFiles } from "../scaffold/flow.ts";

/** Usage of `tinyhost new`. */
export const NEW_USAGE = `Usage:
  tinyhost new component <name> [--components <dir>] [--tests <dir>]
  tinyhost new flow <dir> [--module <name>] [--project <name>]

new component  writes <components>/<name>.ts (default components/) and its test
               <tests>/<name>.test.ts (default test/unit/components/); both pass the
               typecheck and the test as written. <name>: lowercase words joined by "_".
new flow       writes a signal → debug flow into <dir> (TinyProject, TinyFlow, TinyNodes as
               the platform writes them); run it with run --local <dir>.
               --module: spec.module of its nodes (default tinyhost).`;

/** Writes `files` under `root`; refuses (writing nothing) when any exists. @returns the paths written, or the error text. */
export function writeNew(root: string, files: readonly ScaffoldFile[]): string[] | string {
  const taken = files.filter((f) => existsSync(resolve(root, f.path))).map((f) => f.path);
  if (taken.length) return `${taken.join(", ")} already exist${taken.length === 1 ? "s" : ""}; nothing written`;
  for (const f of files) {
    mkdirSync(dirname(resolve(root, f.path)), { recursive: true });
    writeFileSync(resolve(root, f.path), f.text, { flag: "wx" });
  }
  return files.map((f) => f.path);
}

/**
 * How the hints spell the tinyhost command: from source `npm run tinyhost --`; in the compiled
 * binary the binary's own path (relative to `root` when below it, `./`-prefixed so a shell runs it).
 */
export function tinyhostCommand(compiled: boolean, root: string, execPath = process.execPath): string {
  if (!compiled) return "npm run tinyhost --";
  const rel = relative(root, execPath);
  if (rel.startsWith("..") || rel === "") return execPath;
  return rel.includes("/") ? rel : `./${rel}`;
}

/**
 * The source-mode hints for a written component: `run --local` names `--components` when the file
 * is not in ./components (only that folder is read without it), and a test outside `root` is told
 * how its `import … from "tinyhost"` resolves (Bun looks for node_modules/tinyhost above the file).
 */
function sourceHints(cmd: string, root: string, component: string, test: string): string[] {
  const componentDir = dirname(component);
  const inDefault = resolve(root, componentDir) === resolve(root, DEFAULT_COMPONENT_LAYOUT.components);
  const run = inDefault ? `\`${cmd} run --local <flow dir>\`` : `\`${cmd} run --local <flow dir> --components ${componentDir}\``;
  const hints = [`test it: ./node_modules/.bin/bun test ${test}; ${run} picks the component up live`];
  const outside = (p: string) => relative(root, resolve(root, p)).startsWith("..");
  if (outside(test) || outside(component)) {
    const above = commonDir(resolve(root, componentDir), resolve(root, dirname(test)));
    hints.push(
      `outside this project "tinyhost" resolves only through a node_modules/tinyhost above both files: mkdir -p ${above}/node_modules && ln -s ${resolve(root)} ${above}/node_modules/tinyhost`,
    );
  }
  return hints;
}

/** The deepest directory holding both absolute directories `a` and `b`. */
function commonDir(a: string, b: string): string {
  const pa = a.split("/");
  const pb = b.split("/");
  let i = 0;
  while (i < pa.length && i < pb.length && pa[i] === pb[i]) i++;
  return pa.slice(0, i).join("/") || "/";
}

/**
 * Runs `new` with `args` in project root `root` (default the working directory).
 * @param compiled word the hints for the compiled binary (default: this process is one): it reads
 *   a components directory only when given `--components`, and has no `./node_modules/.bin/bun`.
 * @returns exit code (0 written, 1 refused, 2 usage error) and the lines printed.
 */
export function runNew(args: readonly string[], root = process.cwd(), compiled = isCompiledBinary()): { code: number; out: string[]; err: string[] } {
  const cmd = tinyhostCommand(compiled, root);
  let parsed;
  try {
    parsed = parseFlags(
      args,
      {
        components: { type: "string", valueName: "a directory" },
        tests: { type: "string", valueName: "a directory" },
        module: { type: "string" },
        project: { type: "string" },
        help: { type: "boolean", short: "h" },
      },
      { positionals: true },
    );
  } catch (err) {
    if (!(err instanceof FlagError)) throw err;
    return { code: 2, out: [], err: [`tinyhost new: ${err.message}`, "", NEW_USAGE] };
  }
  const {
    values: v,
    positionals: [kind, target, ...rest],
  } = parsed;
  if (v.help) return { code: 0, out: [NEW_USAGE], err: [] };
  const usage = (msg: string) => ({ code: 2, out: [], err: [`tinyhost new: ${msg}`, "", NEW_USAGE] });
  if (kind !== "component" && kind !== "flow")
    return usage(kind === undefined ? "say what to create: component or flow" : `unknown kind ${JSON.stringify(kind)} (component or flow)`);
  if (!target) return usage(kind === "component" ? "new component needs a <name>" : "new flow needs a <dir>");
  if (rest.length) return usage(`unexpected ${rest.map((r) => JSON.stringify(r)).join(" ")}`);
  if (kind === "component") {
    if (v.module !== undefined || v.project !== undefined) return usage("--module and --project are for new flow");
    let files: ScaffoldFile[];
    try {
      files = componentFiles(target, { components: v.components ?? DEFAULT_COMPONENT_LAYOUT.components, tests: v.tests ?? DEFAULT_COMPONENT_LAYOUT.tests });
    } catch (err) {
      return usage((err as Error).message);
    }
    const written = writeNew(root, files);
    if (typeof written === "string") return { code: 1, out: [], err: [`tinyhost new: ${written}`] };
    const hint = compiled
      ? [
          `use it: ${cmd} run --local <flow dir> --components ${dirname(written[0]!)} (the binary reads component files only from --components; edits apply live)`,
          `test it: bun test ${written[1]} (needs bun and this project's node_modules)`,
        ]
      : sourceHints(cmd, root, written[0]!, written[1]!);
    return { code: 0, out: [...written.map((p) => `wrote ${p}`), ...hint], err: [] };
  }
  if (v.components !== undefined || v.tests !== undefined) return usage("--components and --tests are for new component");
  const dir = resolve(root, target);
  if (existsSync(dir) && readdirSync(dir).some((f) => /\.ya?ml$/.test(f)))
    return { code: 1, out: [], err: [`tinyhost new: ${target} already holds manifests; nothing written`] };
  const files = newFlowFiles(dir, { ...(v.module ? { module: v.module } : {}), ...(v.project ? { project: v.project } : {}) }).map((f) => ({
    path: join(target, f.name),
    text: f.text,
  }));
  const written = writeNew(root, files);
  if (typeof written === "string") return { code: 1, out: [], err: [`tinyhost new: ${written}`] };
  return { code: 0, out: [...written.map((p) => `wrote ${p}`), `run it: ${cmd} run --local ${target}`], err: [] };
}

/** The `new` sub-command. */
export const newCommand: CommandRunner = {
  name: "new",
  async run(args) {
    const r = runNew(args);
    for (const l of r.out) console.log(l);
    for (const l of r.err) console.error(l);
    return r.code;
  },
};
