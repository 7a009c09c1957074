/**
 * Per-node key/value state (runtime-spec §1.8). The node-scope backend keeps each key at
 * `status.metadata["_state/" + key]` as base64 of the bytes (runtime-spec §4.6).
 */

/** Key/value bytes persisted with the node. All methods may reject with a `TinyError`. */
export interface State {
  /** The bytes stored at `key`, or `undefined` when absent. */
  get(key: string): Promise<Uint8Array | undefined>;
  /** Stores `value` (strings are UTF-8 encoded). Rejects with code `STATE_TOO_LARGE` past the cap. */
  set(key: string, value: Uint8Array | string): Promise<void>;
  /** Removes `key`; idempotent. */
  delete(key: string): Promise<void>;
  /** Keys starting with `prefix`, sorted ascending. */
  list(prefix?: string): Promise<string[]>;
}
