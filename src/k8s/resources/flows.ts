/**
 * TinyFlow helpers (runtime-spec §7.3): a flow carries its project in the
 * `tinysystems.io/project-name` label, its display name in `tinysystems.io/flow-description`, and
 * the TinyProject as controlling owner.
 */
import { FLOW_DESCRIPTION_ANNOTATION, KIND, PROJECT_NAME_LABEL, type TinyFlow } from "../../core/api/index.ts";
import type { Kinds } from "./kinds.ts";
import { generateNameFor, requireText } from "./names.ts";
import { ownerReferenceTo } from "./owner.ts";
import { labelSelector } from "./release.ts";

/** TinyFlow helpers; `namespace` defaults to the manager namespace. */
export interface FlowHelpers {
  /**
   * Go `CreateFlow(ns, project, name)`: generateName = sanitized name, label project, annotation
   * `tinysystems.io/flow-description` = name, owner = the project (controller).
   * @returns the created flow (its `metadata.name` is the generated name).
   * @throws InvalidArgumentError (empty project or name), OwnerLookupError, KubeApiError.
   */
  create(project: string, name: string, namespace?: string): Promise<TinyFlow>;
  /** Go `GetFLow`. @throws KubeApiError (`isNotFound`). */
  get(name: string, namespace?: string): Promise<TinyFlow>;
  /** Go `GetFlowList`: the project's flows. */
  list(project: string, namespace?: string): Promise<TinyFlow[]>;
  /** Go `RenameFlow`: sets the `tinysystems.io/flow-description` annotation. */
  rename(name: string, displayName: string, namespace?: string): Promise<TinyFlow>;
  /** Go `DeleteFlow`. @throws KubeApiError (`isNotFound`). */
  delete(name: string, namespace?: string): Promise<void>;
}

/** Builds the flow helpers. */
export function flowHelpers(kinds: Kinds, managerNamespace: string): FlowHelpers {
  const ns = (n?: string) => n || managerNamespace;
  return {
    async create(project, name, namespace) {
      requireText("project", project);
      const generateName = generateNameFor("name", name);
      const where = ns(namespace);
      const owner = await ownerReferenceTo(kinds.projects, KIND.TinyProject, project, where);
      return kinds.flows.create(
        {
          metadata: {
            generateName,
            labels: { [PROJECT_NAME_LABEL]: project },
            annotations: { [FLOW_DESCRIPTION_ANNOTATION]: name },
            ownerReferences: [owner],
          },
        },
        where,
      );
    },
    get: (name, namespace) => kinds.flows.get(requireText("name", name), ns(namespace)),
    list: (project, namespace) => kinds.flows.list(ns(namespace), labelSelector({ [PROJECT_NAME_LABEL]: requireText("project", project) })),
    rename: (name, displayName, namespace) =>
      kinds.flows.mergePatch(requireText("name", name), ns(namespace), {
        metadata: { annotations: { [FLOW_DESCRIPTION_ANNOTATION]: requireText("displayName", displayName) } },
      }),
    delete: (name, namespace) => kinds.flows.delete(requireText("name", name), ns(namespace)),
  };
}
