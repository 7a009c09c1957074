/**
 * The static registry of a compiled binary: the components listed in `static.generated.ts`
 * (written by scripts/gen-registry.ts before `bun build --compile`). Import this module only where
 * the static registry is wanted — importing it evaluates every bundled component.
 */
import { componentOf } from "./check.ts";
import { createRegistry, type Registry } from "./registry.ts";
import { staticComponents } from "./static.generated.ts";

/** One generated row: the file's project-relative path and its module namespace. */
export interface StaticComponentModule {
  readonly source: string;
  readonly module: Record<string, unknown>;
}

/**
 * Builds a registry from generated rows, with the same checks as dev discovery.
 * @throws InvalidComponentFileError `INVALID_COMPONENT`, DuplicateComponentError `DUPLICATE_COMPONENT`.
 */
export function registryFromModules(modules: readonly StaticComponentModule[]): Registry {
  return createRegistry(modules.map((m) => ({ definition: componentOf(m.source, m.module), source: m.source })));
}

/**
 * The registry compiled into this build. An import error in a component surfaces when this module
 * is first imported (static imports cannot be caught per file).
 * @throws as {@link registryFromModules}.
 */
export function loadStaticRegistry(): Registry {
  return registryFromModules(staticComponents);
}
