/** The objects the controllers watch, typed for the REST client and the controller runtime. */
import { TINY_MODULE_RESOURCE, TINY_NODE_RESOURCE, type TinyModule, type TinyNode } from "../../core/api/index.ts";
import { defineResource, type ResourceDescriptor } from "../client/index.ts";

/** A TinyModule as the TinyModule controller sees it: the CRD type itself (an alias, so its importers need no change). */
export type WatchedModule = TinyModule;

/** `operator.tinysystems.io/v1alpha1` tinynodes, typed for the REST client. */
export const tinyNodes: ResourceDescriptor<TinyNode> = defineResource<TinyNode>(TINY_NODE_RESOURCE);

/** `operator.tinysystems.io/v1alpha1` tinymodules, typed for the REST client. */
export const tinyModules: ResourceDescriptor<WatchedModule> = defineResource<WatchedModule>(TINY_MODULE_RESOURCE);
