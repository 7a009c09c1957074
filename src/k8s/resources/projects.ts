/**
 * TinyProject helpers (runtime-spec §7.3): a project's display name lives in the
 * `tinysystems.io/project-name` annotation, its resource name is generated from it; no owner.
 */
import { PROJECT_NAME_ANNOTATION, type TinyProject } from "../../core/api/index.ts";
import type { Kinds } from "./kinds.ts";
import { generateNameFor, requireText } from "./names.ts";

/** TinyProject helpers; `namespace` defaults to the manager namespace. */
export interface ProjectHelpers {
  /** Go `CreateProject`: generateName = sanitized name, annotation `tinysystems.io/project-name` = name. @throws InvalidArgumentError, KubeApiError. */
  create(name: string, namespace?: string): Promise<TinyProject>;
  /** Go `GetProject`. @throws KubeApiError (`isNotFound`). */
  get(name: string, namespace?: string): Promise<TinyProject>;
  /** Go `GetProjectList`: every project in the namespace. */
  list(namespace?: string): Promise<TinyProject[]>;
  /** Go `RenameProject`: sets the display-name annotation. @throws KubeApiError. */
  rename(name: string, displayName: string, namespace?: string): Promise<TinyProject>;
  /** Go `UpdateProjectDescription`: sets `spec.description`. @throws KubeApiError. */
  setDescription(name: string, description: string, namespace?: string): Promise<TinyProject>;
  /** Go `DeleteProject`. @throws KubeApiError (`isNotFound`). */
  delete(name: string, namespace?: string): Promise<void>;
}

/** Builds the project helpers. */
export function projectHelpers(kinds: Kinds, managerNamespace: string): ProjectHelpers {
  const ns = (n?: string) => n || managerNamespace;
  return {
    create: (name, namespace) =>
      kinds.projects.create({ metadata: { generateName: generateNameFor("name", name), annotations: { [PROJECT_NAME_ANNOTATION]: name } } }, ns(namespace)),
    get: (name, namespace) => kinds.projects.get(requireText("name", name), ns(namespace)),
    list: (namespace) => kinds.projects.list(ns(namespace)),
    rename: (name, displayName, namespace) =>
      kinds.projects.mergePatch(requireText("name", name), ns(namespace), {
        metadata: { annotations: { [PROJECT_NAME_ANNOTATION]: requireText("displayName", displayName) } },
      }),
    setDescription: (name, description, namespace) => kinds.projects.mergePatch(requireText("name", name), ns(namespace), { spec: { description } }),
    delete: (name, namespace) => kinds.projects.delete(requireText("name", name), ns(namespace)),
  };
}
