/**
 * The component registry: name → definition, built once at start-up from discovered files (dev) or
 * the generated static list (compiled binary). Names are `info.name`, what `TinyNode.spec.component`
 * references (runtime-spec §1.1).
 */
import type { ComponentDefinition } from "../../core/component.ts";
import { DuplicateComponentError, RegistryError } from "./errors.ts";

/** The components this module serves. */
export interface Registry {
  /** Every component, sorted by name. */
  list(): ComponentDefinition[];
  /** The component named `name`, or `undefined`. */
  get(name: string): ComponentDefinition | undefined;
  /**
   * The file the component came from (relative to the working directory when inside it, else
   * absolute; for the static registry, relative to the project root).
   * @throws RegistryError `UNKNOWN_COMPONENT` for a name not in the registry.
   */
  source(name: string): string;
}

/** One component and the file it was loaded from. */
export interface RegistryEntry {
  /** The validated default export. */
  definition: ComponentDefinition;
  /** Its file, as reported by {@link Registry.source}. */
  source: string;
}

/**
 * Builds a {@link Registry} from entries.
 * @throws DuplicateComponentError (`DUPLICATE_COMPONENT`) naming both files when two entries share a name.
 */
export function createRegistry(entries: readonly RegistryEntry[]): Registry {
  const byName = new Map<string, RegistryEntry>();
  for (const entry of entries) {
    const name = entry.definition.info.name;
    const seen = byName.get(name);
    if (seen) throw new DuplicateComponentError(name, seen.source, entry.source);
    byName.set(name, entry);
  }
  const sorted = [...byName.values()].sort((a, b) => (a.definition.info.name < b.definition.info.name ? -1 : 1));
  return {
    list: () => sorted.map((e) => e.definition),
    get: (name) => byName.get(name)?.definition,
    source(name) {
      const entry = byName.get(name);
      if (!entry) throw new RegistryError("UNKNOWN_COMPONENT", `no component named "${name}" in the registry`);
      return entry.source;
    },
  };
}
