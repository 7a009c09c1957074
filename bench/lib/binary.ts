/**
 * The compiled binary the benchmarks start: `dist/tinyhost`, rebuilt with `bun scripts/build.ts`
 * when it is missing or older than any file under src/ or components/.
 */
import { existsSync, readdirSync, statSync } from "node:fs";
import { join, resolve } from "node:path";

/** Repository root. */
export const ROOT = resolve(import.meta.dir, "../..");
/** Path of the compiled binary. */
export const BINARY = join(ROOT, "dist/tinyhost");

function newestMtime(dir: string): number {
  let newest = 0;
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) newest = Math.max(newest, newestMtime(p));
    else if (e.name.endsWith(".ts")) newest = Math.max(newest, statSync(p).mtimeMs);
  }
  return newest;
}

/** What {@link ensureBinary} did. */
export interface BinaryInfo {
  path: string;
  /** True when this call rebuilt it. */
  rebuilt: boolean;
  /** Size in bytes. */
  bytes: number;
  /** Build time in ms (0 when not rebuilt). */
  buildMs: number;
}

/**
 * Returns dist/tinyhost, building it first when missing or stale.
 * @throws Error when the build fails.
 */
export function ensureBinary(log: (line: string) => void = () => {}): BinaryInfo {
  const stale = !existsSync(BINARY) || statSync(BINARY).mtimeMs < Math.max(newestMtime(join(ROOT, "src")), newestMtime(join(ROOT, "components")));
  let buildMs = 0;
  if (stale) {
    log("dist/tinyhost is missing or older than src/ or components/: building it (npm run build)");
    const t0 = performance.now();
    const r = Bun.spawnSync([process.execPath, "scripts/build.ts"], { cwd: ROOT, stdout: "pipe", stderr: "pipe" });
    buildMs = performance.now() - t0;
    if (r.exitCode !== 0) throw new Error(`bun scripts/build.ts failed (exit ${r.exitCode}):\n${r.stderr.toString().slice(-2000)}`);
  }
  return { path: BINARY, rebuilt: stale, bytes: statSync(BINARY).size, buildMs };
}
