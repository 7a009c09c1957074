/**
 * `debug` — "Debug" (components.md §1.12): a sink that shows the last message it received. It keeps
 * the message (credential-looking values masked) as its in-memory context, logs it at debug level,
 * and asks for a status refresh so the `_control` port publishes it. Not persisted; returns nothing.
 * The status shows only the latest message (and its patch is debounced, runtime-spec §2.9); local
 * mode prints every message from the hops themselves (src/local/debug-lines.ts) and its console
 * streams them.
 */
import { defineComponent, redact, source, target, Type } from "tinyhost";

// Go `debug` port types (common-module): `InMessage` is a map, so any object arrives whole.
const In = Type.Record(Type.String(), Type.Unknown(), { $id: "InMessage" });

const Control = Type.Object({ context: Type.Unknown({ $id: "Context", title: "Context", readonly: true }) }, { $id: "Control" });

const Settings = Type.Object(
  { context: Type.Unknown({ $id: "Context", configurable: true, title: "Context", description: "Component message" }) },
  { $id: "Settings" },
);

interface DebugSelf {
  /** The last message (masked), or the settings' context before any message arrived. */
  context: unknown;
}

export default defineComponent({
  info: {
    name: "debug",
    description: "Debug",
    info: "Message sink for inspection. Receives messages on In (no output ports). Displays last received message in Control port. Use as flow endpoint to inspect data or terminate unused branches.",
    tags: ["SDK"],
  },
  state: (): DebugSelf => ({ context: null }),
  ports: (self) => [
    target("in", In, { label: "In", position: "left", default: {} }),
    source("_control", Control, { label: "Control", position: "top", default: { context: self.context } }),
    target("_settings", Settings, { label: "Settings", position: "top", default: { context: self.context } }),
  ],
  onSettings(ctx, settings) {
    ctx.self.context = redact(settings.context ?? null);
  },
  async handle(ctx, output, _port, data) {
    ctx.self.context = redact(data);
    ctx.log.debug({ node: ctx.node.nodeName, message: ctx.self.context }, "debug: message received");
    // A `_reconcile` without an updater re-publishes the ports: that is how the message shows up.
    await output("_reconcile");
  },
});
