/**
 * `signal` — "Signal": the manual trigger that starts flows (components.md §1.14).
 *
 * `_control` `{send: true, context?}` on the leader emits the control's context (or, when absent,
 * the settings context) on `out` AT THE ROOT (downstream reads `$.field`), detached: the emit runs
 * on the long-lived emitter and the control call returns at once. No running state, no metadata.
 * This is what `send_signal` to `<node>:_control` with `{"send": true, "context": {...}}` does.
 */
import { defineComponent, source, target, Type, type Emitter } from "tinyhost";
import { contextField } from "../src/components-lib/fields.ts";
import { publishAs } from "../src/components-lib/published-schema.ts";

/** Settings accepted: Go decodes a missing context as null. */
const SettingsAccepted = Type.Object({ context: Type.Optional(Type.Unknown()) });
/** Settings as the editor shows them (Go `Settings`). */
const SettingsPublished = Type.Object({ context: contextField("Arbitrary message to send") });

/** Control accepted: `{"send": true}` alone must work (send_signal), so everything is optional. */
const ControlAccepted = Type.Object({
  context: Type.Optional(Type.Unknown()),
  send: Type.Optional(Type.Union([Type.Boolean(), Type.Null()])),
});
/** Control as the dashboard shows it: the context and a Send button. */
const ControlPublished = Type.Object({
  context: contextField("Message to send"),
  send: Type.Boolean({ title: "Send", format: "button", colSpan: "col-span-6" }),
});
type Control = { context?: unknown; send?: boolean | null };

/** `out`: the context value itself. */
const Out = contextField("The context, at the root");

interface SignalSelf {
  context: unknown;
  emit: Emitter | undefined;
}

export default defineComponent({
  info: {
    name: "signal",
    description: "Signal",
    info: "Flow trigger. Send (dashboard button, or send_signal to <node>:_control with {\"send\": true, \"context\": {...}}) emits the context on Out at the root (downstream reads $.field). The emit is detached: Send returns at once. Only the leader pod acts.",
    tags: ["SDK"],
  },
  state: (): SignalSelf => ({ context: null, emit: undefined }),
  ports: (self) => [
    publishAs(target("_settings", SettingsAccepted, { label: "Settings", default: { context: self.context } }), SettingsPublished),
    source("out", Out, { label: "Out", position: "right", default: null }),
    publishAs(source("_control", ControlAccepted, { label: "Control", position: "top", default: { context: self.context, send: false } }), ControlPublished),
  ],
  onEmitter(ctx, emit) {
    ctx.self.emit = emit;
  },
  onSettings(ctx, settings) {
    ctx.self.context = settings.context ?? null;
  },
  onControl(ctx, control) {
    if (!ctx.isLeader) return; // components.md §1.14: leader only
    const c = control as Control; // validated against ControlAccepted by the runner
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
