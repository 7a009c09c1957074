/**
 * `display` — "Display" (Go common-module `components/display`): a dashboard panel showing one
 * piece of markdown. The text is published as the `_control` port's configuration `{text}` — what
 * the platform's dashboard widget and the editor read from `TinyNode.status.ports` (Go runner
 * `ReadStatus`; `format: markdown` makes them render it, `readonly` keeps it out of the form).
 *
 * A message on `in` stores its `text` verbatim in node State (`_state/text`, so it survives
 * restarts and reaches every replica through the node's status) and re-publishes the ports; it
 * returns nothing (a sink). Until a message ever arrived the panel shows `settings.text`, the
 * authored text that ships with the flow; once one arrived the runtime text wins, also after a
 * restart. A text the node's 900 KiB state budget cannot hold fails the hop (`persist text: …`).
 */
import { defineComponent, fail, rejectedNow, source, target, Type, type Emitter, type State } from "tinyhost";

/** State key of the last text shown (Go `stateKeyText`). */
const TEXT_KEY = "text";

// Go `display` port types; `$id`s are the Go type names.
const Settings = Type.Object(
  {
    text: Type.Optional(
      Type.String({
        format: "markdown",
        title: "Text",
        description: "Shown until a message arrives. Use it for a readme or a placeholder — it ships with the flow, unlike text delivered at runtime.",
      }),
    ),
  },
  { $id: "Settings" },
);

const In = Type.Object({ text: Type.String({ title: "Text", description: "What to show. Markdown is rendered." }) }, { $id: "InMessage" });

const Control = Type.Object({ text: Type.Optional(Type.String({ readonly: true, format: "markdown", title: "", description: "" })) }, { $id: "Control" });

interface DisplaySelf {
  /** `settings.text`: shown while no message ever arrived. */
  authored: string;
  /** The stored runtime text; undefined when none was ever stored. */
  shown: string | undefined;
  state: State | undefined;
  emit: Emitter | undefined;
}

const dec = new TextDecoder();

/** The stored runtime text, or undefined when no message ever arrived. */
async function storedText(state: State): Promise<string | undefined> {
  const bytes = await state.get(TEXT_KEY);
  return bytes === undefined ? undefined : dec.decode(bytes);
}

export default defineComponent({
  info: {
    name: "display",
    description: "Display",
    info:
      "Shows one piece of text on the dashboard, rendered as markdown. " +
      "Use it as a flow's answer panel: wire the value a person actually reads into Text " +
      '(e.g. text: "{{$.outputData.messages[0].content}}") rather than passing the whole message, ' +
      "which renders as a wall of form fields. Has no output ports — it is a sink. " +
      "Enable it as a dashboard widget to give a flow a readable result. " +
      "For a panel of written text — a readme describing what the agent does — wire nothing and set " +
      "settings.text instead: that ships with the flow, whereas text delivered at runtime does not " +
      "survive an export and leaves a blank card for whoever installs it.",
    tags: ["SDK", "dashboard"],
  },
  state: (): DisplaySelf => ({ authored: "", shown: undefined, state: undefined, emit: undefined }),
  ports: (self) => [
    target("in", In, { label: "In", position: "left", default: { text: "" } }),
    source("_control", Control, { label: "Control", position: "top", default: { text: self.shown ?? self.authored } }),
    target("_settings", Settings, { label: "Settings", position: "top", default: { text: self.authored } }),
  ],
  async onState(ctx, state) {
    ctx.self.state = state;
    ctx.self.shown = await storedText(state);
  },
  onEmitter(ctx, emit) {
    ctx.self.emit = emit;
  },
  async onReconcile(ctx) {
    // Another replica (or a pod before a restart) may have stored a newer text: show it here too.
    const self = ctx.self;
    if (!self.state) return;
    const shown = await storedText(self.state);
    if (shown === self.shown) return;
    self.shown = shown;
    void self.emit?.("_reconcile");
  },
  onSettings(ctx, settings) {
    ctx.self.authored = settings.text ?? "";
  },
  async handle(ctx, output, _port, data) {
    const self = ctx.self;
    if (self.state) {
      // Stored as given (redaction works by field name; publishing masks credential-shaped fields).
      const refused = rejectedNow(self.state.set(TEXT_KEY, data.text));
      if (refused) return fail(new Error(`persist text: ${(refused.reason as Error).message}`, { cause: refused.reason }));
    }
    self.shown = data.text;
    // A `_reconcile` without an updater re-publishes the ports: that is how the text reaches the dashboard.
    await output("_reconcile");
  },
});
