/**
 * Every source file is as Biome formats it (biome.json; `npm run format` rewrites them), so a
 * diff shows only what changed in meaning.
 */
import { expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { resolve } from "node:path";

const ROOT = resolve(import.meta.dir, "../../..");
const BIOME = resolve(ROOT, "node_modules/.bin/biome");

/** One entry of `biome format --reporter=json`: the file a diagnostic is about. */
interface Diagnostic {
  category: string;
  location: { path?: string };
}

test("every file in biome.json's scope is formatted (`npm run format` fixes it)", () => {
  expect(existsSync(BIOME)).toBe(true);
  // Check mode (no --write); the JSON reporter lists every unformatted file, not the first 20.
  const r = Bun.spawnSync([BIOME, "format", "--reporter=json", "--max-diagnostics=none", "--colors=off"], { cwd: ROOT });
  const out = r.stdout.toString();
  let report: { summary: { errors: number }; diagnostics: Diagnostic[] };
  try {
    report = JSON.parse(out);
  } catch {
    throw new Error(`biome format printed no JSON report (exit ${r.exitCode}):\n${out}\n${r.stderr.toString()}`);
  }
  const unformatted = report.diagnostics.filter((d) => d.category === "format").map((d) => d.location.path ?? "?");
  const other = report.diagnostics.filter((d) => d.category !== "format").map((d) => `${d.location.path ?? "?"}: ${d.category}`);
  expect({ unformatted, other }).toEqual({ unformatted: [], other: [] });
  expect(r.exitCode).toBe(0);
}, 60_000); // biome reads every file in scope: slow on a machine busy with the rest of the suite
