/**
 * patchNode: change a TinyNode's status from its newest version (runtime-spec §7.3 `PatchNode`).
 * GET the node, run the updater on a copy, and when the status differs send a JSON merge patch of
 * the `status` subresource. The patch carries the resourceVersion that was read, so a write that
 * raced in fails with 409 and the updater runs again on the newer node (`retryOnConflict`; Go's
 * `MergeFrom` patch has no such check and can overwrite a concurrent status change;
 * docs/compatibility.md).
 */
import { isDeepStrictEqual } from "node:util";
import { retryOnConflict } from "../client/index.ts";
import type { TinyNode } from "../../core/api/index.ts";
import type { NodeUpdater } from "../../core/node.ts";
import { createMergePatch } from "./merge-patch.ts";
import type { NodeStatusMergePatch, PatchNodeResult, TinyNodeApi } from "./node-api.ts";

/**
 * GET → updater on a deep copy → status deep-equal: no request; else merge patch of `status`
 * (with `metadata.resourceVersion`) → on 409 start over (policy: `CONFLICT_RETRY`).
 * @param nodes - the TinyNode GET and status patch. @param name - node name. @param namespace - node namespace.
 * @param updater - may run more than once (after a conflict), always on a fresh copy.
 * @param current - the node as last seen (the informer cache's copy): the first attempt works on it
 *   instead of a GET; when it is stale the write meets 409 and the retry reads the node. Not changed.
 * @throws KubeApiError (`isNotFound` when the node is gone); ConflictRetriesExhaustedError; what the updater throws.
 */
export async function patchNode(
  nodes: Pick<TinyNodeApi, "get" | "patchStatus">,
  name: string,
  namespace: string,
  updater: NodeUpdater,
  current?: TinyNode,
): Promise<PatchNodeResult> {
  const out = await retryOnConflict<TinyNode>({
    what: `TinyNode ${namespace}/${name} status`,
    ...(current ? { current } : {}),
    read: () => nodes.get(name, namespace),
    write: async (fresh) => {
      const copy = structuredClone(fresh);
      const updated = (await updater(copy)) ?? copy;
      if (isDeepStrictEqual(fresh.status, updated.status)) return undefined;
      const status = (createMergePatch(fresh.status, updated.status) ?? null) as NodeStatusMergePatch;
      // A stored node always has a resourceVersion; without one JSON drops the key and the patch is unguarded.
      return nodes.patchStatus(name, fresh.metadata.resourceVersion as string, status, namespace);
    },
  });
  return { node: out.object, patched: out.written };
}
