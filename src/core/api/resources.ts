/**
 * REST resource descriptors of the seven CRDs: what a client needs to build a URL
 * (`/apis/<group>/<version>/namespaces/<ns>/<plural>`). runtime-spec §8.
 */
import { GROUP, KIND, PLURAL, VERSION, type TinyKind } from "./constants.ts";
import type { KubeObject } from "./meta.ts";

/**
 * Where a kind lives on the API server and, through `T`, the object type its calls return.
 * Rule: the API path is `/api/{version}` for the core group (group "") and
 * `/apis/{group}/{version}` otherwise, then `/namespaces/{ns}` when namespaced, then `/{plural}`
 * (Kubernetes docs, "API Concepts").
 */
export interface ResourceDescriptor<T extends KubeObject = KubeObject> {
  /** API group, e.g. `operator.tinysystems.io` (empty string for the core group). */
  readonly group: string;
  /** API version, e.g. `v1alpha1`. */
  readonly version: string;
  /** URL plural, e.g. `tinynodes`. */
  readonly plural: string;
  /** True for namespaced kinds (all TinySystems CRDs). */
  readonly namespaced: boolean;
  /** Kind, e.g. `TinyNode`. */
  readonly kind: string;
  /** Type-only marker carrying `T`; never set at run time. */
  readonly __object?: T;
}

function descriptor(kind: TinyKind): ResourceDescriptor {
  return Object.freeze({ group: GROUP, version: VERSION, plural: PLURAL[kind], namespaced: true, kind });
}

/** TinyNode resource. */
export const TINY_NODE_RESOURCE: ResourceDescriptor = descriptor(KIND.TinyNode);
/** TinyModule resource. */
export const TINY_MODULE_RESOURCE: ResourceDescriptor = descriptor(KIND.TinyModule);
/** TinyFlow resource. */
export const TINY_FLOW_RESOURCE: ResourceDescriptor = descriptor(KIND.TinyFlow);
/** TinyProject resource. */
export const TINY_PROJECT_RESOURCE: ResourceDescriptor = descriptor(KIND.TinyProject);
/** TinyWidgetPage resource. */
export const TINY_WIDGET_PAGE_RESOURCE: ResourceDescriptor = descriptor(KIND.TinyWidgetPage);
/** TinyScenario resource. */
export const TINY_SCENARIO_RESOURCE: ResourceDescriptor = descriptor(KIND.TinyScenario);
/** TinyComponent resource. */
export const TINY_COMPONENT_RESOURCE: ResourceDescriptor = descriptor(KIND.TinyComponent);

/** All seven descriptors keyed by kind. */
export const RESOURCES: Readonly<Record<TinyKind, ResourceDescriptor>> = Object.freeze({
  TinyNode: TINY_NODE_RESOURCE,
  TinyModule: TINY_MODULE_RESOURCE,
  TinyFlow: TINY_FLOW_RESOURCE,
  TinyProject: TINY_PROJECT_RESOURCE,
  TinyWidgetPage: TINY_WIDGET_PAGE_RESOURCE,
  TinyScenario: TINY_SCENARIO_RESOURCE,
  TinyComponent: TINY_COMPONENT_RESOURCE,
});
