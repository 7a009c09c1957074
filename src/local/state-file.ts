/**
 * The state file of local mode: the `status` (metadata such as `_state/*`, `port`,
 * `ticker-running`; status text; ports) and the finalizers of every node of the in-memory API,
 * kept in `<dir>/.tinyhost/state.json`, so a restart resumes where the last run stopped — what etcd
 * keeps for the TinyNode status subresource in a cluster (runtime-spec §1.8, §8). It lives in a sub-directory because `kubectl apply -f <dir>` reads every
 * `.json` file directly in `<dir>` (not recursively) and would refuse a state file there.
 *
 * Writes are debounced and atomic (write `<file>.tmp-<pid>`, then rename), so a crash never leaves
 * half a file.
 */
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { TinyError } from "../core/errors.ts";
import type { NodeSeed } from "./node-api.ts";

/**
 * Default path of the state file relative to the manifests directory: in a sub-directory, since
 * `kubectl apply -f <dir>` is not recursive and would fail on a JSON file next to the manifests.
 */
export const STATE_FILE_NAME = ".tinyhost/state.json";

/** Where versions before 0.2 kept the state file (read once when {@link STATE_FILE_NAME} is missing). */
export const LEGACY_STATE_FILE_NAME = ".tinyhost-state.json";

/** The state file path for manifests directory `dir`: `explicit` (`--state`) when given, else `<dir>/.tinyhost/state.json`. */
export function stateFilePath(dir: string, explicit?: string): string {
  return resolve(explicit ?? join(dir, STATE_FILE_NAME));
}

/**
 * Moves the legacy state file `<dir>/.tinyhost-state.json` to `<dir>/.tinyhost/state.json` when
 * only the legacy one exists (a one-time migration; the rename keeps the content as is).
 * @returns the legacy path when it was moved, else undefined.
 * @throws the file system's error when the rename fails (e.g. a read-only directory).
 */
export function migrateLegacyStateFile(dir: string): string | undefined {
  const legacy = resolve(dir, LEGACY_STATE_FILE_NAME);
  const current = stateFilePath(dir);
  if (existsSync(current) || !existsSync(legacy)) return undefined;
  mkdirSync(dirname(current), { recursive: true });
  renameSync(legacy, current);
  return legacy;
}

/** Format version written into the file. */
export const STATE_FILE_VERSION = 1;

/**
 * One node's entry: its last status and finalizers, and — for a node whose manifest is gone —
 * when it was removed. A removed node's state is kept for a while (src/local/saved-states.ts) so
 * that a node that comes back with the same name resumes it.
 */
export interface StateEntry extends NodeSeed {
  /** When the node was removed from the manifests, ms since the epoch; absent for a declared node. */
  removedAt?: number;
}

/** The file's JSON shape. */
export interface StateFileContents {
  /** Always {@link STATE_FILE_VERSION}. */
  version: number;
  /** Node name → its entry (`finalizers` absent in files written before 0.3, `removedAt` before 0.4). */
  nodes: Record<string, StateEntry>;
}

/** The state file exists but is not a state file. code `"STATE_FILE_INVALID"`. */
export class StateFileError extends TinyError {
  constructor(file: string, detail: string) {
    super("STATE_FILE_INVALID", `${file}: ${detail}`);
  }
}

/**
 * Reads a state file. A missing file is an empty state.
 * @throws StateFileError naming the file when it is not JSON or not a version-1 state file.
 */
export function readStateFile(file: string): Map<string, StateEntry> {
  const out = new Map<string, StateEntry>();
  if (!existsSync(file)) return out;
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(file, "utf8"));
  } catch (err) {
    throw new StateFileError(file, `not JSON (${(err as Error).message}); delete it to start fresh`);
  }
  const c = parsed as Partial<StateFileContents> | null;
  if (typeof c !== "object" || c === null || c.version !== STATE_FILE_VERSION || typeof c.nodes !== "object" || c.nodes === null) {
    throw new StateFileError(file, `expected {"version": ${STATE_FILE_VERSION}, "nodes": {...}}; delete it to start fresh`);
  }
  for (const [name, entry] of Object.entries(c.nodes)) {
    if (!entry || typeof entry.status !== "object" || entry.status === null) continue;
    const finalizers = Array.isArray(entry.finalizers) ? entry.finalizers.filter((f) => typeof f === "string") : [];
    const removedAt = (entry as StateEntry).removedAt;
    out.set(name, {
      status: entry.status,
      ...(finalizers.length ? { finalizers } : {}),
      ...(typeof removedAt === "number" && Number.isFinite(removedAt) ? { removedAt } : {}),
    });
  }
  return out;
}

/**
 * Writes `nodes` to `file` atomically (temp file in the same directory, then rename).
 * @throws the file system's error when the directory is not writable.
 */
export function writeStateFile(file: string, nodes: ReadonlyMap<string, StateEntry>): void {
  const contents: StateFileContents = { version: STATE_FILE_VERSION, nodes: {} };
  for (const name of [...nodes.keys()].sort()) contents.nodes[name] = nodes.get(name)!;
  mkdirSync(dirname(file), { recursive: true });
  const tmp = `${file}.tmp-${process.pid}`;
  writeFileSync(tmp, `${JSON.stringify(contents, null, 2)}\n`);
  renameSync(tmp, file);
}

/** A debounced writer of one state file. */
export class StateFileWriter {
  #timer: ReturnType<typeof setTimeout> | undefined;
  #closed = false;

  /**
   * @param file where to write.
   * @param snapshot returns the statuses to write (called at write time).
   * @param debounceMs quiet time before a scheduled write, ms (default 200).
   * @param onError called with a failed write's error (default: ignore).
   * @param beforeWrite called before each write (local mode checks its lock there).
   */
  constructor(
    readonly file: string,
    readonly snapshot: () => ReadonlyMap<string, StateEntry>,
    readonly debounceMs = 200,
    readonly onError: (err: Error) => void = () => {},
    readonly beforeWrite: () => void = () => {},
  ) {}

  /** Schedules a write `debounceMs` from the first call since the last write. */
  schedule(): void {
    if (this.#closed || this.#timer) return;
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      this.#write();
    }, this.debounceMs);
  }

  /** Writes now if a write is pending. */
  flush(): void {
    if (!this.#timer) return;
    clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#write();
  }

  /** Flushes, then ignores further {@link schedule} calls. */
  close(): void {
    this.flush();
    this.#closed = true;
  }

  #write(): void {
    try {
      this.beforeWrite();
      writeStateFile(this.file, this.snapshot());
    } catch (err) {
      this.onError(err as Error);
    }
  }
}
