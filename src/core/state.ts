/**
 * Per-node key/value state (runtime-spec §1.8). The node-scope backend keeps each key at
 * `status.metadata["_state/" + key]` as base64 of the bytes (runtime-spec §4.6).
 */

/** Key/value bytes persisted with the node. All methods may reject with a `TinyError`. */
export interface State {
  /** The bytes stored at `key`, or `undefined` when absent. */
  get(key: string): Promise<Uint8Array | undefined>;
  /**
   * Stores `value` (strings are UTF-8 encoded), readable at once. Resolves once the node's status
   * write carrying it succeeded (up to the 1 s status window plus one apiserver write; a failing
   * write is retried and the promise keeps waiting). Rejects with code `STATE_TOO_LARGE` past the
   * 900 KiB cap (nothing stored), `STATE_WRITE_FAILED` when it can no longer be written (the node
   * was deleted, or it stopped before a write succeeded). Not awaiting it is safe: it is still
   * written, and a rejection nobody handles never crashes the process. docs/authoring.md "State".
   */
  set(key: string, value: Uint8Array | string): Promise<void>;
  /** Removes `key`; idempotent. Settles like {@link set}. */
  delete(key: string): Promise<void>;
  /** Keys starting with `prefix`, sorted ascending. */
  list(prefix?: string): Promise<string[]>;
}
