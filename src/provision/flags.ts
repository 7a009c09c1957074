/**
 * A small flag parser shared by `tinyhost provision` and `tinyhost rbac`: `--flag value`,
 * `--flag=value`, booleans as `--flag`, `--flag=true|false` or `--no-flag`. Unknown flags and
 * positional arguments are errors.
 */
import { ProvisionInputError } from "./errors.ts";

/** Declared flags: name (without `--`) → kind. */
export type FlagSpec = Record<string, "string" | "boolean">;

/** Parsed values: strings and booleans by flag name; absent flags are absent. */
export type FlagValues = Record<string, string | boolean>;

/**
 * Parses `args` against `spec`. `-n` is accepted as `--namespace` when declared (as `tiny -n`).
 * @throws ProvisionInputError naming the flag: unknown flag, missing or empty value, bad boolean,
 *   positional argument.
 */
export function parseFlags(args: readonly string[], spec: FlagSpec): FlagValues {
  const out: FlagValues = {};
  for (let i = 0; i < args.length; i++) {
    let arg = args[i]!;
    if (arg === "-n" && spec.namespace) arg = "--namespace";
    if (!arg.startsWith("--")) throw new ProvisionInputError(arg, "is not a flag (this command takes no positional arguments)");
    const eq = arg.indexOf("=");
    let name = eq >= 0 ? arg.slice(2, eq) : arg.slice(2);
    let inline: string | undefined = eq >= 0 ? arg.slice(eq + 1) : undefined;
    if (!spec[name] && name.startsWith("no-") && spec[name.slice(3)] === "boolean" && inline === undefined) {
      name = name.slice(3);
      inline = "false";
    }
    const kind = spec[name];
    if (!kind) throw new ProvisionInputError(`--${name}`, "is not a known flag (see --help)");
    if (kind === "boolean") {
      if (inline === undefined || inline === "true") out[name] = true;
      else if (inline === "false") out[name] = false;
      else throw new ProvisionInputError(`--${name}`, `takes true or false, got ${JSON.stringify(inline)}`);
      continue;
    }
    const value = inline ?? args[++i];
    if (value === undefined || value === "" || (inline === undefined && value.startsWith("--"))) {
      throw new ProvisionInputError(`--${name}`, "needs a value");
    }
    out[name] = value;
  }
  return out;
}

/** The string value of a parsed flag, or undefined. */
export function stringFlag(values: FlagValues, name: string): string | undefined {
  const v = values[name];
  return typeof v === "string" ? v : undefined;
}

/** The boolean value of a parsed flag, or undefined. */
export function booleanFlag(values: FlagValues, name: string): boolean | undefined {
  const v = values[name];
  return typeof v === "boolean" ? v : undefined;
}
