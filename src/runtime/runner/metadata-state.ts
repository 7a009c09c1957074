/**
 * Node-scope {@link State} kept in `status.metadata` (runtime-spec §1.8, §4.6): key `k` lives at
 * `status.metadata["_state/" + k]` as standard base64 of the bytes. Writes go through node updaters
 * (the debounced status patch); a pending overlay gives read-your-writes until the patched node comes
 * back (5 s, as in Go). Total `_state/*` size (key + value lengths) is capped at 900 KiB.
 * Writes coalesce per key: a burst of N sets of one key is one entry (its latest value), taken by the
 * node's status write when that write starts ({@link MetadataState.takeWrites}) — not N queued
 * updaters each holding its own copy (the cluster-path growth of issue 19).
 */
import { TinyError } from "../../sdk/errors.ts";
import type { NodeUpdater } from "../../sdk/node.ts";
import type { State } from "../../sdk/state.ts";

/** Metadata key prefix of state entries (runtime-spec §4.6). */
export const STATE_PREFIX = "_state/";
/** Cap on the summed `len(key)+len(value)` of all `_state/*` entries, bytes (runtime-spec §4.6: 900 KiB). */
export const STATE_MAX_BYTES = 900 * 1024;
/** How long a pending write shadows the stored metadata, ms (runtime-spec §13.1). */
export const STATE_OVERLAY_TTL_MS = 5000;

/** A write would push `_state/*` over {@link STATE_MAX_BYTES}. code `"STATE_TOO_LARGE"`. */
export class StateTooLargeError extends TinyError {
  constructor(node: string, key: string, total: number, cap: number) {
    super("STATE_TOO_LARGE", `node ${node}: state key ${JSON.stringify(key)} would make _state/* ${total} bytes, over the ${cap} byte cap`);
  }
}

/** Where a metadata-backed state reads the node's metadata and sends its updaters. */
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
  /** Applies the writes to `node.status.metadata`. */
  apply: NodeUpdater;
  /** The status write failed: put back the entries not written again since (the next write sends them). */
  restore(): void;
}

const enc = new TextEncoder();

function toBase64(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("base64");
}

/** {@link State} over node metadata. Rejects with {@link StateTooLargeError} past the cap. */
export class MetadataState implements State {
  /** key → pending base64 value (`null` = tombstone) and when it was written (ms). */
  readonly #pending = new Map<string, { value: string | null; at: number }>();
  /** metadata key → base64 value (`null` = delete) not yet handed to a status write; latest wins. */
  #unwritten = new Map<string, string | null>();

  constructor(
    readonly store: MetadataStore,
    readonly now: () => number = Date.now,
  ) {}

  #overlay(key: string): { value: string | null } | undefined {
    const p = this.#pending.get(key);
    if (!p) return undefined;
    if (this.now() - p.at > STATE_OVERLAY_TTL_MS) {
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

  async set(key: string, value: Uint8Array | string): Promise<void> {
    const bytes = typeof value === "string" ? enc.encode(value) : value;
    const b64 = toBase64(bytes);
    const mk = STATE_PREFIX + key;
    const view = this.#view();
    let total = 0;
    for (const [k, v] of view) if (k !== mk) total += k.length + v.length;
    total += mk.length + b64.length;
    if (total > STATE_MAX_BYTES) throw new StateTooLargeError(this.store.nodeName, key, total, STATE_MAX_BYTES);
    this.#pending.set(key, { value: b64, at: this.now() });
    this.#unwritten.set(mk, b64);
    this.store.requestWrite();
  }

  async delete(key: string): Promise<void> {
    const mk = STATE_PREFIX + key;
    this.#pending.set(key, { value: null, at: this.now() });
    this.#unwritten.set(mk, null);
    this.store.requestWrite();
  }

  /** Keys set or deleted since the last {@link takeWrites} (bounded by the number of distinct keys). */
  get unwrittenKeys(): number {
    return this.#unwritten.size;
  }

  /**
   * Hands the unwritten entries to the status write that is starting (the values read now, at write
   * time) and starts a new, empty set; undefined when there is nothing to write.
   */
  takeWrites(): StateWrites | undefined {
    if (this.#unwritten.size === 0) return undefined;
    const taken = this.#unwritten;
    this.#unwritten = new Map();
    return {
      size: taken.size,
      apply: (node) => {
        const status = (node.status ??= {});
        for (const [mk, b64] of taken) {
          if (b64 !== null) (status.metadata ??= {})[mk] = b64;
          else if (status.metadata) delete status.metadata[mk];
        }
      },
      restore: () => {
        for (const [mk, b64] of taken) if (!this.#unwritten.has(mk)) this.#unwritten.set(mk, b64);
      },
    };
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
