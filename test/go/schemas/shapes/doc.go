// Package shapes holds, one sub-package per component, the port types of the Go components that
// tinyhost's bundled components mirror. They are our own declarations of the real components'
// shapes: the same Go type names (so the SDK names the `$defs` as it does for the real module),
// JSON names and schema tags. Sources read:
//   - tiny-systems/modules (the monorepo the module index points at) @64546ab / @4675c48:
//     common-module router, split, cron, debug_test.go (debug's InMessage is a map); http-module
//     server, client, etc/header.go, etc/content-type.go; js-module components/eval/eval.go
//     (@4675c48, @7e513b5) for js_eval.
//   - tiny-systems/common-module @c7d3be2 / @02538d9 / @4d80a42 for async, delay, modify, signal,
//     ticker and debug tags (their monorepo files are not readable here), completed with
//     docs/reference/components.md (read from the monorepo at cfbeb8a): async `_settings`
//     maxConcurrency, `{context}` on async/delay/modify `out`, cron-style ticker control structs,
//     the fire-and-forget signal control (no reset).
//   - counter is tinyhost-only: declared the way a Go component would declare it.
//
// Descriptions are tinyhost's own words where the text is prose (both sides carry the same text);
// titles follow Go wherever the Go source was readable.
package shapes
