/**
 * Checks that an imported component file's default export is a component made by `defineComponent`,
 * and says precisely what is wrong when it is not.
 */
import { COMPONENT_BRAND, isComponentDefinition, type ComponentDefinition } from "../../core/component.ts";
import { componentNameProblem } from "../../core/component-name.ts";
import { InvalidComponentFileError } from "./errors.ts";

/**
 * Returns the component default-exported by the module loaded from `file`.
 * @param mod the module namespace object (`import * as mod`).
 * @throws InvalidComponentFileError (`INVALID_COMPONENT`) naming `file` and the reason: no default
 *   export; default export not created with `defineComponent`; empty `info.name`; an `info.name`
 *   that breaks the component name rule (core/component-name.ts — `defineComponent` checks it too,
 *   this catches definitions made by another copy of the SDK).
 */
export function componentOf(file: string, mod: Record<string, unknown>): ComponentDefinition {
  if (!("default" in mod) || mod.default === undefined) {
    throw new InvalidComponentFileError(file, "has no default export; a component file must `export default defineComponent({...})`");
  }
  const value = mod.default;
  if (isComponentDefinition(value)) {
    const problem = componentNameProblem(value.info.name);
    if (problem !== undefined) throw new InvalidComponentFileError(file, `info.name ${problem}`);
    return value;
  }
  const branded = typeof value === "object" && value !== null && (value as { [COMPONENT_BRAND]?: unknown })[COMPONENT_BRAND] === true;
  if (!branded) {
    throw new InvalidComponentFileError(file, `default export is not created with defineComponent (got ${shape(value)})`);
  }
  const name = (value as { info?: { name?: unknown } }).info?.name;
  if (typeof name !== "string" || name === "") {
    throw new InvalidComponentFileError(file, `default export has an empty info.name (got ${JSON.stringify(name)})`);
  }
  throw new InvalidComponentFileError(file, "default export is missing instance()/ports(); re-create it with defineComponent");
}

function shape(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  if (typeof value === "function") return `a function ${value.name || "(anonymous)"}`;
  if (typeof value === "object") return `an object with keys ${JSON.stringify(Object.keys(value))}`;
  return `${typeof value} ${JSON.stringify(value)}`;
}
