/**
 * `npm run bench`: runs every benchmark in bench/ (each prints a JSON array of
 * `{name, value, unit, baseline?, ratio?, target?, met?}` on its last stdout line) and writes
 * bench/results.json. Pass `--quick` to ask each benchmark for a short run.
 */
import { readdirSync, writeFileSync } from "node:fs";
import { resolve } from "node:path";

const dir = import.meta.dir;
const quick = process.argv.includes("--quick");
const files = readdirSync(dir).filter((f) => f.endsWith(".ts") && f !== "run.ts" && !f.startsWith("_")).sort();
const results: unknown[] = [];
for (const file of files) {
  console.error(`bench: ${file}`);
  const r = Bun.spawnSync([process.execPath, resolve(dir, file), ...(quick ? ["--quick"] : [])], {
    stdout: "pipe",
    stderr: "inherit",
    env: { ...process.env, TINYHOST_LOG_LEVEL: "silent" },
  });
  const out = r.stdout.toString().trim();
  // A benchmark prints its JSON array last: one line, or pretty-printed from a line starting with "[".
  const start = out.lastIndexOf("\n[");
  const candidates = [out.split("\n").pop() ?? "", start >= 0 ? out.slice(start + 1) : out];
  if (r.exitCode !== 0) {
    console.error(`bench: ${file} failed (exit ${r.exitCode})`);
    continue;
  }
  const parsed = candidates.map(tryParse).find((v) => v !== undefined);
  if (parsed === undefined) console.error(`bench: ${file} did not end its output with a JSON array`);
  else results.push(...(Array.isArray(parsed) ? parsed : [parsed]));
}
writeFileSync(resolve(dir, "results.json"), JSON.stringify(results, null, 2) + "\n");
console.table(results);

function tryParse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
