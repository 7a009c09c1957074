/**
 * Compare-and-swap loop for controller writes: compute a write from the object as known, send it
 * guarded by that object's resourceVersion, and on 409 Conflict re-read and compute again
 * (client-go `retry.RetryOnConflict`; Kubernetes docs "API Concepts › Resource versions").
 */
import { isConflict } from "../client/index.ts";
import type { KubeObject } from "../client/index.ts";

/** Default attempts of {@link writeOnConflictRetry} (client-go `retry.DefaultRetry` has 5 steps). */
export const DEFAULT_WRITE_ATTEMPTS = 5;

/** Outcome of {@link writeOnConflictRetry}. */
export interface WriteOutcome<T> {
  /** The object after the write, or the last one read when nothing needed writing. */
  object: T;
  /** True when a write was sent and accepted. */
  written: boolean;
  /** 409 answers met on the way (each followed by a fresh read). */
  conflicts: number;
}

/**
 * Runs `write(object)` until it is accepted or says there is nothing to do (`undefined`).
 * @param initial - the object the first attempt is computed from (usually the cache's copy).
 * @param read - fresh GET after a conflict.
 * @param write - sends the write for `object` (guarded by its resourceVersion) and resolves to the
 *   stored object, or returns `undefined` when `object` already is as desired.
 * @param attempts - max writes; default {@link DEFAULT_WRITE_ATTEMPTS}.
 * @throws the last Conflict after `attempts` writes; any other error at once (e.g. NotFound).
 */
export async function writeOnConflictRetry<T extends KubeObject>(
  initial: T,
  read: () => Promise<T>,
  write: (object: T) => Promise<T> | undefined,
  attempts = DEFAULT_WRITE_ATTEMPTS,
): Promise<WriteOutcome<T>> {
  let object = initial;
  let conflicts = 0;
  for (let attempt = 1; ; attempt++) {
    const pending = write(object);
    if (pending === undefined) return { object, written: false, conflicts };
    try {
      return { object: await pending, written: true, conflicts };
    } catch (err) {
      if (!isConflict(err) || attempt >= attempts) throw err;
      conflicts++;
      object = await read();
    }
  }
}
