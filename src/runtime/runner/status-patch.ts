/**
 * The one builder of a TinyNode status patch, used by both writers of runtime-owned status fields:
 * the reconciler's write (src/k8s/controllers/node-status.ts) and the runner's debounced write
 * (./status-publisher.ts). Go's `TinyNodeStatus.Error` is `json:"error,omitempty"`
 * (api/v1alpha1/tinynode_types.go): a node without an error has no `error` field at all, so `false`
 * travels as `null` (RFC 7386: removes a stored `true`, a no-op otherwise) and `true` is written.
 */
import type { TinyNodeStatus } from "../../core/node.ts";

/** `T` as a status merge patch: `error` is `true` or `null` (the field removed), never `false`. */
export type StatusPatch<T extends { error?: boolean }> = Omit<T, "error"> & { error: true | null };

/** The merge patch that writes `owned`, its keys in `owned`'s order (Go's `error,omitempty` rule, see the file comment). */
export function statusPatch<T extends { error?: boolean }>(owned: T): StatusPatch<T> {
  return { ...owned, error: owned.error ? true : null };
}

/**
 * `status` with `patch` merged in at the top level (RFC 7386 as the apiserver applies a status merge
 * patch): a `null` value removes the field, any other value replaces it. Returns a new object.
 */
export function applyStatusPatch(status: TinyNodeStatus | undefined, patch: Readonly<Record<string, unknown>>): TinyNodeStatus {
  const out: Record<string, unknown> = { ...status };
  for (const [k, v] of Object.entries(patch)) {
    if (v === null) delete out[k];
    else out[k] = v;
  }
  return out as TinyNodeStatus;
}
