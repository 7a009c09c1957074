/**
 * The saved state of nodes that do not exist in the in-memory API right now: those read from the
 * state file at start and not created yet, and those whose manifest went away. The rule (README
 * "Local mode", docs/authoring.md §8): a node removed from the manifests keeps its last status in
 * the state file for {@link KEEP_REMOVED_STATE_MS} — across restarts, since the entry carries its
 * `removedAt` — and a node that comes back with the same name within that time resumes it, as a
 * restart does. Only after that is the state dropped, with a line saying so. A removal is itself
 * only a removal once the node stayed missing past the directory source's grace
 * (./directory-source.ts `REMOVE_GRACE_MS`), so a save never gets this far.
 */
import type { NodeSeed } from "./node-api.ts";
import type { StateEntry } from "./state-file.ts";

/** How long a removed node's state is kept, ms (1 h: long enough for a `git stash` … `git stash pop`). */
export const KEEP_REMOVED_STATE_MS = 60 * 60 * 1000;

/** Saved states by node name (see the file comment). */
export class SavedStates {
  readonly #entries: Map<string, StateEntry>;

  /**
   * @param restored the state file's entries.
   * @param declared names of the nodes the manifests declare at start: a restored entry of any
   *   other node was removed while no process ran, and counts as removed from `now()` on unless it
   *   says when.
   * @param keepMs how long a removed node's state is kept, ms.
   * @param now clock, ms since the epoch.
   */
  constructor(
    restored: ReadonlyMap<string, StateEntry>,
    declared: ReadonlySet<string>,
    readonly keepMs = KEEP_REMOVED_STATE_MS,
    readonly now: () => number = Date.now,
  ) {
    this.#entries = new Map();
    const t = now();
    for (const [name, { removedAt, ...seed }] of restored) this.#entries.set(name, declared.has(name) ? seed : { ...seed, removedAt: removedAt ?? t });
  }

  /** Takes node `name`'s saved state for its creation (a copy; the entry is gone afterwards). */
  take(name: string): { seed: NodeSeed; removedAt: number | undefined } | undefined {
    const entry = this.#entries.get(name);
    if (!entry) return undefined;
    this.#entries.delete(name);
    const { removedAt, ...seed } = structuredClone(entry);
    return { seed, removedAt };
  }

  /** Node `name` was deleted with `seed` as its last state: keep it, removed now. Nothing is kept for an empty status. */
  park(name: string, seed: NodeSeed): void {
    if (!seed.status || !Object.keys(seed.status).length) return;
    this.#entries.set(name, { status: structuredClone(seed.status), removedAt: this.now() });
  }

  /** Entries of removed nodes, for the state file (each with its `removedAt`). */
  removed(): Map<string, StateEntry> {
    return new Map([...this.#entries].filter(([, e]) => e.removedAt !== undefined));
  }

  /** Drops the removed nodes' states older than {@link keepMs}. @returns the dropped names with their `removedAt`. */
  prune(): [string, number][] {
    const limit = this.now() - this.keepMs;
    const out: [string, number][] = [];
    for (const [name, e] of this.#entries) {
      if (e.removedAt !== undefined && e.removedAt <= limit) {
        this.#entries.delete(name);
        out.push([name, e.removedAt]);
      }
    }
    return out;
  }
}
