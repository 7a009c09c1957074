/**
 * The tinyhost CLI run from source, as `npm run tinyhost --` runs it, for tests that drive it as a
 * user would (provision, send, uninstall against a real cluster).
 */
import { tmpdir } from "node:os";
import { resolve } from "node:path";

const ROOT = resolve(import.meta.dir, "../..");

/** What one CLI run gave; `ms` is its wall time. */
export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
  ms: number;
}

/**
 * Runs `tinyhost <args>` (src/cli/main.ts) in the repository with a bare environment
 * (PATH, HOME, TINYHOST_LOG_LEVEL=warn); `kubeconfig` is appended as `--kubeconfig <path>`.
 */
export async function runTinyhost(args: readonly string[], opts: { kubeconfig?: string } = {}): Promise<CliRun> {
  const t0 = performance.now();
  const p = Bun.spawn([process.execPath, "src/cli/main.ts", ...args, ...(opts.kubeconfig ? ["--kubeconfig", opts.kubeconfig] : [])], {
    cwd: ROOT,
    stdout: "pipe",
    stderr: "pipe",
    env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? tmpdir(), TINYHOST_LOG_LEVEL: "warn" },
  });
  const [stdout, stderr, code] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text(), p.exited]);
  return { code, stdout, stderr, ms: Math.round(performance.now() - t0) };
}
