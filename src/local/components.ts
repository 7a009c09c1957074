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
