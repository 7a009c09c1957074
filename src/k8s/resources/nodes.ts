/**
 * The {@link TinyNodeApi} through the REST client (runtime-spec §7.3). A created node gets its
 * TinyFlow (from the `tinysystems.io/flow-name` label) as controlling owner, so deleting the flow
 * garbage-collects its nodes.
 */
import { FLOW_NAME_LABEL, KIND, PROJECT_NAME_LABEL, TINY_NODE_RESOURCE, type TinyNode } from "../../core/api/index.ts";
import type { WatchEvent, KubeObject } from "../client/index.ts";
import type { KubeClient } from "../client/index.ts";
import { crdApi } from "./crd-api.ts";
import { bindKinds, type Kinds } from "./kinds.ts";
import { requireText } from "./names.ts";
import type { TinyNodeApi } from "./node-api.ts";
import { ownerReferenceTo } from "./owner.ts";
import { patchNode } from "./patch-node.ts";
import { labelSelector } from "./release.ts";

/**
 * The {@link TinyNodeApi} through the REST client; `namespace` is the default of every call.
 * @param kinds - the CRD calls for the flow owner lookup (bound to `kube` when omitted).
 */
export function tinyNodeApi(kube: KubeClient, namespace: string, kinds: Pick<Kinds, "flows"> = bindKinds(kube)): TinyNodeApi {
  const ns = (n?: string) => n || namespace;
  const nodes = crdApi<TinyNode>(kube, TINY_NODE_RESOURCE);
  const flowSelector = (project: string, flow: string) =>
    labelSelector({ [PROJECT_NAME_LABEL]: requireText("project", project), [FLOW_NAME_LABEL]: requireText("flow", flow) });
  const api: TinyNodeApi = {
    get: (name, namespace) => nodes.get(requireText("name", name), ns(namespace)),
    async create(node) {
      const namespace = ns(node?.metadata?.namespace);
      const flow = node.metadata.labels?.[FLOW_NAME_LABEL];
      const metadata = { ...node.metadata, namespace };
      if (flow) metadata.ownerReferences = [await ownerReferenceTo(kinds.flows, KIND.TinyFlow, flow, namespace)];
      return nodes.create({ ...node, metadata } as TinyNode, namespace); // the apiserver completes a generateName
    },
    update: (node) => nodes.update(node, ns(node?.metadata?.namespace)),
    delete: (name, namespace) => nodes.delete(requireText("name", name), ns(namespace)),
    setFinalizers: (name, resourceVersion, finalizers, namespace) => nodes.mergePatch(name, ns(namespace), { metadata: { resourceVersion, finalizers } }),
    patchStatus: (name, resourceVersion, status, namespace) => nodes.mergePatch(name, ns(namespace), { metadata: { resourceVersion }, status }, "status"),
    patch: (name, updater, namespace, current) => patchNode(api, requireText("name", name), ns(namespace), updater, current),
    listByProject: (project, namespace) => nodes.list(ns(namespace), labelSelector({ [PROJECT_NAME_LABEL]: requireText("project", project) })),
    listByFlow: (project, flow, namespace) => nodes.list(ns(namespace), flowSelector(project, flow)),
    deleteByFlow: (project, flow, namespace) => nodes.deleteAll(ns(namespace), flowSelector(project, flow)),
    watchByProject(project, options = {}) {
      const events = kube.watch<KubeObject>(nodes.resource, {
        namespace: ns(options.namespace),
        labelSelector: labelSelector({ [PROJECT_NAME_LABEL]: requireText("project", project) }),
        ...(options.resourceVersion ? { resourceVersion: options.resourceVersion } : {}),
        ...(options.signal ? { signal: options.signal } : {}),
      });
      return events as AsyncIterable<WatchEvent<TinyNode>>;
    },
  };
  return api;
}
