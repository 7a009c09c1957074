/**
 * Compile and start in one step: what js_eval and TinyComponent definitions use.
 */
import { compileScript, type ScriptSource } from "./compile.ts";
import { ScriptSandbox, type SandboxOptions } from "./sandbox.ts";

/**
 * Compiles `source` and starts a sandbox with it.
 * @param options sandbox options without `code`.
 * @throws ScriptError `SCRIPT_COMPILE` (syntax, refused import, no default-exported function, a
 *   throw at load) or `SCRIPT_TIMEOUT` (top-level code ran past `loadTimeoutMs`).
 */
export async function startScript(source: ScriptSource, options: Omit<SandboxOptions, "code">): Promise<ScriptSandbox> {
  const code = await compileScript(source);
  return ScriptSandbox.start({ ...options, code });
}
