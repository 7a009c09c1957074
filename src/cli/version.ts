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
 * 0.13.130 is the version our CRDs and the recorded conformance data (../shared/conformance) come
 * from. The tests prove behaviour against v0.13.125 (the Go peer and the evaluator oracle,
 * test/go/go.mod), whose evaluator reproduces every 0.13.130 recording. Raise it only together
 * with the CRDs and the conformance data.
 */
export const SDK_VERSION = "0.13.130";
