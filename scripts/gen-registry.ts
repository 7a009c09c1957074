/**
 * Writes src/runtime/registry/static.generated.ts: static imports of every component file under
 * components/ (same file rules as dev discovery), so `bun build --compile` needs no dynamic import.
 * Then bundles that module with `allowUnresolved: []`, failing if any component leaves a dynamic
 * import for runtime (landscape §D.7).
 *
 *   bun scripts/gen-registry.ts [--dir components] [--out src/runtime/registry/static.generated.ts] [--check]
 *
 * --check: write nothing; exit 1 when the committed file differs from what would be generated.
 * Exit codes: 0 ok, 1 stale (--check) or verification failed, 2 usage error.
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import { listComponentFiles } from "../src/runtime/registry/files.ts";
import { renderStaticRegistry } from "../src/runtime/registry/generate.ts";

const root = resolve(import.meta.dir, "..");

function flag(name: string, fallback: string): string {
  const i = process.argv.indexOf(name);
  if (i === -1) return fallback;
  const v = process.argv[i + 1];
  if (v === undefined || v.startsWith("--")) {
    console.error(`gen-registry: ${name} needs a value`);
    process.exit(2);
  }
  return v;
}

const dir = resolve(root, flag("--dir", "components"));
const out = resolve(root, flag("--out", "src/runtime/registry/static.generated.ts"));
const check = process.argv.includes("--check");

const rels = existsSync(dir) ? listComponentFiles(dir) : [];
if (!existsSync(dir)) console.error(`gen-registry: ${relative(root, dir)} does not exist; writing an empty registry`);
const files = rels.map((rel) => {
  const absPath = join(dir, rel);
  return { absPath, source: relative(root, absPath).replaceAll("\\", "/") };
});
const text = renderStaticRegistry(files, out);

if (check) {
  const current = existsSync(out) ? readFileSync(out, "utf8") : "";
  if (current !== text) {
    console.error(`gen-registry: ${relative(root, out)} is stale; run: bun scripts/gen-registry.ts`);
    process.exit(1);
  }
  console.error(`gen-registry: ${relative(root, out)} is up to date (${files.length} components)`);
  process.exit(0);
}

writeFileSync(out, text);
console.error(`gen-registry: wrote ${relative(root, out)} (${files.length} components)`);

// Bundle the generated module the way --compile will, refusing any unresolved dynamic import.
let result: Awaited<ReturnType<typeof Bun.build>>;
try {
  result = await Bun.build({ entrypoints: [out], target: "bun", allowUnresolved: [], throw: false });
} catch (e) {
  console.error(`gen-registry: bundling the static registry failed:\n${e instanceof Error ? e.message : String(e)}`);
  process.exit(1);
}
if (!result.success) {
  for (const log of result.logs) console.error(String(log));
  console.error("gen-registry: the static registry does not bundle cleanly (see above); a component may use a dynamic import");
  process.exit(1);
}
