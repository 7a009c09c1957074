/**
 * The TinyNode as components and the runtime see it: the CRD types of src/core/api/v1alpha1.ts (one
 * definition for the controllers, the resource manager, the runners and component authors;
 * runtime-spec §8), plus the node identity and labels a component reads.
 */

export type {
  TinyNode,
  TinyNodeSpec,
  TinyNodeStatus,
  TinyNodeEdge,
  TinyNodePortConfig,
  TinyNodePortStatus,
  TinyNodeModuleStatus,
  TinyNodeComponentStatus,
  RetryPolicy,
} from "./api/v1alpha1.ts";
import type { TinyNode } from "./api/v1alpha1.ts";

/** Node identity handed to `onIdentity` (runtime-spec §1.4 `NodeIdentity`; JSON names match Go). */
export interface NodeIdentity {
  nodeName: string;
  namespace: string;
  flowName: string;
  projectName: string;
}

/** Label carrying the flow name (runtime-spec §8). */
export const LABEL_FLOW_NAME = "tinysystems.io/flow-name";
/** Label carrying the project name (runtime-spec §8). */
export const LABEL_PROJECT_NAME = "tinysystems.io/project-name";

/**
 * A change to a TinyNode's status: changes `node` in place or returns a changed copy, and may be
 * async. Only `status` is kept. It may run more than once (after a 409 Conflict), always on a fresh
 * copy of the newest node. Used by a component's `_reconcile` emit (runtime-spec §2.4: applied in
 * the runner's debounced status patch) and by the resource manager's `nodes.patch` (§7.3 `PatchNode`).
 */
export type NodeUpdater = (node: TinyNode) => TinyNode | void | Promise<TinyNode | void>;
