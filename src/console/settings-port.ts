/**
 * Why a sent message may not go to a node's `_settings` port — the one rule `tinyhost send` and
 * the console's `POST /api/send` share. Go's runner does take a `_settings` signal (it decodes it
 * and calls OnSettings), but its next reconcile — each spec or `status.metadata` change (a
 * counter's state write is one) and every 5 min (internal/controller/tinynode_controller.go) —
 * re-delivers the node's own settings over it, so a sent value looks applied and is silently
 * undone (docs/compatibility.md "`_settings` is refused").
 */

/** The settings port (runtime-spec §2.3). */
export const SETTINGS_PORT = "_settings";

/** The refusal, naming the port and what to do instead. */
export const SETTINGS_REFUSED =
  "_settings is the node's own configuration: a sent value would be applied and then replaced by the node's settings at its next reconcile (a state change or within 5 min, as Go's runner does), so send refuses it; change the settings in the node's manifest instead (run --local reloads the directory; on a cluster edit the TinyNode's _settings port configuration)";
