/**
 * Release-name sanitizing of the `tiny` provisioner. This is deliberately NOT
 * `sanitizeResourceName` from src/core/api: that one is the SDK rule for TinyModule names and node
 * segments (keep the LAST 48 runes), while `tiny`'s `provision.SanitizeResourceName` keeps the
 * FIRST 53 (Helm's release-name limit). provision.md §3.1 lists both.
 */

/** Max length of a sanitized release name, in characters (Helm's release-name limit). provision.md §3.1. */
export const MAX_RELEASE_NAME_LENGTH = 53;

const NON_ALNUM_RUNS = /[^a-z0-9]+/g;

function trimDashes(s: string): string {
  return s.replace(/^-+|-+$/g, "");
}

/**
 * `tiny`'s `SanitizeResourceName`: lowercase; every run of characters outside `[a-z0-9]` becomes
 * one `-`; trim `-` at both ends; when longer than 53 characters keep the FIRST 53 and trim `-`
 * again. Example: `tinysystems/http-module-v0` → `tinysystems-http-module-v0`.
 * Source: provision.md §3.1 (tiny-systems/tiny internal/provision).
 *
 * @param s - any string, e.g. a module name.
 * @returns at most 53 characters of `[a-z0-9-]`, never starting or ending with `-` (may be empty).
 */
export function sanitizeReleaseName(s: string): string {
  const dashed = trimDashes(s.toLowerCase().replace(NON_ALNUM_RUNS, "-"));
  const chars = Array.from(dashed);
  return chars.length > MAX_RELEASE_NAME_LENGTH ? trimDashes(chars.slice(0, MAX_RELEASE_NAME_LENGTH).join("")) : dashed;
}

/** Max length of a DNS-1123 label (Kubernetes "Object Names and IDs"). */
export const MAX_LABEL_LENGTH = 63;

/**
 * The chart's `clusterScopedName`: `<fullname>-<namespace>`, cut to 63 characters and trimmed of a
 * trailing `-`, so two namespaces installing the same module do not collide on cluster-scoped
 * objects. Source: provision.md §5.1 `_helpers.tpl`.
 *
 * @param release - the release (fullname). @param namespace - the release namespace.
 */
export function clusterScopedName(release: string, namespace: string): string {
  return `${release}-${namespace}`.slice(0, MAX_LABEL_LENGTH).replace(/-+$/, "");
}
