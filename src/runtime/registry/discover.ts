/**
 * Dev-mode discovery: scan a components directory at start and import every component file.
 *
 * The import is deliberately written as a `file://` template literal: a compiled build can then pass
 * `--allow-unresolved 'file://*'` (see {@link DEV_IMPORT_PATTERN}) and still fail on any other dynamic
 * import, while the binary itself uses the static registry (static.ts) and never reaches this path.
 */
import { existsSync, statSync } from "node:fs";
import { isAbsolute, join, relative, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { componentOf } from "./check.ts";
import { componentLoadError, RegistryError } from "./errors.ts";
import { listComponentFiles } from "./files.ts";
import { createRegistry, type Registry, type RegistryEntry } from "./registry.ts";

/** The `allowUnresolved` pattern matching this module's one dynamic import (Bun `BuildConfig.allowUnresolved`). */
export const DEV_IMPORT_PATTERN = "file://*";

/**
 * Finds and imports every component file under `dir` (see files.ts for which files count), in
 * sorted path order.
 * @param dir the components directory, absolute or relative to the working directory.
 * @throws RegistryError `COMPONENTS_DIR_NOT_FOUND` when `dir` is missing or not a directory;
 *   ComponentImportError `COMPONENT_IMPORT_FAILED` naming the file and cause when an import throws;
 *   InvalidComponentFileError `INVALID_COMPONENT` naming the file and what is wrong with its default
 *   export (also when `defineComponent` itself rejected the spec during import);
 *   DuplicateComponentError `DUPLICATE_COMPONENT` naming both files.
 */
export async function discoverComponents(dir: string): Promise<Registry> {
  const root = resolve(dir);
  if (!existsSync(root) || !statSync(root).isDirectory()) {
    throw new RegistryError("COMPONENTS_DIR_NOT_FOUND", `components directory not found: ${root}`, [root]);
  }
  const entries: RegistryEntry[] = [];
  for (const rel of listComponentFiles(root)) {
    const abs = join(root, rel);
    const source = displayPath(abs);
    const mod = await importFile(abs, source);
    entries.push({ definition: componentOf(source, mod), source });
  }
  return createRegistry(entries);
}

async function importFile(abs: string, source: string): Promise<Record<string, unknown>> {
  // `file://` + the URL-encoded path: keeps spaces and `#` in paths importable.
  const href = pathToFileURL(abs).href.slice("file://".length);
  try {
    return (await import(`file://${href}`)) as Record<string, unknown>;
  } catch (cause) {
    throw componentLoadError(source, cause);
  }
}

function displayPath(abs: string): string {
  const rel = relative(process.cwd(), abs);
  return rel.startsWith("..") || isAbsolute(rel) ? abs : rel;
}
