/**
 * The Go test tools of test/go/ (programs of our own over the real Go SDK: the evaluator oracle,
 * the Go peer module, …), built by scripts/build-go-tools.sh into a cache dir keyed by the SDK
 * version and a hash of test/go's sources, and reused while nothing there changes.
 *
 * The integration suite builds them once at start (beside the control plane) and passes the
 * directory in TINYHOST_GO_TOOLS_DIR; a test file run on its own builds (or finds) them itself.
 */
import { existsSync } from "node:fs";
import { join, resolve } from "node:path";

const ROOT = resolve(import.meta.dir, "../..");

let building: Promise<string> | undefined;

/**
 * Builds (or finds in the cache) every tool of test/go/.
 * @returns the directory holding one executable per tool (`<dir>/oracle`, …).
 * @throws Error naming the script's exit code when Go or the module proxy is unavailable (the
 *   script prints its one-line reason on stderr first).
 */
export function ensureGoTools(): Promise<string> {
  const fromEnv = process.env.TINYHOST_GO_TOOLS_DIR;
  if (fromEnv && existsSync(fromEnv)) return Promise.resolve(fromEnv);
  building ??= (async () => {
    const proc = Bun.spawn(["bash", join(ROOT, "scripts/build-go-tools.sh")], { stdout: "pipe", stderr: "inherit" });
    const out = await new Response(proc.stdout).text();
    const code = await proc.exited;
    if (code !== 0) throw new Error(`the Go test tools build failed (exit ${code}); see the line above`);
    return out.trim().split("\n").pop() ?? "";
  })();
  return building;
}

/**
 * Path of one built Go tool.
 * @throws Error when the tool is not in the built directory (no test/go/<name>/main.go).
 */
export async function goTool(name: string): Promise<string> {
  const path = join(await ensureGoTools(), name);
  if (!existsSync(path)) throw new Error(`Go test tool "${name}" was not built (is there a test/go/${name}/main.go?)`);
  return path;
}

/**
 * Path of one Go tool when the cache already holds it for the current test/go sources, without
 * building anything (the script's `--print-dir`); undefined otherwise. For callers that need one
 * tool and not the rest of the script's work (helm).
 */
export function builtGoTool(name: string): string | undefined {
  const r = Bun.spawnSync(["bash", join(ROOT, "scripts/build-go-tools.sh"), "--print-dir"], { stdout: "pipe", stderr: "ignore" });
  const path = join(r.stdout.toString().trim(), name);
  return r.exitCode === 0 && existsSync(path) ? path : undefined;
}
