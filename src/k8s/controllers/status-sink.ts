/**
 * The scheduler's {@link StatusSink} on Kubernetes: a runner's debounced status write (component
 * metadata/`_state`, port refresh; runtime-spec §2.4, §2.9, §14.6) becomes the resource manager's
 * `patchNode` — apply to the newest node known, resourceVersion-guarded merge patch of the status
 * subresource, on 409 read and retry. "Newest known" is the TinyNode informer's copy when the sink
 * has one ({@link NodeLookup}): one request per write instead of GET + PATCH (under
 * traffic the GETs were half the apiserver requests). Any replica writes, as in Go. A node deleted
 * meanwhile (404) is not an error: the sink answers `"gone"`, so the runner stops writing instead of
 * retrying forever; any other failure rejects and is retried by the runner.
 */
import { isNotFound } from "../client/index.ts";
import type { TinyNode } from "../../core/api/index.ts";
import type { StatusSink } from "../../runtime/runner/runner.ts";

/**
 * The patch call the sink needs: `patchNode` (src/k8s/resources/patch-node.ts) or the resource
 * manager's `nodes.patch(name, updater)`; `current` = the node as last seen, or undefined (GET first).
 */
export type NodePatcher = (name: string, updater: (node: TinyNode) => void, current: TinyNode | undefined) => Promise<unknown>;

/** The node named `name` as the module last saw it (the TinyNode informer's store), or undefined. */
export type NodeLookup = (name: string) => TinyNode | undefined;

/** Builds the sink over `patch`; `lookup` supplies the first attempt's node (absent: always GET). */
export function kubeStatusSink(patch: NodePatcher, lookup?: NodeLookup): StatusSink {
  return {
    async patchStatus(nodeName, mutate) {
      try {
        await patch(nodeName, (node) => mutate(node as TinyNode), lookup?.(nodeName));
      } catch (err) {
        if (!isNotFound(err)) throw err;
        return "gone";
      }
    },
  };
}
