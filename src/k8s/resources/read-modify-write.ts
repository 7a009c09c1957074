/**
 * Optimistic-concurrency updates: read the object, compute the change on a fresh copy, write it
 * carrying the resourceVersion that was read, and on 409 Conflict read again and recompute. A
 * change computed from the newest object never drops what another writer added meanwhile
 * (Kubernetes docs "API Concepts › Resource versions"; client-go `retry.RetryOnConflict`).
 */
import { isConflict, type KubeObject } from "../client/index.ts";
import { ConflictRetriesExhaustedError } from "./errors.ts";

/** Attempts before {@link readModifyWrite} gives up on conflicts. */
export const DEFAULT_CONFLICT_ATTEMPTS = 20;

/** What {@link readModifyWrite} does per attempt. */
export interface ReadModifyWrite<T extends KubeObject> {
  /** Names the object in errors, e.g. `Service ns/name`. */
  what: string;
  /** Reads the newest object. */
  read: () => Promise<T>;
  /** Returns the changed object (a copy; the input must stay untouched), or undefined when nothing changes. */
  modify: (current: T) => T | undefined;
  /** Writes the object; must carry its `metadata.resourceVersion` so a stale write fails with 409. */
  write: (next: T) => Promise<T>;
  /** Max attempts; default {@link DEFAULT_CONFLICT_ATTEMPTS}. */
  attempts?: number;
}

/** Result of {@link readModifyWrite}. */
export interface ReadModifyWriteResult<T> {
  /** The object as stored after the call (the written one, or the one read when unchanged). */
  object: T;
  /** Whether a write happened. */
  changed: boolean;
}

/**
 * Runs read → modify → write until the write succeeds, nothing needs changing, or the attempts run
 * out. Between conflicting attempts it waits a short random time (0–10 ms × attempt) so competing
 * writers spread out.
 * @throws ConflictRetriesExhaustedError after `attempts` conflicts; any other read/write error as is.
 */
export async function readModifyWrite<T extends KubeObject>(op: ReadModifyWrite<T>): Promise<ReadModifyWriteResult<T>> {
  const attempts = op.attempts ?? DEFAULT_CONFLICT_ATTEMPTS;
  let last: unknown;
  for (let attempt = 1; attempt <= attempts; attempt++) {
    const current = await op.read();
    const next = op.modify(current);
    if (next === undefined) return { object: current, changed: false };
    try {
      return { object: await op.write(next), changed: true };
    } catch (e) {
      if (!isConflict(e)) throw e;
      last = e;
      await Bun.sleep(Math.random() * 10 * attempt);
    }
  }
  throw new ConflictRetriesExhaustedError(op.what, attempts, last);
}
