/**
 * The live set of components a module serves: the bundled (compiled-in) set, component files
 * loaded at run time (src/loader/runtime-files.ts) and TinyComponent definitions. Every change installs or
 * uninstalls in the scheduler and tells listeners which names changed, so the module can
 * re-reconcile the nodes of those components (an edit reaches running nodes) and republish its
 * TinyModule status (runtime-spec §5.2, §5.3).
 */
import type { ComponentDefinition } from "../../core/component.ts";

/** The scheduler calls the catalog makes (a subset of `Scheduler`). */
export interface CatalogScheduler {
  install(definition: ComponentDefinition): void;
  uninstall(name: string): Promise<string[]>;
}

/** Where a component came from; a name is owned by one origin at a time. */
export interface CatalogEntry {
  definition: ComponentDefinition;
  /** `bundled`, a file path, or `tinycomponent:<namespace>/<name>`. */
  origin: string;
}

/** A change of the named components (installed, replaced or removed). */
export type CatalogListener = (names: string[]) => void;

/** See the module comment. */
export class ComponentCatalog {
  readonly #entries = new Map<string, CatalogEntry>();
  readonly #listeners: CatalogListener[] = [];
  /** Bumped on every change (caches keyed on it, e.g. the TinyModule status list). */
  version = 0;

  constructor(private readonly scheduler: CatalogScheduler) {}

  /** Calls `listener` after every change. */
  onChange(listener: CatalogListener): void {
    this.#listeners.push(listener);
  }

  /** Every served component, sorted by name. */
  list(): ComponentDefinition[] {
    return [...this.#entries.values()].map((e) => e.definition).sort((a, b) => (a.info.name < b.info.name ? -1 : a.info.name > b.info.name ? 1 : 0));
  }

  /** The entry named `name`, if any. */
  get(name: string): CatalogEntry | undefined {
    return this.#entries.get(name);
  }

  /**
   * Installs (or replaces) `definition` for `origin`.
   * @returns `undefined`, or why it was refused: the name belongs to another origin.
   */
  put(definition: ComponentDefinition, origin: string): string | undefined {
    const name = definition.info.name;
    const current = this.#entries.get(name);
    if (current && current.origin !== origin) return `"${name}" is already a component of this module (from ${current.origin})`;
    this.#entries.set(name, { definition, origin });
    this.scheduler.install(definition);
    this.#changed([name]);
    return undefined;
  }

  /** Removes `name` when `origin` owns it; its nodes' runners stop (they report the missing component at their next reconcile). */
  async remove(name: string, origin: string): Promise<boolean> {
    const current = this.#entries.get(name);
    if (!current || current.origin !== origin) return false;
    this.#entries.delete(name);
    await this.scheduler.uninstall(name);
    this.#changed([name]);
    return true;
  }

  /** Names owned by `origin`. */
  namesOf(origin: string): string[] {
    return [...this.#entries].filter(([, e]) => e.origin === origin).map(([n]) => n);
  }

  #changed(names: string[]): void {
    this.version++;
    for (const l of this.#listeners) l(names);
  }
}
