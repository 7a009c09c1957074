/**
 * Which files under a components directory are components: every `**\/*.ts` except tests
 * (`*.test.ts`, `*.spec.ts`, anything under `__tests__/`), type declarations (`*.d.ts`) and
 * `node_modules/`. Convention over configuration: dropping a file in is enough.
 */

/** The glob the registry scans with `Bun.Glob`, relative to the components directory. */
export const COMPONENT_GLOB = "**/*.ts";

/** True when `relPath` (relative to the components directory, `/`-separated) is a component file. */
export function isComponentFile(relPath: string): boolean {
  const path = relPath.replaceAll("\\", "/");
  if (!path.endsWith(".ts") || path.endsWith(".d.ts")) return false;
  if (path.endsWith(".test.ts") || path.endsWith(".spec.ts")) return false;
  const dirs = path.split("/").slice(0, -1);
  return !dirs.includes("__tests__") && !dirs.includes("node_modules");
}

/**
 * Component files under `dir` (relative paths, `/`-separated, sorted so discovery order and the
 * generated registry are deterministic). Symlinked files count: a ConfigMap volume is made of
 * `name.ts -> ..data/name.ts` links (its `..data` and timestamped dirs are hidden and skipped).
 * @throws Error with `code: "ENOENT"` when `dir` does not exist (from `Bun.Glob`).
 */
export function listComponentFiles(dir: string): string[] {
  const glob = new Bun.Glob(COMPONENT_GLOB);
  return [...glob.scanSync({ cwd: dir, onlyFiles: true, followSymlinks: true })]
    .map((p) => p.replaceAll("\\", "/"))
    .filter(isComponentFile)
    .sort();
}
