/**
 * TinyScenario helpers (runtime-spec §7.3): a scenario carries its project label, its display
 * name in `tinysystems.io/scenario-name`, and the TinyProject as controlling owner.
 */
import { KIND, PROJECT_NAME_LABEL, SCENARIO_NAME_ANNOTATION, type TinyScenario } from "../../core/api/index.ts";
import type { Kinds } from "./kinds.ts";
import { generateNameFor, requireText } from "./names.ts";
import { ownerReferenceTo } from "./owner.ts";
import { labelSelector } from "./release.ts";

/** TinyScenario helpers; `namespace` defaults to the manager namespace (Go always uses it). */
export interface ScenarioHelpers {
  /**
   * Go `CreateScenario(name, project)`: generateName = sanitized name, label project, annotation
   * `tinysystems.io/scenario-name` = name, owner = the project (controller).
   * @throws InvalidArgumentError, OwnerLookupError, KubeApiError.
   */
  create(name: string, project: string, namespace?: string): Promise<TinyScenario>;
  /** Go `GetScenario`. @throws KubeApiError (`isNotFound`). */
  get(name: string, namespace?: string): Promise<TinyScenario>;
  /** Go `UpdateScenario`: PUT (compare-and-swap on resourceVersion). */
  update(scenario: TinyScenario): Promise<TinyScenario>;
  /** Go `DeleteScenario`. */
  delete(name: string, namespace?: string): Promise<void>;
  /** Go `GetProjectScenarios`: the project's scenarios. */
  list(project: string, namespace?: string): Promise<TinyScenario[]>;
}

/** Builds the scenario helpers. */
export function scenarioHelpers(kinds: Kinds, managerNamespace: string): ScenarioHelpers {
  const ns = (n?: string) => n || managerNamespace;
  return {
    async create(name, project, namespace) {
      requireText("project", project);
      const generateName = generateNameFor("name", name);
      const where = ns(namespace);
      const owner = await ownerReferenceTo(kinds.projects, KIND.TinyProject, project, where);
      return kinds.scenarios.create(
        {
          metadata: {
            generateName,
            labels: { [PROJECT_NAME_LABEL]: project },
            annotations: { [SCENARIO_NAME_ANNOTATION]: name },
            ownerReferences: [owner],
          },
          spec: {},
        },
        where,
      );
    },
    get: (name, namespace) => kinds.scenarios.get(requireText("name", name), ns(namespace)),
    update: (scenario) => kinds.scenarios.update(scenario, ns(scenario?.metadata?.namespace)),
    delete: (name, namespace) => kinds.scenarios.delete(requireText("name", name), ns(namespace)),
    list: (project, namespace) => kinds.scenarios.list(ns(namespace), labelSelector({ [PROJECT_NAME_LABEL]: requireText("project", project) })),
  };
}
