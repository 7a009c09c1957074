/**
 * The one compare-and-swap loop of tinyhost, for every write guarded by a resourceVersion — the
 * controllers' finalizer and status writes, the resource manager's Service/Ingress edits and node
 * status patches, and local mode's in-memory API behind them: compute the write from the object as
 * known, send it carrying that object's resourceVersion, and on 409 Conflict read the object again
 * and compute the write anew, so a change made by another writer meanwhile is never dropped
 * (client-go `util/retry.RetryOnConflict`; Kubernetes docs "API Concepts › Resource versions").
 */
import { ConflictRetriesExhaustedError, isConflict } from "./errors.ts";
import type { KubeObject } from "./types.ts";

/**
 * The retry policy every caller shares: at most 20 writes, and before each re-read a random pause
 * of 0–10 ms × the attempt number so competing writers (replicas exposing ports on one Service,
 * the leader and the runners on one node status) spread out instead of colliding again. A caller
 * that gives up (after 20 conflicts) fails its reconcile or call, and the controller's work queue
 * retries later with its own rate-limited backoff.
 */
export const CONFLICT_RETRY = {
  /** Writes before {@link ConflictRetriesExhaustedError}. */
  attempts: 20,
  /** Pause before the re-read that follows conflict number `attempt` (1-based), ms. */
  backoffMs: (attempt: number): number => Math.random() * 10 * attempt,
} as const;

/** What {@link retryOnConflict} runs. */
export interface ConflictRetry<T extends KubeObject> {
  /** Names the object in the exhausted error, e.g. `Service ns/name`, `TinyNode ns/name status`. */
  what: string;
  /** Reads the newest object (after a conflict; and for the first attempt unless {@link current} is given). */
  read: () => Promise<T>;
  /** The object the first attempt works on (usually the informer's copy); absent → {@link read} first. */
  current?: T;
  /**
   * Computes the write from `current` (which it must not change) and sends it guarded by
   * `current.metadata.resourceVersion`, resolving to the stored object; returns (or resolves to)
   * `undefined` when `current` already is as desired.
   */
  write: (current: T) => Promise<T | undefined> | undefined;
  /** Max writes; default {@link CONFLICT_RETRY}`.attempts` (tests lower it). */
  attempts?: number;
}

/** Outcome of {@link retryOnConflict}. */
export interface ConflictRetryResult<T> {
  /** The object after the write, or the last one read when nothing needed writing. */
  object: T;
  /** True when a write was sent and accepted. */
  written: boolean;
  /** 409 answers met on the way (each followed by a fresh read). */
  conflicts: number;
}

/**
 * Runs `op.write` until it is accepted, says there is nothing to do, or has met `attempts`
 * conflicts (policy: {@link CONFLICT_RETRY}).
 * @throws ConflictRetriesExhaustedError (code `CONFLICT_RETRIES_EXHAUSTED`, `cause` the last
 *   Conflict) after `attempts` conflicts; any other read or write error at once (e.g. NotFound).
 */
export async function retryOnConflict<T extends KubeObject>(op: ConflictRetry<T>): Promise<ConflictRetryResult<T>> {
  const attempts = op.attempts ?? CONFLICT_RETRY.attempts;
  let current = op.current ?? (await op.read());
  let conflicts = 0;
  for (;;) {
    try {
      const stored = await op.write(current);
      return stored === undefined ? { object: current, written: false, conflicts } : { object: stored, written: true, conflicts };
    } catch (err) {
      if (!isConflict(err)) throw err;
      conflicts++;
      if (conflicts >= attempts) throw new ConflictRetriesExhaustedError(op.what, attempts, err);
      await Bun.sleep(CONFLICT_RETRY.backoffMs(conflicts));
      current = await op.read();
    }
  }
}
