/**
 * The CRD calls the helpers share, bound to one client (runtime-spec §8 kinds).
 */
import {
  TINY_FLOW_RESOURCE,
  TINY_MODULE_RESOURCE,
  TINY_PROJECT_RESOURCE,
  TINY_SCENARIO_RESOURCE,
  TINY_WIDGET_PAGE_RESOURCE,
  type TinyFlow,
  type TinyModule,
  type TinyProject,
  type TinyScenario,
  type TinyWidgetPage,
} from "../../core/api/index.ts";
import type { KubeClient } from "../client/index.ts";
import { crdApi, type CrdApi } from "./crd-api.ts";

/** Typed calls per TinySystems kind (TinyNodes have their own API: node-api.ts). */
export interface Kinds {
  flows: CrdApi<TinyFlow>;
  projects: CrdApi<TinyProject>;
  pages: CrdApi<TinyWidgetPage>;
  scenarios: CrdApi<TinyScenario>;
  modules: CrdApi<TinyModule>;
}

/** Binds every kind to `kube`. */
export function bindKinds(kube: KubeClient): Kinds {
  return {
    flows: crdApi<TinyFlow>(kube, TINY_FLOW_RESOURCE),
    projects: crdApi<TinyProject>(kube, TINY_PROJECT_RESOURCE),
    pages: crdApi<TinyWidgetPage>(kube, TINY_WIDGET_PAGE_RESOURCE),
    scenarios: crdApi<TinyScenario>(kube, TINY_SCENARIO_RESOURCE),
    modules: crdApi<TinyModule>(kube, TINY_MODULE_RESOURCE),
  };
}
