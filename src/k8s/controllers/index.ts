/**
 * The module's controllers (runtime-spec §5): TinyNode (runners on every replica, status by the
 * leader) and TinyModule (own status by the leader, other modules' addresses into the gRPC pool),
 * plus the status sink for component-driven node writes.
 */
export {
  tinyNodeReconciler,
  LEADER_REQUEUE_MS,
  FOLLOWER_REQUEUE_MS,
  type NodeScheduler,
  type TinyNodeReconciler,
  type TinyNodeReconcilerOptions,
  type TinyNodeReconcilerStats,
} from "./tinynode.ts";
export {
  tinyNodeController,
  CONTROLLER_STOP_TIMEOUT_MS,
  DEFAULT_NODE_WORKERS,
  type TinyNodeController,
  type TinyNodeControllerOptions,
} from "./tinynode-controller.ts";
export {
  tinyModuleReconciler,
  type ModuleAddressBook,
  type TinyModuleReconciler,
  type TinyModuleReconcilerOptions,
  type TinyModuleReconcilerStats,
} from "./tinymodule.ts";
export {
  ownedNodeStatus,
  ownedStatusChanged,
  heartbeatDue,
  formatTime,
  nodeStatusPatch,
  type ModuleInfo,
  type OwnedNodeStatus,
  type NodeStatusPatch,
} from "./node-status.ts";
export { componentStatuses, moduleStatus } from "./module-status.ts";
export { kubeStatusSink, type NodePatcher } from "./status-sink.ts";
export { kubeModuleApi, type TinyModuleApi } from "./api.ts";
export { tinyNodes, tinyModules, type WatchedModule } from "./types.ts";
