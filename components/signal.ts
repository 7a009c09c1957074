/**
 * `signal` — "Signal": the manual trigger that starts flows (components.md §1.14).
 *
 * `_control` `{send: true, context?}` on the leader emits the control's context (or, when absent,
 * the settings context) on `out` AT THE ROOT (downstream reads `$.field`), detached: the emit runs
 * on the long-lived emitter and the control call returns at once. No running state, no metadata.
 * This is what `send_signal` to `<node>:_control` with `{"send": true, "context": {...}}` does.
 */
import { contextField, defineComponent, source, target, Type, type Emitter, type Static } from "tinyhost";

/** Settings (Go `Settings`): a missing context decodes as null. */
const Settings = Type.Object({ context: contextField("Arbitrary message to send") }, { $id: "Settings" });

/** Control (Go `Control`): `{"send": true}` alone decodes with a null context (the settings' one is sent). */
const Control = Type.Object(
  {
    context: Type.Unknown({ $id: "Context", configurable: true, title: "Context" }),
    send: Type.Boolean({ title: "Send", format: "button" }),
  },
  { $id: "Control" },
);

/** `out`: the context value itself (Go `new(Context)`: an untyped root def, no annotations). */
const Out = Type.Unknown({ $id: "Context" });

interface SignalSelf {
  context: unknown;
  emit: Emitter | undefined;
}

export default defineComponent({
  info: {
    name: "signal",
    description: "Signal",
    info: "Flow trigger. Click Send to emit the configured context on Out and kick off the flow. Fire-and-forget: it emits once and returns — there is no running state and no Reset (the distributed runtime can't cancel downstream work by context). To stop something the flow started, wire a Stop-capable component downstream (e.g. http_server's Stop port). Use as an entry point.",
    tags: ["SDK"],
  },
  state: (): SignalSelf => ({ context: null, emit: undefined }),
  ports: (self) => [
    target("_settings", Settings, { label: "Settings", default: { context: self.context } }),
    source("out", Out, { label: "Out", position: "right", default: null }),
    source("_control", Control, { label: "Control", position: "top", default: { context: self.context, send: false } }),
  ],
  onEmitter(ctx, emit) {
    ctx.self.emit = emit;
  },
  onSettings(ctx, settings) {
    ctx.self.context = settings.context ?? null;
  },
  onControl(ctx, control) {
    if (!ctx.isLeader) return; // components.md §1.14: leader only
    const c = control as Static<typeof Control>; // decoded by the runner: every field present
    if (c.send !== true) return;
    const emit = ctx.self.emit;
    if (!emit) return;
    const value = c.context !== undefined && c.context !== null ? c.context : ctx.self.context;
    const log = ctx.log;
    // Fire-and-forget on a background context: ends with the downstream chain or the node.
    void emit("out", value, ctx.nodeSignal).then((r) => {
      if (r.kind === "fail") log.warn({ err: r.error.message }, "signal: downstream failed");
    });
  },
  handle: () => undefined,
});
