/**
 * Limits of one script call (docs/security.md "Limits"). The time limit is the js-module's
 * `timeoutSeconds` (0 = 30 s, Go js-module components/eval/eval.go); the memory cap is ours (Go has
 * none) and is read from the environment once.
 */
import { TinyError } from "../../core/errors.ts";

/** Default time limit of one call, ms (Go js-module: `timeoutSeconds` 0 = 30 s). */
export const DEFAULT_TIMEOUT_MS = 30_000;

/**
 * Longest run of a script's top-level code while it loads, ms. Top-level code only declares
 * things; a load that takes seconds is a loop, and while it spins it holds the reconcile that
 * builds the TinyComponent (or the js_eval node's settings). Ours, Go has no separate limit
 * (docs/compatibility.md "js_eval and TinyComponent").
 */
export const DEFAULT_LOAD_TIMEOUT_MS = 5_000;

/** Default memory cap, MiB: how much the process may grow while calls run before they are stopped. */
export const DEFAULT_MEMORY_CAP_MB = 256;

/** Environment variable overriding {@link DEFAULT_MEMORY_CAP_MB} (a positive integer, MiB). */
export const MEMORY_CAP_ENV = "TINYHOST_SCRIPT_MEMORY_MB";

/**
 * The time limit in ms for a `timeoutSeconds` setting: 0, negative or not a number → 30 s.
 * @param timeoutSeconds the setting as the node or definition carries it.
 */
export function timeoutMsOf(timeoutSeconds: number | undefined): number {
  if (typeof timeoutSeconds !== "number" || !Number.isFinite(timeoutSeconds) || timeoutSeconds <= 0) return DEFAULT_TIMEOUT_MS;
  return Math.round(timeoutSeconds * 1000);
}

/**
 * The load limit in ms for a `timeoutSeconds` setting: its call limit ({@link timeoutMsOf}), at
 * most {@link DEFAULT_LOAD_TIMEOUT_MS}.
 * @param timeoutSeconds the setting as the node or definition carries it.
 */
export function loadTimeoutMsOf(timeoutSeconds: number | undefined): number {
  return Math.min(timeoutMsOf(timeoutSeconds), DEFAULT_LOAD_TIMEOUT_MS);
}

/** Bad value of {@link MEMORY_CAP_ENV}. code `"SCRIPT_LIMITS"`. */
export class ScriptLimitsError extends TinyError<"SCRIPT_LIMITS"> {
  /** @param message - what is wrong. @param options - `cause`, the underlying error if any. */
  constructor(message: string, options?: { cause?: unknown }) {
    super("SCRIPT_LIMITS", message, options);
  }
}

/**
 * The memory cap in bytes from `env[TINYHOST_SCRIPT_MEMORY_MB]`, else {@link DEFAULT_MEMORY_CAP_MB}.
 * @throws ScriptLimitsError naming the variable and the value when it is not a positive integer.
 */
export function memoryCapBytes(env: Record<string, string | undefined> = process.env): number {
  const raw = env[MEMORY_CAP_ENV];
  if (raw === undefined || raw === "") return DEFAULT_MEMORY_CAP_MB * 2 ** 20;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1) throw new ScriptLimitsError(`${MEMORY_CAP_ENV} = ${JSON.stringify(raw)} must be a positive integer (MiB)`);
  return n * 2 ** 20;
}
