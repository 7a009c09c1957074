/**
 * `form` — "Form" (common-module form, components.md §1.22): a dashboard form that reports its
 * outcome in place. A person fills the configured fields (the settings' `context`, whose schema the
 * user authors) and presses Submit on the `_control` widget: the leader emits the values on `out`
 * (detached, like signal) after clearing the previous result. The flow writes back on `result`
 * (`{text, prefill?}`): the text appears under the button, `prefill` replaces the field values.
 *
 * Both are node state (`_state/result`: the text's bytes; `_state/prefill`: JSON, as Go writes
 * them), so the card still shows "saved ✓" after a restart and on every replica. `result` is not
 * leader-gated (results reach any replica); Submit acts on the leader only.
 */
import { defineComponent, mark, source, target, Type, type Emitter, type State } from "tinyhost";

const RESULT_KEY = "result";
const PREFILL_KEY = "prefill";

const formField = (description?: string) =>
  mark(Type.Unknown({ $id: "Context" }), { configurable: true, title: "Form", ...(description ? { description } : {}) });

const Settings = Type.Object(
  { context: formField('The form\'s fields. Author a custom schema (masked passwords via writeOnly + format:"password") for the fields a person fills.') },
  { $id: "Settings" },
);

/** The widget: the fields, Submit, and the flow's result line (read-only markdown under the button). */
const Control = Type.Object(
  {
    context: formField(),
    submit: Type.Boolean({ format: "button", title: "Submit" }),
    result: Type.Optional(Type.String({ readonly: true, format: "markdown", title: "", description: "" })),
  },
  { $id: "Control" },
);

const ResultMessage = Type.Object(
  {
    text: Type.String({ title: "Text", description: "Outcome shown inside the form widget, under the button. Markdown is rendered." }),
    prefill: Type.Optional(
      mark(Type.Unknown({ $id: "Context" }), {
        title: "Prefill",
        description:
          "Optional values written back into the form's fields (e.g. the masked saved secret into a password field). Persisted; shown until the person edits or the flow overwrites.",
      }),
    ),
  },
  { $id: "ResultMessage" },
);

/** `out`: the submitted values at the root (Go `new(Context)`). */
const Out = Type.Unknown({ $id: "Context" });

interface FormSelf {
  /** The authored fields (settings' context). */
  context: unknown;
  state: State | undefined;
  emit: Emitter | undefined;
  /** `_state/result` as last read ("" when absent). */
  result: string;
  /** `_state/prefill` as last read (undefined when absent or unreadable). */
  prefill: unknown;
}

const dec = new TextDecoder();

/** Re-reads the result line and the prefill from state (ports() is synchronous, state reads are not). */
async function refresh(self: FormSelf): Promise<void> {
  if (!self.state) return;
  const raw = await self.state.get(RESULT_KEY);
  self.result = raw === undefined ? "" : dec.decode(raw);
  const pre = await self.state.get(PREFILL_KEY);
  try {
    self.prefill = pre === undefined ? undefined : (JSON.parse(dec.decode(pre)) as unknown);
  } catch {
    self.prefill = undefined; // unreadable: show the authored form
  }
}

/** `_control` data (Go `control()`): what the flow wrote back wins over the authored blank form. */
function control(self: FormSelf): { context: unknown; submit: boolean; result?: string } {
  const context = self.prefill !== undefined && self.prefill !== null ? self.prefill : self.context;
  return { context, submit: false, ...(self.result !== "" ? { result: self.result } : {}) };
}

export default defineComponent({
  info: {
    name: "form",
    description: "Form",
    info:
      "A form widget that reports its outcome in place: a person fills the configured fields and presses Submit, " +
      "the values emit on Out, and whatever the flow writes to Result appears under the button — one card, no separate status panel. " +
      'The settings-form pattern is the canonical use: a masked API-key field (author the context schema with writeOnly + format:"password") ' +
      '→ validate against the real API → store under a handle → Result: "saved ••••last4 ✓". ' +
      "The result line persists across restarts. For free-form conversation use chat; for a fire-and-forget trigger use signal.",
    tags: ["SDK", "dashboard"],
  },
  state: (): FormSelf => ({ context: null, state: undefined, emit: undefined, result: "", prefill: undefined }),
  ports: (self) => [
    target("_settings", Settings, { label: "Settings", position: "top", default: { context: self.context } }),
    source("out", Out, { label: "Out", position: "right", default: null }),
    target("result", ResultMessage, { label: "Result", position: "left", default: { text: "" } }),
    source("_control", Control, { label: "Control", position: "top", default: control(self) }),
  ],
  onState(ctx, state) {
    ctx.self.state = state;
  },
  onEmitter(ctx, emit) {
    ctx.self.emit = emit;
  },
  async onReconcile(ctx) {
    await refresh(ctx.self); // another replica may have written a result
  },
  onSettings(ctx, settings) {
    ctx.self.context = settings.context ?? null;
  },
  async onControl(ctx, message, output) {
    if (!ctx.isLeader) return;
    const c = message as { context: unknown; submit: boolean };
    if (c.submit !== true) return; // a keystroke sync or a re-render, not a submission
    const self = ctx.self;
    const values = c.context !== null && c.context !== undefined ? c.context : self.context;
    // A result describes the submission that produced it: clear it while this one runs.
    if (self.state) {
      self.state.delete(RESULT_KEY).catch((err: unknown) => ctx.log.warn({ err: String(err) }, "form: could not clear the previous result"));
      self.result = "";
      void output("_control");
    }
    void self.emit?.("out", values, ctx.nodeSignal);
  },
  async handle(ctx, output, _port, data) {
    // Not leader-gated: results reach any replica and converge through state.
    const self = ctx.self;
    if (self.state) {
      // Staged at once (readable, refusals such as STATE_TOO_LARGE thrown now); persisted by the
      // node's next status write, which is retried on failure.
      const writes = [self.state.set(RESULT_KEY, data.text)];
      if (data.prefill !== null && data.prefill !== undefined) writes.push(self.state.set(PREFILL_KEY, JSON.stringify(data.prefill)));
      for (const w of writes) w.catch(() => undefined);
      try {
        await Promise.race([Promise.all(writes), Promise.resolve()]);
      } catch (err) {
        throw new Error(`persist result: ${err instanceof Error ? err.message : String(err)}`, { cause: err });
      }
      self.result = data.text;
      if (data.prefill !== null && data.prefill !== undefined) self.prefill = data.prefill;
    }
    await output("_control");
  },
});
