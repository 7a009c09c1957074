/**
 * patchNode: change a TinyNode's status from its newest version (runtime-spec §7.3 `PatchNode`).
 * GET the node, run the updater on a copy, and when the status differs send a JSON merge patch of
 * the `status` subresource. The patch carries the resourceVersion that was read, so a write that
 * raced in fails with 409 and the updater runs again on the newer node (Go's `MergeFrom` patch has
 * no such check and can overwrite a concurrent status change; docs/compatibility.md).
 */
import { isDeepStrictEqual } from "node:util";
import { isConflict } from "../client/index.ts";
import type { TinyNode } from "../api/index.ts";
import type { CrdApi } from "./crd-api.ts";
import { ConflictRetriesExhaustedError } from "./errors.ts";
import { createMergePatch } from "./merge-patch.ts";
import { DEFAULT_CONFLICT_ATTEMPTS } from "./read-modify-write.ts";

/**
 * Changes a node in place or returns a changed copy; only `status` changes are persisted.
 * May run more than once (after a conflict), always on a fresh copy.
 */
export type NodeUpdater = (node: TinyNode) => TinyNode | void | Promise<TinyNode | void>;

/** Result of {@link patchNode}. */
export interface PatchNodeResult {
  /** The node as stored afterwards. */
  node: TinyNode;
  /** False when the updater left the status unchanged and no request was sent. */
  patched: boolean;
}

/**
 * GET → updater on a deep copy → status deep-equal: no request; else merge patch of `status`
 * (with `metadata.resourceVersion`) → on 409 start over.
 * @param nodes - TinyNode calls. @param name - node name. @param namespace - node namespace.
 * @param attempts - max attempts on conflicts; default 20.
 * @throws KubeApiError (`isNotFound` when the node is gone); ConflictRetriesExhaustedError; what the updater throws.
 */
export async function patchNode(
  nodes: CrdApi<TinyNode>,
  name: string,
  namespace: string,
  updater: NodeUpdater,
  attempts = DEFAULT_CONFLICT_ATTEMPTS,
): Promise<PatchNodeResult> {
  let last: unknown;
  for (let attempt = 1; attempt <= attempts; attempt++) {
    const fresh = await nodes.get(name, namespace);
    const copy = structuredClone(fresh);
    const updated = (await updater(copy)) ?? copy;
    if (isDeepStrictEqual(fresh.status, updated.status)) return { node: fresh, patched: false };
    const status = createMergePatch(fresh.status, updated.status) ?? null;
    try {
      const node = await nodes.mergePatch(name, namespace, { metadata: { resourceVersion: fresh.metadata.resourceVersion }, status }, "status");
      return { node, patched: true };
    } catch (e) {
      if (!isConflict(e)) throw e;
      last = e;
      await Bun.sleep(Math.random() * 10 * attempt);
    }
  }
  throw new ConflictRetriesExhaustedError(`TinyNode ${namespace}/${name} status`, attempts, last);
}
