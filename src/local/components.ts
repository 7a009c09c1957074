/**
 * Components for local mode: every file of the components directory, imported one by one so a
 * broken file is reported and the others still load, and re-imported when it changes (hot reload).
 * The loading itself (the embedded-SDK resolver, re-import, per-file errors) is shared with cluster
 * mode: src/runtime/registry/runtime-files.ts.
 */
import { isComponentFile } from "../runtime/registry/files.ts";
import { shownPath } from "./paths.ts";

export { importComponentFile, loadComponentDir, type ComponentDirResult, type LoadedComponent } from "../runtime/registry/runtime-files.ts";

/** Path for messages: relative to the working directory when inside it, else absolute ({@link shownPath}). */
export function displayPath(abs: string): string {
  return shownPath(abs);
}

/** True when `relPath` (relative to the components directory) is a file hot reload should import. */
export function isReloadable(relPath: string): boolean {
  return isComponentFile(relPath);
}
