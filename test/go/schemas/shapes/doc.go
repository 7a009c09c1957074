// Package shapes holds, one sub-package per component, the port types of the Go components that
// tinyhost's bundled components mirror. They are our own declarations of the real components'
// shapes: the same Go type names (so the SDK names the `$defs` as it does for the real module),
// JSON names, schema tags, titles and descriptions — the texts the editor and the platform's agents
// read are part of what a port publishes. Sources read:
//   - tiny-systems/modules (the monorepo the module index points at) @cfbeb8a: common-module
//     router, modify (transform), delay, async, split, signal, ticker, cron, debug, array_get,
//     array_filter, group_by, collect, inject, kv, display, retry; http-module server, client,
//     etc/header.go, etc/content-type.go (@64546ab); js-module components/eval/eval.go
//     (@4675c48, @7e513b5) for js_eval.
//   - counter is tinyhost-only: declared the way a Go component would declare it.
package shapes
