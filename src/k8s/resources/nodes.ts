/**
 * TinyNode helpers (runtime-spec §7.3): get/create/update/delete, status patches, listing by
 * project and flow. A created node gets its TinyFlow (from the `tinysystems.io/flow-name` label)
 * as controlling owner, so deleting the flow garbage-collects its nodes.
 */
import { FLOW_NAME_LABEL, KIND, PROJECT_NAME_LABEL, type NewTinyNode, type TinyNode } from "../../core/api/index.ts";
import type { WatchEvent, KubeObject } from "../client/index.ts";
import type { Kinds } from "./kinds.ts";
import { requireText } from "./names.ts";
import { ownerReferenceTo } from "./owner.ts";
import type { NodeUpdater } from "../../core/node.ts";
import { patchNode, type PatchNodeResult } from "./patch-node.ts";
import { labelSelector } from "./release.ts";
import type { KubeClient } from "../client/index.ts";

/** TinyNode helpers; `namespace` defaults to the manager namespace everywhere. */
export interface NodeHelpers {
  /** Go `GetNode`: GET one node. @throws KubeApiError (`isNotFound`). */
  get(name: string, namespace?: string): Promise<TinyNode>;
  /**
   * Go `CreateNode`: creates the node (name or generateName required; see `generateNodeName`).
   * With a `tinysystems.io/flow-name` label, the owner references become exactly one controlling
   * reference to that TinyFlow (`controller: true`, `blockOwnerDeletion: true`).
   * @throws OwnerLookupError when the flow cannot be read; KubeApiError.
   */
  create(node: NewTinyNode): Promise<TinyNode>;
  /** Go `UpdateNode`: PUT (compare-and-swap on resourceVersion). @throws KubeApiError (`isConflict`). */
  update(node: TinyNode): Promise<TinyNode>;
  /** Go `DeleteNode`. @throws KubeApiError (`isNotFound`). */
  delete(name: string, namespace?: string): Promise<void>;
  /** Go `PatchNode`: status change from the newest node; see patch-node.ts. */
  patch(name: string, updater: NodeUpdater, namespace?: string): Promise<PatchNodeResult>;
  /** Go `GetProjectNodes`: nodes labelled with the project. */
  listByProject(project: string, namespace?: string): Promise<TinyNode[]>;
  /** Go `GetProjectFlowNodes`: nodes labelled with the project and the flow. */
  listByFlow(project: string, flow: string, namespace?: string): Promise<TinyNode[]>;
  /** Go `DeleteFlowNodes`: deletes every node labelled with the project and the flow (one deletecollection). */
  deleteByFlow(project: string, flow: string, namespace?: string): Promise<void>;
  /** Go `WatchNodes`: watch events of the project's nodes until the signal aborts. */
  watchByProject(project: string, options?: { namespace?: string; resourceVersion?: string; signal?: AbortSignal }): AsyncIterable<WatchEvent<TinyNode>>;
}

/** Builds the node helpers for a client and manager namespace. */
export function nodeHelpers(kube: KubeClient, kinds: Kinds, managerNamespace: string): NodeHelpers {
  const ns = (n?: string) => n || managerNamespace;
  const flowSelector = (project: string, flow: string) =>
    labelSelector({ [PROJECT_NAME_LABEL]: requireText("project", project), [FLOW_NAME_LABEL]: requireText("flow", flow) });
  return {
    get: (name, namespace) => kinds.nodes.get(requireText("name", name), ns(namespace)),
    async create(node) {
      const namespace = ns(node?.metadata?.namespace);
      const flow = node.metadata.labels?.[FLOW_NAME_LABEL];
      const metadata = { ...node.metadata, namespace };
      if (flow) metadata.ownerReferences = [await ownerReferenceTo(kinds.flows, KIND.TinyFlow, flow, namespace)];
      return kinds.nodes.create({ ...node, metadata } as TinyNode, namespace); // the apiserver completes a generateName
    },
    update: (node) => kinds.nodes.update(node, ns(node?.metadata?.namespace)),
    delete: (name, namespace) => kinds.nodes.delete(requireText("name", name), ns(namespace)),
    patch: (name, updater, namespace) => patchNode(kinds.nodes, requireText("name", name), ns(namespace), updater),
    listByProject: (project, namespace) => kinds.nodes.list(ns(namespace), labelSelector({ [PROJECT_NAME_LABEL]: requireText("project", project) })),
    listByFlow: (project, flow, namespace) => kinds.nodes.list(ns(namespace), flowSelector(project, flow)),
    deleteByFlow: (project, flow, namespace) => kinds.nodes.deleteAll(ns(namespace), flowSelector(project, flow)),
    watchByProject(project, options = {}) {
      const events = kube.watch<KubeObject>(kinds.nodes.resource, {
        namespace: ns(options.namespace),
        labelSelector: labelSelector({ [PROJECT_NAME_LABEL]: requireText("project", project) }),
        ...(options.resourceVersion ? { resourceVersion: options.resourceVersion } : {}),
        ...(options.signal ? { signal: options.signal } : {}),
      });
      return events as AsyncIterable<WatchEvent<TinyNode>>;
    },
  };
}
