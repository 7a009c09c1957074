/**
 * The script runtime (docs/security.md): scripts compiled with their modules (compile.ts) and run
 * in a sandbox per runtime (sandbox.ts, sandbox-worker.ts) with a time limit and a memory cap per
 * call (limits.ts, memory-watchdog.ts).
 */
export { compileScript, MAIN_MODULE, type ScriptLanguage, type ScriptModule, type ScriptSource } from "./compile.ts";
export { ScriptSandbox, type CallOptions, type SandboxOptions } from "./sandbox.ts";
export { ScriptError, type ScriptErrorCode } from "./errors.ts";
export {
  DEFAULT_LOAD_TIMEOUT_MS,
  DEFAULT_MEMORY_CAP_MB,
  DEFAULT_TIMEOUT_MS,
  loadTimeoutMsOf,
  MEMORY_CAP_ENV,
  memoryCapBytes,
  ScriptLimitsError,
  timeoutMsOf,
} from "./limits.ts";
export { MemoryWatchdog, memoryWatchdog, SAMPLE_MS, type WatchedCall } from "./memory-watchdog.ts";
export { startScript } from "./start.ts";
