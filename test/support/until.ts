/** The one polling wait of the tests. */

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
