/**
 * Dev-mode discovery: scan a components directory at start and import every component file.
 *
 * Each file is imported by the one component-file loader (runtime-files.ts `importComponentFile`),
 * whose import is deliberately written as a `file://` template literal: a compiled build can then
 * pass `--allow-unresolved 'file://*'` (see {@link DEV_IMPORT_PATTERN}) and still fail on any other
 * dynamic import, while the binary itself uses the static registry (src/loader/static.ts) for its bundled set.
 */
import { existsSync, statSync } from "node:fs";
import { join, resolve } from "node:path";
import { RegistryError } from "../runtime/registry/errors.ts";
import { listComponentFiles } from "../runtime/registry/files.ts";
import { createRegistry, type Registry, type RegistryEntry } from "../runtime/registry/registry.ts";
import { importComponentFile } from "./runtime-files.ts";

/** The `allowUnresolved` pattern matching this module's one dynamic import (Bun `BuildConfig.allowUnresolved`). */
export const DEV_IMPORT_PATTERN = "file://*";

/**
 * Finds and imports every component file under `dir` (see src/runtime/registry/files.ts for which files count), in
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
    const loaded = await importComponentFile(join(root, rel));
    entries.push({ definition: loaded.definition, source: loaded.source });
  }
  return createRegistry(entries);
}
