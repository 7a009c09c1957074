/**
 * TinyWidgetPage helpers (runtime-spec §7.3): a page carries its project label, its title and sort
 * index as annotations, and the TinyProject as controlling owner.
 */
import { KIND, PAGE_NAME_ANNOTATION, PAGE_SORT_IDX_ANNOTATION, PROJECT_NAME_LABEL, type TinyWidgetPage } from "../../core/api/index.ts";
import { InvalidArgumentError } from "./errors.ts";
import type { Kinds } from "./kinds.ts";
import { generateNameFor, requireText } from "./names.ts";
import { ownerReferenceTo } from "./owner.ts";
import { labelSelector } from "./release.ts";

/** TinyWidgetPage helpers; `namespace` defaults to the manager namespace. */
export interface PageHelpers {
  /**
   * Go `CreatePage(title, project, ns, idx)`: generateName = sanitized title, label project,
   * annotations `tinysystems.io/page-name` = title and `tinysystems.io/page-sort-idx` = idx
   * (decimal), owner = the project (controller).
   * @throws InvalidArgumentError, OwnerLookupError, KubeApiError.
   */
  create(title: string, project: string, sortIndex: number, namespace?: string): Promise<TinyWidgetPage>;
  /** GET one page. @throws KubeApiError (`isNotFound`). */
  get(name: string, namespace?: string): Promise<TinyWidgetPage>;
  /** Go `UpdatePage`: PUT (compare-and-swap on resourceVersion). */
  update(page: TinyWidgetPage): Promise<TinyWidgetPage>;
  /** Go `DeletePage`. */
  delete(name: string, namespace?: string): Promise<void>;
  /** Go `GetProjectPageWidgets`: the project's pages. */
  list(project: string, namespace?: string): Promise<TinyWidgetPage[]>;
}

/** Builds the page helpers. */
export function pageHelpers(kinds: Kinds, managerNamespace: string): PageHelpers {
  const ns = (n?: string) => n || managerNamespace;
  return {
    async create(title, project, sortIndex, namespace) {
      requireText("project", project);
      const generateName = generateNameFor("title", title);
      if (!Number.isInteger(sortIndex)) throw new InvalidArgumentError("sortIndex", `must be an integer, got ${JSON.stringify(sortIndex)}`);
      const where = ns(namespace);
      const owner = await ownerReferenceTo(kinds.projects, KIND.TinyProject, project, where);
      return kinds.pages.create(
        {
          metadata: {
            generateName,
            labels: { [PROJECT_NAME_LABEL]: project },
            annotations: { [PAGE_NAME_ANNOTATION]: title, [PAGE_SORT_IDX_ANNOTATION]: String(sortIndex) },
            ownerReferences: [owner],
          },
          spec: {},
        },
        where,
      );
    },
    get: (name, namespace) => kinds.pages.get(requireText("name", name), ns(namespace)),
    update: (page) => kinds.pages.update(page, ns(page?.metadata?.namespace)),
    delete: (name, namespace) => kinds.pages.delete(requireText("name", name), ns(namespace)),
    list: (project, namespace) => kinds.pages.list(ns(namespace), labelSelector({ [PROJECT_NAME_LABEL]: requireText("project", project) })),
  };
}
