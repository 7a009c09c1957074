/**
 * The flag parser of every `tinyhost` command: `node:util` `parseArgs` splits the arguments
 * (`--flag value`, `--flag=value`, `-f value`, `-fvalue`, `--` ends the flags), and this file adds
 * the rules the commands share, with one wording for each mistake:
 * - an unknown flag, or a positional argument where the command takes none:
 *   `unknown argument "--bogus"`;
 * - a value flag without a value — missing, empty, or followed by another flag (the rule of
 *   ./flag-value.ts, so `--port -1` hands "-1" to the range check): `--port needs a value`
 *   (or the spec's `valueName`, `--dir needs a directory`);
 * - a boolean flag given `=true`/`=false` takes it; any other value: `--nats takes true or false,
 *   got "maybe"`; `--no-<flag>` sets a declared boolean `<flag>` to false;
 * - a repeated flag: the last one wins.
 * New commands declare their flags here too, so every command reads and refuses flags alike.
 */
import { parseArgs } from "node:util";
import { TinyError } from "../core/errors.ts";
import { looksLikeFlag } from "./flag-value.ts";

/** One declared flag (the key of {@link FlagSpecs} is its long name, without `--`). */
export interface FlagSpec {
  /** `"string"`: takes a value; `"boolean"`: a switch. */
  type: "string" | "boolean";
  /** One-letter alias, e.g. `"n"` for `-n`. */
  short?: string;
  /** What the value is, for the missing-value message (default `"a value"`), e.g. `"a directory"`. */
  valueName?: string;
  /** A value flag given any number of times: its values, in order (else the last one given wins). */
  multiple?: boolean;
}

/** The flags of one command by long name. */
export type FlagSpecs = Readonly<Record<string, FlagSpec>>;

/** Parsed values by long name: strings for value flags, booleans for switches; absent when not given. */
export type FlagValues<S extends FlagSpecs> = {
  -readonly [K in keyof S]?: S[K]["type"] extends "boolean" ? boolean : S[K]["multiple"] extends true ? string[] : string;
};

/** A usage mistake on the command line; the message names the argument. code `"USAGE"`. */
export class FlagError extends TinyError<"USAGE"> {
  /** @param message - names the flag or argument and what is wrong with it. */
  constructor(message: string) {
    super("USAGE", message);
  }
}

/** Options of {@link parseFlags}. */
export interface ParseFlagsOptions {
  /** Accept positional arguments (default false: each is an unknown argument). */
  positionals?: boolean;
}

/**
 * Parses `args` (the arguments after the command's name) against `specs` (see the module comment).
 * @returns the values and the positional arguments, in order.
 * @throws FlagError for the first mistake, in argument order.
 */
export function parseFlags<const S extends FlagSpecs>(
  args: readonly string[],
  specs: S,
  options: ParseFlagsOptions = {},
): { values: FlagValues<S>; positionals: string[] } {
  const config = Object.fromEntries(Object.entries(specs).map(([name, s]) => [name, s.short ? { type: s.type, short: s.short } : { type: s.type }]));
  // Non-strict: parseArgs only splits the arguments; every decision below is ours.
  const { tokens } = parseArgs({ args: [...args], options: config, strict: false, allowPositionals: true, tokens: true });
  const values: Record<string, string | boolean | string[]> = {};
  const positionals: string[] = [];
  for (const t of tokens) {
    if (t.kind === "option-terminator") continue;
    if (t.kind === "positional") {
      if (!options.positionals) throw new FlagError(`unknown argument ${JSON.stringify(t.value)}`);
      positionals.push(t.value);
      continue;
    }
    const spec = specs[t.name];
    if (!spec) {
      const negated = t.name.startsWith("no-") ? t.name.slice(3) : "";
      if (negated && specs[negated]?.type === "boolean" && t.value === undefined) {
        values[negated] = false;
        continue;
      }
      throw new FlagError(`unknown argument ${JSON.stringify(args[t.index])}`);
    }
    if (spec.type === "boolean") {
      if (t.value === undefined || t.value === "true") values[t.name] = true;
      else if (t.value === "false") values[t.name] = false;
      else throw new FlagError(`${t.rawName} takes true or false, got ${JSON.stringify(t.value)}`);
      continue;
    }
    if (t.value === undefined || t.value === "" || (!t.inlineValue && looksLikeFlag(t.value))) {
      throw new FlagError(`${t.rawName} needs ${spec.valueName ?? "a value"}`);
    }
    if (spec.multiple) values[t.name] = [...((values[t.name] as string[] | undefined) ?? []), t.value];
    else values[t.name] = t.value;
  }
  return { values: values as FlagValues<S>, positionals };
}
