/**
 * How a path appears in messages and log lines: relative to the working directory when inside it
 * (so `tinyhost run --local examples/hello-api` shows `examples/hello-api/router.yaml`, the way the
 * directory was typed), else absolute. Component discovery, the component-file loader and local
 * mode's terminal all use this one rule.
 */
import { isAbsolute, relative } from "node:path";

/**
 * @param abs an absolute path.
 * @param cwd the directory paths are shown relative to (default the process's working directory).
 * @returns `"."` for `cwd` itself, a relative path below it, else `abs`.
 */
export function shownPath(abs: string, cwd = process.cwd()): string {
  const rel = relative(cwd, abs);
  if (rel === "") return ".";
  return rel.startsWith("..") || isAbsolute(rel) ? abs : rel;
}
