/**
 * Components for local mode: every file of the components directory, imported one by one so a
 * broken file is reported and the others still load, and re-imported when it changes (hot reload).
 *
 * Re-import drops the file from Bun's module registry (`require.cache`, shared by ESM and CJS in
 * Bun) first; a query-string cache buster does not work in Bun 1.4 (the specifier is normalised).
 * Only the changed file is re-evaluated: helpers it imports keep their first version.
 * The import is a `file://` template literal, the one dynamic import a compiled build allows
 * (src/runtime/registry/discover.ts `DEV_IMPORT_PATTERN`); the binary itself never reaches it.
 */
import { existsSync, statSync } from "node:fs";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import type { ComponentDefinition } from "../sdk/component.ts";
import { componentOf } from "../runtime/registry/check.ts";
import { ComponentImportError, InvalidComponentFileError, RegistryError } from "../runtime/registry/errors.ts";
import { isComponentFile, listComponentFiles } from "../runtime/registry/files.ts";
import type { Scheduler } from "../runtime/scheduler/scheduler.ts";
import { toError } from "../sdk/result.ts";
import { LocalStartError } from "./errors.ts";
import { shownPath } from "./paths.ts";

/** One loaded component file. */
export interface LoadedComponent {
  /** Its default export. */
  definition: ComponentDefinition;
  /** Absolute path. */
  file: string;
  /** Path for messages (relative to the working directory when inside it). */
  source: string;
}

/** Result of loading a components directory. */
export interface ComponentDirResult {
  /** Components in file order (the first of two same-named ones wins). */
  components: LoadedComponent[];
  /** Files that failed (import error, bad default export, duplicate name). */
  errors: RegistryError[];
}

/** Path for messages: relative to the working directory when inside it, else absolute ({@link shownPath}). */
export function displayPath(abs: string): string {
  return shownPath(abs);
}

/**
 * Imports (or re-imports, dropping the cached module first) one component file.
 * @throws ComponentImportError `COMPONENT_IMPORT_FAILED` when evaluating the file throws;
 *   InvalidComponentFileError `INVALID_COMPONENT` when its default export is not a component.
 */
export async function importComponentFile(file: string): Promise<LoadedComponent> {
  const abs = resolve(file);
  const source = displayPath(abs);
  delete require.cache[abs];
  const href = pathToFileURL(abs).href.slice("file://".length);
  let mod: Record<string, unknown>;
  try {
    mod = (await import(`file://${href}`)) as Record<string, unknown>;
  } catch (cause) {
    delete require.cache[abs]; // do not keep a failed evaluation around for the next attempt
    if ((cause as { code?: unknown } | null)?.code === "INVALID_COMPONENT") throw new InvalidComponentFileError(source, (cause as Error).message, { cause });
    throw new ComponentImportError(source, cause);
  }
  return { definition: componentOf(source, mod), file: abs, source };
}

/**
 * Loads every component file under `dir` (registry rules: `**\/*.ts` minus tests and `.d.ts`).
 * A failing file is reported in `errors` and skipped; the rest load.
 * @throws RegistryError `COMPONENTS_DIR_NOT_FOUND` when `dir` is not a directory.
 */
export async function loadComponentDir(dir: string): Promise<ComponentDirResult> {
  const root = resolve(dir);
  if (!existsSync(root) || !statSync(root).isDirectory()) {
    throw new RegistryError("COMPONENTS_DIR_NOT_FOUND", `components directory not found: ${root}`, [root]);
  }
  const out: ComponentDirResult = { components: [], errors: [] };
  const byName = new Map<string, LoadedComponent>();
  for (const rel of listComponentFiles(root)) {
    try {
      const c = await importComponentFile(join(root, rel));
      const seen = byName.get(c.definition.info.name);
      if (seen) {
        out.errors.push(new RegistryError("DUPLICATE_COMPONENT", `component "${c.definition.info.name}" is defined twice: in ${seen.source} and in ${c.source} (the second is ignored)`, [seen.source, c.source]));
        continue;
      }
      byName.set(c.definition.info.name, c);
      out.components.push(c);
    } catch (err) {
      out.errors.push(err instanceof RegistryError ? err : new ComponentImportError(rel, err));
    }
  }
  return out;
}

/** True when `relPath` (relative to the components directory) is a file hot reload should import. */
export function isReloadable(relPath: string): boolean {
  return isComponentFile(relPath);
}

/** What {@link ComponentFiles} needs from the local host. */
export interface ComponentFilesHost {
  scheduler: Scheduler;
  /** Prints one terminal line. */
  line(text: string): void;
  /** Reconciles every declared node of component `name` again; returns their names. */
  recreate(name: string): string[];
}

/**
 * The components directory of local mode, file by file: which file provides which component, the
 * files that failed (shown as problems until fixed), and hot reload. The result of a reload is
 * what a fresh start would run: a name a file no longer provides (renamed, deleted, now invalid or
 * a duplicate) is uninstalled and its nodes report the unknown component; a file that fails to
 * evaluate (a syntax error while typing) is reported and its previous version keeps running.
 */
export class ComponentFiles {
  /** Absolute file → the component name it provides. */
  readonly files = new Map<string, string>();
  /** Absolute file (or a message key) → why it is not loaded. */
  readonly errors = new Map<string, string>();

  constructor(readonly host: ComponentFilesHost) {}

  /**
   * Loads every file of `dir` into the scheduler; failing files become {@link errors}.
   * @throws LocalStartError when `dir` is not a directory.
   */
  async load(dir: string): Promise<void> {
    let result: ComponentDirResult;
    try {
      result = await loadComponentDir(dir);
    } catch (err) {
      throw new LocalStartError(toError(err).message, { cause: err });
    }
    for (const c of result.components) {
      this.host.scheduler.install(c.definition);
      this.files.set(c.file, c.definition.info.name);
    }
    // Keyed by the refused file: the last one named (a duplicate names the kept file first).
    for (const e of result.errors) this.errors.set(e.files.length ? resolve(e.files.at(-1)!) : e.message, e.message);
  }

  /** The registered component names, sorted, or `none`. */
  known(extra: readonly string[] = []): string {
    const names = new Set([...this.files.values(), ...extra]);
    return names.size ? [...names].sort().join(", ") : "none";
  }

  /**
   * Re-imports `file` and recreates the nodes of its component (see the class comment).
   * @returns names of the nodes recreated.
   */
  async reload(file: string): Promise<string[]> {
    const abs = resolve(file);
    const previous = this.files.get(abs);
    if (!existsSync(abs)) {
      this.errors.delete(abs);
      this.files.delete(abs);
      if (previous !== undefined) await this.#retire(previous, `${displayPath(abs)} was removed`, abs);
      return [];
    }
    let loaded: LoadedComponent;
    try {
      loaded = await importComponentFile(abs);
    } catch (err) {
      this.errors.set(abs, toError(err).message);
      // INVALID_COMPONENT: the file evaluated but exports no valid component (e.g. an invalid name).
      if (previous !== undefined && (err as { code?: unknown }).code === "INVALID_COMPONENT") {
        this.files.delete(abs);
        await this.#retire(previous, `${displayPath(abs)} no longer defines a valid component`, abs);
      }
      return [];
    }
    this.errors.delete(abs);
    const name = loaded.definition.info.name;
    const owner = [...this.files].find(([f, n]) => n === name && f !== abs);
    if (owner) {
      this.errors.set(abs, `${loaded.source}: component "${name}" is already defined in ${displayPath(owner[0])}; ignored`);
      this.files.delete(abs);
      if (previous !== undefined) await this.#retire(previous, `${loaded.source} now defines "${name}"`, abs);
      return [];
    }
    this.files.set(abs, name);
    this.host.scheduler.install(loaded.definition);
    const nodes = this.host.recreate(name);
    this.host.line(`reloaded ${loaded.source} (${name})${nodes.length ? `: recreating ${nodes.length} node${nodes.length === 1 ? "" : "s"}` : ""}`);
    if (previous !== undefined && previous !== name) await this.#retire(previous, `${loaded.source} now defines "${name}"`, abs);
    return nodes;
  }

  /**
   * Component `name` lost its file: unless another file still provides it, uninstall it (its
   * runners stop without onDestroy — the nodes still exist) and reconcile its nodes, which then
   * report the unknown component. Files refused earlier (e.g. as a duplicate of `name`) are
   * retried, since one of them may provide it now.
   */
  async #retire(name: string, why: string, except: string): Promise<void> {
    if ([...this.files.values()].includes(name)) return;
    const stopped = await this.host.scheduler.uninstall(name);
    this.host.line(`component ${name} is gone: ${why}${stopped.length ? `; stopped ${stopped.length} node${stopped.length === 1 ? "" : "s"}` : ""}`);
    this.host.recreate(name);
    for (const f of [...this.errors.keys()]) {
      if (f !== except && !this.files.has(f) && existsSync(f)) await this.reload(f);
    }
  }
}
