/**
 * When the argument after a value-taking flag is that flag's value: the one rule the `tinyhost`
 * commands share, so `--port -1` reads as the value "-1" (and is then refused by the range check,
 * naming it) rather than as a flag `-1` that leaves `--port` without a value.
 */

/** A negative decimal number: `-1`, `-0.5`, `-.5`, `-1e3`. */
const NEGATIVE_NUMBER = /^-(?:\d+(?:\.\d*)?|\.\d+)(?:e[+-]?\d+)?$/i;

/**
 * True when `arg` is a flag (`-h`, `--name`, `--port=1`), false for values — including negative
 * numbers, which a value-taking flag must receive so its own check can say what is wrong with them.
 * @param arg one command-line argument.
 */
export function looksLikeFlag(arg: string): boolean {
  return arg.startsWith("-") && arg !== "-" && !NEGATIVE_NUMBER.test(arg);
}
