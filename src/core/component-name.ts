/**
 * The component name rule: which `info.name` values survive every place the platform writes a
 * component name. One rule, checked by `defineComponent` (so dev discovery, local hot reload,
 * `npm run build`'s gen-registry and the compiled binary's static registry all see it) and again by
 * the registry's `componentOf` for definitions made by another copy of the SDK.
 *
 * Why this rule (evidence in docs/reference: runtime-spec, components.md):
 * - `TinyNode.spec.component` keeps the name as written, e.g. `http_server` (components.md §6).
 * - Node names are `<md5(project+flow)[:8]>.<module>.<SanitizeResourceName(name)>-<5 hex>`
 *   (runtime-spec §8 `GetNodeGenerateName`): lowercase, every run of characters outside `[a-z0-9]`
 *   becomes one `-`, the LAST 48 characters kept, `-` trimmed; the name must be DNS-1123
 *   (components.md §6). Only a name of lowercase letters and digits in words joined by single `_`
 *   maps one-to-one onto that segment (`_` ↔ `-`): upper case is folded, `.` would add a node-name
 *   segment (`ParseFullName` splits on `.`, runtime-spec §1.9), `-` next to `_` makes `a-b` and
 *   `a_b` share node names, leading/trailing/double `_` are trimmed or merged, and a name over 48
 *   characters loses its head.
 * - Every component the Go modules register fits it: `http_server`, `array_split`, `run_status`,
 *   `flow_telemetry`, `router`, … (components.md §1, §2).
 */

/** Longest component name, characters: `SanitizeResourceName` keeps the last 48 (runtime-spec §8). */
export const MAX_COMPONENT_NAME_LENGTH = 48;

/** Lowercase letters and digits, words joined by single `_`: `http_server`, `array_split`, `s3_put`. */
export const COMPONENT_NAME_PATTERN = /^[a-z0-9]+(?:_[a-z0-9]+)*$/;

/** The rule in words, for error messages and docs. */
export const COMPONENT_NAME_RULE =
  `lowercase letters and digits in words joined by single "_" (like "http_server"), at most ${MAX_COMPONENT_NAME_LENGTH} characters, ` +
  `because node names carry it as <hash>.<module>.<name with "_" as "-">-<suffix> (DNS-1123) and must map back to it`;

/** True when `name` follows {@link COMPONENT_NAME_PATTERN} and {@link MAX_COMPONENT_NAME_LENGTH}. */
export function isValidComponentName(name: string): boolean {
  return name.length <= MAX_COMPONENT_NAME_LENGTH && COMPONENT_NAME_PATTERN.test(name);
}

/**
 * What is wrong with `name` as a component name, or `undefined` when it is valid. The text quotes
 * the value, says what breaks, states {@link COMPONENT_NAME_RULE} and, when one exists, suggests a
 * valid spelling. Callers prefix where the name came from (`defineComponent: info.name …`).
 * @param name the candidate `info.name` (any value: a non-string is reported as such).
 */
export function componentNameProblem(name: unknown): string | undefined {
  if (typeof name !== "string" || name === "") return `${JSON.stringify(name) ?? String(name)} is not a non-empty string`;
  if (isValidComponentName(name)) return undefined;
  const suggestion = suggestComponentName(name);
  const hint = suggestion !== undefined && suggestion !== name ? ` (try ${JSON.stringify(suggestion)})` : "";
  return `${JSON.stringify(name)} ${why(name)}; a component name is ${COMPONENT_NAME_RULE}${hint}`;
}

/** The first reason `name` fails, in the words a user can act on. */
function why(name: string): string {
  if (name.length > MAX_COMPONENT_NAME_LENGTH) return `is ${name.length} characters long (node names keep only the last ${MAX_COMPONENT_NAME_LENGTH})`;
  if (/[A-Z]/.test(name)) return "has upper-case letters (node names fold them to lower case)";
  if (name.includes(".")) return `contains "." (it would split the node name into extra "." segments)`;
  if (name.includes("-")) return `contains "-" (node names write "_" as "-", so "a-b" and "a_b" could not be told apart; use "_")`;
  const other = [...new Set(name.replace(/[a-z0-9_]/g, ""))];
  if (other.length > 0) return `contains ${other.map((c) => JSON.stringify(c)).join(", ")} (only a-z, 0-9 and "_" are kept in node names)`;
  return `starts or ends with "_" or has "__" (node names drop or merge those)`;
}

/** The name lower-cased with every run of other characters as one `_`, or undefined when nothing valid is left. */
function suggestComponentName(name: string): string | undefined {
  const s = name
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "_")
    .replace(/^_+|_+$/g, "")
    .slice(0, MAX_COMPONENT_NAME_LENGTH)
    .replace(/_+$/, "");
  return s !== "" && isValidComponentName(s) ? s : undefined;
}
