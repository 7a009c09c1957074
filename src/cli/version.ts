/**
 * The tinyhost version, read from package.json at build time (Bun inlines JSON imports, so the
 * compiled binary carries it too).
 */
import pkg from "../../package.json" with { type: "json" };

/** Semantic version of this tinyhost build, e.g. `0.1.0`. */
export const version: string = pkg.version;
