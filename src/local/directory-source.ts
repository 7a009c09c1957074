/**
 * The directory source of local mode: the TinyNode manifests of a directory written into the
 * in-memory API the way `kubectl apply -f <dir>` writes them into a cluster — added and changed
 * nodes applied, removed ones deleted (their finalizer lets the TinyNode controller run onDestroy
 * first). The controller then sees them through the API's watch, exactly as it sees a cluster's;
 * what changed is what the API answers (a manifest that adds nothing to its stored node is no change).
 * Parsing, the file/line diagnostics and "a broken file keeps its last good nodes" are in
 * ./manifests.ts and ./desired.ts; this file only reads, diffs, applies and watches.
 */
import { relative } from "node:path";
import { collectDesired, type DesiredSet } from "./desired.ts";
import type { ManifestError } from "./errors.ts";
import { isManifestFile, readManifestDir, type NodeManifest } from "./manifests.ts";
import type { LocalNodes, NodeSeed } from "./node-api.ts";
import { watchDirectory } from "./watch.ts";

/** Options of {@link DirectorySource}. */
export interface DirectorySourceOptions {
  /** Absolute manifests directory. */
  dir: string;
  /** The directory as shown in messages (src/telemetry/shown-path.ts). */
  shownDir: string;
  /** Where the nodes go. */
  nodes: LocalNodes;
  /** What a node starts with when it is first created (state file, seeded metadata). */
  seed: (name: string, entry: NodeManifest) => NodeSeed | undefined;
  /**
   * How long a node missing from the directory keeps running before it is deleted, ms (default
   * {@link REMOVE_GRACE_MS}); 0 deletes it on the read that misses it.
   */
  removeGraceMs?: number;
  /** Clock, ms (tests). Default `Date.now`. */
  now?: () => number;
}

/**
 * Default of {@link DirectorySourceOptions.removeGraceMs}, ms. Saves that are not atomic truncate
 * the file and then write it (an empty file in between), `git checkout`/`git stash` delete and
 * re-create it, an editor may move it away and back: each is a read without the node followed, in
 * a fraction of a second, by one with it again. A removal is only a removal once the node has
 * stayed missing this long, so such a save neither destroys the node nor restarts it.
 */
export const REMOVE_GRACE_MS = 1500;

/** Names of nodes added, changed and removed by one {@link DirectorySource.apply}, each sorted. */
export interface NodeDiff {
  added: string[];
  changed: string[];
  removed: string[];
}

/** Reads manifests into the in-memory API. */
export class DirectorySource {
  /** Declared nodes by name (the last good version of each). */
  desired: ReadonlyMap<string, NodeManifest> = new Map();
  /** Problems of the last read. */
  errors: readonly ManifestError[] = [];
  /** TinyComponents of the last applied read. */
  components: DesiredSet["components"] = new Map();
  readonly #o: DirectorySourceOptions;
  /** Nodes missing from the directory but not deleted yet → when they were first missed (ms). */
  readonly #missingSince = new Map<string, number>();

  /** @param o - see {@link DirectorySourceOptions}. */
  constructor(o: DirectorySourceOptions) {
    this.#o = o;
  }

  /**
   * Reads every manifest file of the directory (keeping the last good nodes of broken files).
   * @throws the file system's error when the directory cannot be listed.
   */
  read(): DesiredSet {
    return collectDesired(readManifestDir(this.#o.dir, this.#o.shownDir), this.desired, this.components);
  }

  /**
   * Makes the API hold `set`'s nodes: applies added and changed ones, deletes removed ones — a node
   * missing from `set` only once it has been missing for {@link DirectorySourceOptions.removeGraceMs}
   * (until then it stays in {@link desired} as it was; see {@link removalDue}).
   * @returns what changed.
   */
  apply(set: DesiredSet): NodeDiff {
    const diff: NodeDiff = { added: [], changed: [], removed: [] };
    const before = this.desired;
    const now = (this.#o.now ?? Date.now)();
    const grace = this.#o.removeGraceMs ?? REMOVE_GRACE_MS;
    const desired = new Map(set.nodes);
    this.desired = desired; // seeds look at the declared set (the first http_server)
    this.errors = set.errors;
    this.components = set.components;
    for (const name of [...set.nodes.keys()].sort()) {
      this.#missingSince.delete(name);
      const entry = set.nodes.get(name)!;
      const r = this.#o.nodes.apply(entry.node, () => this.#o.seed(name, entry));
      if (r === "created") diff.added.push(name);
      else if (r === "updated") diff.changed.push(name);
    }
    for (const name of [...before.keys()].sort()) {
      if (set.nodes.has(name)) continue;
      const since = this.#missingSince.get(name) ?? now;
      if (now - since < grace) {
        this.#missingSince.set(name, since);
        desired.set(name, before.get(name)!); // held: a save in progress, a checkout, a move and back
        continue;
      }
      this.#missingSince.delete(name);
      this.#o.nodes.delete(name);
      diff.removed.push(name);
    }
    return diff;
  }

  /** When the first node held by {@link apply} is due for deletion (ms, same clock), or undefined when none is held. */
  removalDue(): number | undefined {
    if (!this.#missingSince.size) return undefined;
    return Math.min(...this.#missingSince.values()) + (this.#o.removeGraceMs ?? REMOVE_GRACE_MS);
  }

  /**
   * Calls `onChange` after a quiet time whenever a manifest file of the directory changes (files
   * named in `ignore`, such as the state file and its lock, do not count).
   * @returns a function that stops watching.
   * @throws the file system's error when the directory cannot be watched.
   */
  watch(o: { debounceMs: number; ignore: readonly string[]; onChange: () => void; onError: (err: Error) => void }): () => void {
    const ignored = new Set(o.ignore.map((f) => relative(this.#o.dir, f)));
    return watchDirectory(this.#o.dir, {
      debounceMs: o.debounceMs,
      onChange: (paths) => {
        if ([...paths].some((p) => p === "" || (!ignored.has(p) && isManifestFile(p.split("/").pop()!)))) o.onChange();
      },
      onError: o.onError,
    });
  }
}
