/**
 * Node-scope {@link State} kept in `status.metadata` (runtime-spec §1.8, §4.6): key `k` lives at
 * `status.metadata["_state/" + k]` as standard base64 of the bytes. Total `_state/*` size (key +
 * value lengths) is capped at 900 KiB.
 *
 * Writes go through the node's status writer (one write in flight, coalesced; status-writer.ts).
 * Writes coalesce per key: a burst of N sets of one key is one entry (its latest value) and one
 * shared promise, taken by the node's status write when that write starts ({@link
 * MetadataState.takeWrites}) — not N queued updaters each holding its own copy.
 *
 * What a write promises (Go's `Set` returns once the updater is queued, docs/compatibility.md):
 * - the value is readable at once (a pending overlay, read-your-writes) and stays readable while it
 *   is not persisted — the overlay's 5 s TTL (Go's) only starts once a write carried it;
 * - the promise of {@link MetadataState.set} resolves when a status write carrying the value (or a
 *   later value of the same key) succeeded. A failed write drops nothing: its entries go back into
 *   the next write, which the writer retries with backoff, and their sets keep waiting;
 * - it rejects with {@link StateWriteError} only when the value can no longer be written: the node
 *   was deleted, or it stopped and its flush could not write it in time (logged by name too).
 * The entries are bounded by the keys however often writes fail; the promises are shared by every
 * set of a key made before the same write, so there are about as many as there are distinct writes
 * still waiting for a retry — what their callers hold anyway.
 */
import { TinyError } from "../../core/errors.ts";
import type { NodeUpdater } from "../../core/node.ts";
import type { State } from "../../core/state.ts";

/** Metadata key prefix of state entries (runtime-spec §4.6). */
export const STATE_PREFIX = "_state/";
/** Cap on the summed `len(key)+len(value)` of all `_state/*` entries, bytes (runtime-spec §4.6: 900 KiB). */
export const STATE_MAX_BYTES = 900 * 1024;
/** How long a written value shadows the stored metadata after its write, ms (runtime-spec §13.1: Go's 5 s pending TTL). */
export const STATE_OVERLAY_TTL_MS = 5000;

/** A write would push `_state/*` over {@link STATE_MAX_BYTES}. code `"STATE_TOO_LARGE"`. */
export class StateTooLargeError extends TinyError {
  constructor(node: string, key: string, total: number, cap: number) {
    super("STATE_TOO_LARGE", `node ${node}: state key ${JSON.stringify(key)} would make _state/* ${total} bytes, over the ${cap} byte cap`);
  }
}

/**
 * State keys that will not be persisted: the node was deleted, or it stopped and its last status
 * write did not succeed in time. code `"STATE_WRITE_FAILED"`. (A write that merely failed is
 * retried; its sets keep waiting.)
 */
export class StateWriteError extends TinyError {
  constructor(
    readonly node: string,
    readonly keys: readonly string[],
    reason: string,
  ) {
    const list = keys.map((k) => JSON.stringify(k)).join(", ");
    super("STATE_WRITE_FAILED", `node ${node}: state key${keys.length === 1 ? "" : "s"} ${list} not persisted: ${reason}`);
  }
}

/** Where a metadata-backed state reads the node's metadata and asks for its writes. */
export interface MetadataStore {
  /** Name of the node (for error messages). */
  readonly nodeName: string;
  /** The last known `status.metadata` of the node. */
  metadata(): Readonly<Record<string, string>>;
  /** Asks for the node's status write (runtime-spec §2.4, §2.9); it calls {@link MetadataState.takeWrites}. */
  requestWrite(): void;
}

/** The state writes one status write carries (see {@link MetadataState.takeWrites}). */
export interface StateWrites {
  /** Number of keys written or deleted. */
  readonly size: number;
  /** The keys (without the `_state/` prefix), in set order. */
  readonly keys: readonly string[];
  /** Applies the writes to `node.status.metadata`. */
  apply: NodeUpdater;
  /** The write succeeded: resolve the waiting sets, start the overlay TTL. */
  done(): void;
  /**
   * The write failed: put the entries back for the next (retried) write — an entry set again
   * since keeps its newer value, and its sets wait for that one — with their sets still waiting.
   */
  failed(): void;
  /** The entries can never be written (node deleted): reject the waiting sets, drop the entries. */
  dropped(reason: string): void;
}

/**
 * The promise the sets of one key before one write share, and how to settle it; `followers` are the
 * promises of earlier writes of the key that failed after it was set again (settled with this one).
 * Pre-handled: a set nobody awaits never becomes an unhandled rejection.
 */
interface Waiter {
  readonly promise: Promise<void>;
  resolve(): void;
  reject(err: Error): void;
  followers: Waiter[];
}

function waiter(): Waiter {
  const w = Promise.withResolvers<void>();
  w.promise.catch(() => {});
  return { ...w, followers: [] };
}

function settle(w: Waiter | undefined, err?: Error): void {
  if (!w) return;
  for (const x of [w, ...w.followers]) {
    if (err) x.reject(err);
    else x.resolve();
  }
  w.followers = [];
}

function rejected(err: unknown): Promise<void> {
  const p = Promise.reject(err);
  p.catch(() => {});
  return p;
}

/** A key not yet handed to a status write: its latest value (`null` = delete) and the promise of the sets waiting for it. */
interface Unwritten {
  value: string | null;
  waiter: Waiter | undefined;
}

/** A value shadowing the stored metadata; `at` = when its write succeeded (ms), undefined while not persisted (never expires). */
interface Overlay {
  value: string | null;
  at: number | undefined;
}

const enc = new TextEncoder();

function toBase64(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("base64");
}

/** {@link State} over node metadata (see the file comment for what a write promises). */
export class MetadataState implements State {
  /** key → value shadowing the stored metadata. */
  readonly #pending = new Map<string, Overlay>();
  /** key → entry not yet handed to a status write; latest wins. */
  #unwritten = new Map<string, Unwritten>();
  /** Set once the node stopped: later writes are refused with this reason. */
  #closed: string | undefined;

  constructor(
    readonly store: MetadataStore,
    readonly now: () => number = Date.now,
  ) {}

  #overlay(key: string): Overlay | undefined {
    const p = this.#pending.get(key);
    if (!p) return undefined;
    if (p.at !== undefined && this.now() - p.at > STATE_OVERLAY_TTL_MS) {
      this.#pending.delete(key);
      return undefined;
    }
    return p;
  }

  async get(key: string): Promise<Uint8Array | undefined> {
    const p = this.#overlay(key);
    const b64 = p ? p.value : this.store.metadata()[STATE_PREFIX + key];
    if (b64 === null || b64 === undefined) return undefined;
    return new Uint8Array(Buffer.from(b64, "base64"));
  }

  /**
   * Stores `value`; readable at once, resolves once persisted (file comment).
   * Rejects with {@link StateTooLargeError} past the cap (nothing stored), {@link StateWriteError}
   * when the write carrying it failed (kept, retried) or the node stopped.
   */
  set(key: string, value: Uint8Array | string): Promise<void> {
    try {
      return this.write(key, value);
    } catch (err) {
      return rejected(err);
    }
  }

  /** Removes `key`; idempotent. Settles like {@link set}. */
  delete(key: string): Promise<void> {
    try {
      return this.remove(key);
    } catch (err) {
      return rejected(err);
    }
  }

  /**
   * {@link set} with its refusals thrown now: validates and stages the value (readable at once) and
   * returns the promise of its persistence, for callers that must know the value was accepted but
   * need not wait for the write (the metadata step ledger, as Go's ledger returns once staged).
   * @throws StateTooLargeError past the cap; StateWriteError once the node stopped.
   */
  write(key: string, value: Uint8Array | string): Promise<void> {
    this.#refuseClosed(key);
    const bytes = typeof value === "string" ? enc.encode(value) : value;
    const b64 = toBase64(bytes);
    const mk = STATE_PREFIX + key;
    let total = 0;
    for (const [k, v] of this.#view()) if (k !== mk) total += k.length + v.length;
    total += mk.length + b64.length;
    if (total > STATE_MAX_BYTES) throw new StateTooLargeError(this.store.nodeName, key, total, STATE_MAX_BYTES);
    return this.#stage(key, b64);
  }

  /** {@link delete} with its refusal thrown now (see {@link write}). @throws StateWriteError once the node stopped. */
  remove(key: string): Promise<void> {
    this.#refuseClosed(key);
    return this.#stage(key, null);
  }

  #refuseClosed(key: string): void {
    if (this.#closed !== undefined) throw new StateWriteError(this.store.nodeName, [key], this.#closed);
  }

  #stage(key: string, value: string | null): Promise<void> {
    this.#pending.set(key, { value, at: undefined });
    let entry = this.#unwritten.get(key);
    if (entry) entry.value = value;
    else this.#unwritten.set(key, (entry = { value, waiter: undefined }));
    entry.waiter ??= waiter();
    this.store.requestWrite();
    return entry.waiter.promise;
  }

  /** Keys set or deleted and not yet handed to a status write (bounded by the number of distinct keys). */
  get unwrittenKeys(): number {
    return this.#unwritten.size;
  }

  /** The keys not yet handed to a status write, in set order. */
  unwritten(): string[] {
    return [...this.#unwritten.keys()];
  }

  /**
   * Hands the unwritten entries to the status write that is starting (the values read now, at write
   * time) and starts a new, empty set; undefined when there is nothing to write.
   */
  takeWrites(): StateWrites | undefined {
    if (this.#unwritten.size === 0) return undefined;
    const taken = this.#unwritten;
    this.#unwritten = new Map();
    const node = this.store.nodeName;
    return {
      size: taken.size,
      keys: [...taken.keys()],
      apply: (n) => {
        const status = (n.status ??= {});
        for (const [key, e] of taken) {
          const mk = STATE_PREFIX + key;
          if (e.value !== null) (status.metadata ??= {})[mk] = e.value;
          else if (status.metadata) delete status.metadata[mk];
        }
      },
      done: () => {
        const at = this.now();
        for (const [key, e] of taken) {
          settle(e.waiter);
          const p = this.#pending.get(key);
          if (p && p.at === undefined && p.value === e.value && !this.#unwritten.has(key)) p.at = at;
        }
      },
      failed: () => {
        for (const [key, e] of taken) {
          const newer = this.#unwritten.get(key);
          if (!newer) {
            this.#unwritten.set(key, e); // the same entry and promise: a retry adds nothing
            continue;
          }
          if (!e.waiter) continue;
          newer.waiter ??= waiter();
          newer.waiter.followers.push(e.waiter, ...e.waiter.followers);
          e.waiter.followers = [];
        }
      },
      dropped: (reason) => {
        const err = new StateWriteError(node, [...taken.keys()], reason);
        for (const [key, e] of taken) {
          settle(e.waiter, err);
          this.#forget(key, e.value);
        }
      },
    };
  }

  /**
   * The node stopped (runtime-spec §2.10): refuse later writes with `reason`, reject the sets still
   * waiting for entries no write took, and drop those entries.
   * @returns the keys dropped (the caller logs them: a loss is never silent).
   */
  close(reason: string): string[] {
    this.#closed = reason;
    const left = this.#unwritten;
    this.#unwritten = new Map();
    if (left.size === 0) return [];
    const err = new StateWriteError(this.store.nodeName, [...left.keys()], reason);
    for (const [key, e] of left) {
      settle(e.waiter, err);
      this.#forget(key, e.value);
    }
    return [...left.keys()];
  }

  /**
   * Takes over the overlay of `previous`, the state of the runner this one replaces (a component
   * reload): values it wrote moments ago may not be in the node this runner was created from yet
   * (the watch has not delivered the write), and would otherwise read as their old value. Each
   * shadows the stored metadata for {@link STATE_OVERLAY_TTL_MS} from now, as a fresh write does.
   */
  adopt(previous: MetadataState): void {
    const at = this.now();
    for (const key of [...previous.#pending.keys()]) {
      const p = previous.#overlay(key);
      if (p && !this.#pending.has(key)) this.#pending.set(key, { value: p.value, at });
    }
  }

  /** Drops the overlay of `key` when it still shows `value` and no newer set is waiting. */
  #forget(key: string, value: string | null): void {
    const p = this.#pending.get(key);
    if (p && p.value === value && p.at === undefined && !this.#unwritten.has(key)) this.#pending.delete(key);
  }

  async list(prefix = ""): Promise<string[]> {
    const out: string[] = [];
    for (const k of this.#view().keys()) {
      const key = k.slice(STATE_PREFIX.length);
      if (key.startsWith(prefix)) out.push(key);
    }
    return out.sort();
  }

  /** Stored `_state/*` entries with pending writes and tombstones applied (metadata key → base64). */
  #view(): Map<string, string> {
    const view = new Map<string, string>();
    for (const [k, v] of Object.entries(this.store.metadata())) if (k.startsWith(STATE_PREFIX)) view.set(k, v);
    for (const key of [...this.#pending.keys()]) {
      const p = this.#overlay(key);
      if (!p) continue;
      if (p.value === null) view.delete(STATE_PREFIX + key);
      else view.set(STATE_PREFIX + key, p.value);
    }
    return view;
  }
}
