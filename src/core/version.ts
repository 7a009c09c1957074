/**
 * The versions of this build: tinyhost's own, read from package.json at build time (Bun inlines
 * JSON imports, so the compiled binary carries it too), and the Go SDK version whose behaviour it
 * implements.
 */
import pkg from "../../package.json" with { type: "json" };

/** Semantic version of this tinyhost build, e.g. `0.1.0`. Shown to humans: `tinyhost version`, the
 * `tinyhost.io/version` annotation on the TinyModule, `tinyhost_build_info` on /metrics. */
export const version: string = pkg.version;

/**
 * The Go SDK (`github.com/tiny-systems/module`) version whose behaviour tinyhost implements, written
 * where a Go module writes the SDK version it was built with (its build info, `v` stripped, cli/run.go
 * `getSDKVersion`): TinyModule `status.sdkVersion` (internal/controller/tinymodule_controller.go) and
 * TinyNode `status.module.sdkVersion` (tinynode_controller.go); runtime-spec §17.
 *
 * 0.13.131 is the newest Go SDK whose observable behaviour tinyhost implements: every commit up to it
 * was read (docs/compatibility.md "Go SDK v0.13.125 → v0.13.131" says what each changed and what
 * tinyhost does). The tests prove behaviour against {@link SDK_CHECKED_VERSION}, the newest one the
 * Go module proxy serves (the Go peer and the evaluator oracle, test/go/go.mod). Raise it only
 * after reading the commits up to the new version and matching or listing them.
 */
export const SDK_VERSION = "0.13.131";

/**
 * The Go SDK version the integration tests run against (test/go/go.mod pins `v` + this): the
 * claims of docs/compatibility.md marked "peer" are checked against it, the others read at
 * {@link SDK_VERSION}. `tinyhost version` prints both.
 */
export const SDK_CHECKED_VERSION = "0.13.125";
