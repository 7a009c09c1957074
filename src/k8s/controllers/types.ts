/**
 * The objects the controllers watch, typed for the REST client and the controller runtime (whose
 * `KubeObject` types `managedFields` more loosely than src/core/api does; the wire shapes agree).
 */
import {
  TINY_MODULE_RESOURCE,
  TINY_NODE_RESOURCE,
  type TinyModuleSpec,
  type TinyModuleStatus,
  type TinyNode,
} from "../../core/api/index.ts";
import { defineResource, type KubeObject, type ResourceDescriptor } from "../client/index.ts";


/** A TinyModule as the TinyModule controller sees it (runtime-spec §8). */
export interface WatchedModule extends KubeObject {
  spec?: TinyModuleSpec;
  status?: TinyModuleStatus;
}

/** `operator.tinysystems.io/v1alpha1` tinynodes, typed for the REST client. */
export const tinyNodes: ResourceDescriptor<TinyNode> = defineResource<TinyNode>(TINY_NODE_RESOURCE);

/** `operator.tinysystems.io/v1alpha1` tinymodules, typed for the REST client. */
export const tinyModules: ResourceDescriptor<WatchedModule> = defineResource<WatchedModule>(TINY_MODULE_RESOURCE);
