/**
 * The scheduler's {@link StatusSink} on Kubernetes: a runner's debounced status write (component
 * metadata/`_state`, port refresh; runtime-spec §2.4, §2.9, §14.6) becomes the resource manager's
 * `patchNode` — GET, apply, resourceVersion-guarded merge patch of the status subresource, retried
 * on 409. Any replica writes, as in Go. A node deleted meanwhile is not an error.
 */
import { isNotFound } from "../client/index.ts";
import type { TinyNode } from "../api/index.ts";
import type { StatusSink } from "../../runtime/runner/runner.ts";

/** The patch call the sink needs: the resource manager's `nodes.patch(name, updater)`. */
export type NodePatcher = (name: string, updater: (node: TinyNode) => void) => Promise<unknown>;

/** Builds the sink over `patch`. */
export function kubeStatusSink(patch: NodePatcher): StatusSink {
  return {
    async patchStatus(nodeName, mutate) {
      try {
        await patch(nodeName, (node) => mutate(node as TinyNode));
      } catch (err) {
        if (!isNotFound(err)) throw err;
      }
    },
  };
}
