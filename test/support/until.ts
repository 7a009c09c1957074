/** The polling waits of the tests: {@link until} fails on a throw, {@link waitUntil} polls through one (a server still starting). */
import { messageOf } from "../../src/core/errors.ts";

/**
 * Polls `cond` every `everyMs` until it returns something truthy; fails naming `what` after `ms`.
 * @param what what is awaited, for the timeout message (a function is read only when it times out).
 * @returns the ms waited.
 * @throws Error `timed out after <ms> ms waiting for <what>`.
 */
export async function until(what: string | (() => string), cond: () => unknown, ms = 5000, everyMs = 10): Promise<number> {
  const start = performance.now();
  while (!(await cond())) {
    if (performance.now() - start > ms) throw new Error(`timed out after ${ms} ms waiting for ${typeof what === "string" ? what : what()}`);
    await Bun.sleep(everyMs);
  }
  return performance.now() - start;
}

/**
 * Polls `check` every `intervalMs` until it returns true or `timeoutMs` passes.
 * @throws Error with `what` and the last failure when the time runs out.
 */
export async function waitUntil(what: string, check: () => Promise<boolean>, timeoutMs: number, intervalMs = 100): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let last = "";
  while (Date.now() < deadline) {
    try {
      if (await check()) return;
    } catch (err) {
      last = messageOf(err);
    }
    await Bun.sleep(intervalMs);
  }
  throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${last ? ` (last error: ${last})` : ""}`);
}
