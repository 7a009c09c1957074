/**
 * Writes src/loader/static.generated.ts: a literal `require()` of every component file
 * under components/ (same file rules as dev discovery), so `bun build --compile` needs no dynamic
 * import (landscape §D.7). Nothing is written unless every check passes, in this order:
 *   1. dev discovery (`discoverComponents`) imports every file: a file that throws on import, has a
 *      bad default export, or duplicates a name fails here, named (`file:line:col: message` for a
 *      syntax error);
 *   2. every component file is bundled with `allowUnresolved: []`: an import the binary could not
 *      resolve at runtime (a non-literal `import()`) fails here;
 *   3. the file is written only when its content changes (it is tracked in git).
 *
 *   bun scripts/gen-registry.ts [--dir components] [--out src/loader/static.generated.ts] [--check]
 *
 * --check: write nothing; exit 1 when the committed file differs from what would be generated.
 * Exit codes: 0 ok, 1 stale (--check) or validation failed, 2 usage error.
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import { FlagError, parseFlags } from "../src/cli/flags.ts";
import { discoverComponents } from "../src/loader/discover.ts";
import { listComponentFiles } from "../src/runtime/registry/files.ts";
import { renderStaticRegistry } from "../src/loader/generate.ts";

const root = resolve(import.meta.dir, "..");

let flags;
try {
  flags = parseFlags(process.argv.slice(2), { dir: { type: "string" }, out: { type: "string" }, check: { type: "boolean" } }).values;
} catch (e) {
  if (!(e instanceof FlagError)) throw e;
  console.error(`gen-registry: ${e.message}`);
  process.exit(2);
}

function fail(message: string): never {
  console.error(`gen-registry: ${message}`);
  console.error(`gen-registry: nothing written; fix the component file and run the build again`);
  process.exit(1);
}

const dir = resolve(root, flags.dir ?? "components");
const out = resolve(root, flags.out ?? "src/loader/static.generated.ts");
const check = flags.check === true;
const shown = (abs: string) => relative(root, abs).replaceAll("\\", "/");

const rels = existsSync(dir) ? listComponentFiles(dir) : [];
if (!existsSync(dir)) console.error(`gen-registry: ${shown(dir)} does not exist; the registry will be empty`);
const files = rels.map((rel) => ({ absPath: join(dir, rel), source: shown(join(dir, rel)) }));
const text = renderStaticRegistry(files, out);
const current = existsSync(out) ? readFileSync(out, "utf8") : "";

if (check) {
  if (current !== text) {
    console.error(`gen-registry: ${shown(out)} is stale; run: bun scripts/gen-registry.ts`);
    process.exit(1);
  }
  console.error(`gen-registry: ${shown(out)} is up to date (${files.length} components)`);
  process.exit(0);
}

// 1. Every file imports and default-exports a valid component (the binary would refuse to start otherwise).
if (files.length > 0) {
  process.chdir(root); // discovery names files relative to the working directory
  try {
    await discoverComponents(dir);
  } catch (e) {
    const code = (e as { code?: unknown } | null)?.code;
    fail(`${typeof code === "string" ? `${code}: ` : ""}${e instanceof Error ? e.message : String(e)}`);
  }
}

// 2. Bundle the component files the way --compile will, refusing any import left for runtime.
if (files.length > 0) {
  let result: Awaited<ReturnType<typeof Bun.build>>;
  try {
    result = await Bun.build({ entrypoints: files.map((f) => f.absPath), target: "bun", allowUnresolved: [], throw: false });
  } catch (e) {
    fail(`bundling the components failed:\n${e instanceof Error ? e.message : String(e)}`);
  }
  if (!result.success) {
    const errors = result.logs.filter((l) => l.level === "error");
    for (const log of errors) {
      const p = log.position;
      console.error(p ? `${shown(resolve(root, p.file))}:${p.line}:${p.column}: ${log.message}` : log.message);
    }
    const dynamic = errors.some((l) => /import\(\) expression will not be bundled|allowUnresolved|unresolved/i.test(l.message));
    fail(`the components do not bundle cleanly (see above)${dynamic ? "; the binary cannot resolve an import() whose specifier is not a string literal" : ""}`);
  }
}

// 3. Write only a changed file: it is tracked, and an unchanged build must leave the tree clean.
if (current === text) {
  console.error(`gen-registry: ${shown(out)} unchanged (${files.length} components)`);
} else {
  writeFileSync(out, text);
  console.error(`gen-registry: wrote ${shown(out)} (${files.length} components)`);
}
// Components may leave handles open (timers, sockets) after import; the check is done.
process.exit(0);
