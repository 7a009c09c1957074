/**
 * The static registry of a compiled binary: the components listed in `static.generated.ts`
 * (written by scripts/gen-registry.ts before `bun build --compile`). Import this module only where
 * the static registry is wanted; components are evaluated by {@link loadStaticRegistry}.
 */
import { componentOf } from "../runtime/registry/check.ts";
import { componentLoadError } from "../runtime/registry/errors.ts";
import { createRegistry, type Registry } from "../runtime/registry/registry.ts";
import { staticComponents } from "./static.generated.ts";

/** One generated row: the file's project-relative path and a loader returning its module namespace. */
export interface StaticComponentModule {
  readonly source: string;
  /** Evaluates the file (a bundled `require`); throws whatever the file throws at import. */
  readonly load: () => Record<string, unknown>;
}

/**
 * Loads every generated row and builds a registry, with the same checks and errors as dev discovery.
 * @throws ComponentImportError `COMPONENT_IMPORT_FAILED` naming the file when loading it throws;
 *   InvalidComponentFileError `INVALID_COMPONENT` naming the file (bad default export, or
 *   `defineComponent` rejected the spec); DuplicateComponentError `DUPLICATE_COMPONENT`.
 */
export function registryFromModules(modules: readonly StaticComponentModule[]): Registry {
  return createRegistry(modules.map((m) => ({ definition: componentOf(m.source, loadRow(m)), source: m.source })));
}

function loadRow(row: StaticComponentModule): Record<string, unknown> {
  try {
    return row.load();
  } catch (cause) {
    throw componentLoadError(row.source, cause);
  }
}

/**
 * The registry compiled into this build. Each component file is evaluated here, not when this module
 * is imported, so a failing file is named (see {@link registryFromModules}).
 * @throws as {@link registryFromModules}.
 */
export function loadStaticRegistry(): Registry {
  return registryFromModules(staticComponents);
}
