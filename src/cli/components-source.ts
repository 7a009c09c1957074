/**
 * Where a command takes its components from when no directory flag (`--components`, `--dir`) is
 * given, in the words its help text uses. The answer differs between a run from source and the
 * compiled binary, so help texts are rendered for the process showing them:
 * - compiled binary (`Bun.isStandaloneExecutable`): the set compiled in by `npm run build`
 *   (src/loader/static.ts); a directory flag loads that directory instead;
 * - from source: `./components` under the working directory; cluster mode alone falls back to the
 *   bundled set when there is none (src/operator/stages.ts `loadRegistry`), while local mode and
 *   `tinyhost components` report the missing directory.
 */

/** How the default is chosen, for {@link componentsDefault}. */
export interface ComponentsSourceCase {
  /** true inside the compiled binary (`Bun.isStandaloneExecutable`). */
  compiled: boolean;
  /** From source: without `./components`, use the bundled set instead of failing (cluster `run`). */
  bundledFallback: boolean;
}

/**
 * The "default …" phrase for a directory flag, e.g. `default: the components compiled into this
 * binary` or `default ./components`.
 */
export function componentsDefault(c: ComponentsSourceCase): string {
  if (c.compiled) return "default: the components compiled into this binary";
  return c.bundledFallback ? "default ./components; without it, tinyhost's bundled components" : "default ./components";
}

/** True inside the compiled binary; the case help texts are rendered for by default. */
export function isCompiledBinary(): boolean {
  return Bun.isStandaloneExecutable;
}
