/**
 * `counter` — "Counter" (components.md §4.1, TS-only bundle component): counts messages on `in`,
 * keeping the count in node State (`status.metadata["_state/count"]`, base64 of the decimal text),
 * so a restarted pod or a new leader continues from the persisted value. Emits `{context, count}`
 * on `out` and returns the downstream result, so it can sit inside a request/response chain.
 */
import { defineComponent, SerialQueue, source, target, Type, type Emitter, type State } from "tinyhost";

/** State key of the count (components.md §4.1). */
const COUNT_KEY = "count";

// Port types declared the way a Go component would (test/go/schemas/shapes/counter): no `required`
// beyond the button, so settings or messages without a field decode to its zero value.
const Settings = Type.Object(
  {
    step: Type.Optional(Type.Integer({ default: 1, title: "Step", description: "Added to the count for each message unless the message sets By; 0 means 1" })),
    initial: Type.Optional(Type.Integer({ title: "Initial", description: "Count before the first message, and after a reset" })),
  },
  { $id: "Settings" },
);

const In = Type.Object(
  {
    context: Type.Optional(Type.Unknown({ $id: "Context", configurable: true, title: "Context", description: "Message passed on with the count" })),
    by: Type.Optional(Type.Integer({ title: "By", description: "Added instead of Step when not zero" })),
  },
  { $id: "InMessage" },
);

const Out = Type.Object(
  {
    context: Type.Optional(Type.Unknown({ $id: "Context", configurable: true, title: "Context" })),
    count: Type.Optional(Type.Integer({ title: "Count" })),
  },
  { $id: "OutMessage" },
);

const Control = Type.Object(
  {
    count: Type.Optional(Type.Integer({ title: "Count", readonly: true })),
    reset: Type.Boolean({ title: "Reset", format: "button" }),
  },
  { $id: "Control" },
);

interface CounterSelf {
  settings: { step: number; initial: number };
  state: State | undefined;
  emit: Emitter | undefined;
  /** Last count read or written by this instance; `undefined` = none stored (shows `initial`). */
  count: number | undefined;
  /** `_control` was republished after this process's first reconcile (components.md §4.1). */
  published: boolean;
  readonly serial: SerialQueue;
}

const dec = new TextDecoder();

/** Reads the stored count; `undefined` when absent. Throws a clear error for a non-integer value. */
async function readCount(state: State): Promise<number | undefined> {
  const bytes = await state.get(COUNT_KEY);
  if (bytes === undefined) return undefined;
  const text = dec.decode(bytes).trim();
  const n = Number(text);
  if (text === "" || !Number.isSafeInteger(n)) throw new Error(`counter: state key "${COUNT_KEY}" holds ${JSON.stringify(text)}, not an integer`);
  return n;
}

export default defineComponent({
  info: {
    name: "counter",
    description: "Counter",
    info: "Counts incoming messages. Adds By (or Step) to a count kept in node state, emits the context with the new count on Out and returns what Out returned. The count survives restarts; Reset on the control panel starts it again from Initial.",
    tags: ["SDK"],
  },
  state: (): CounterSelf => ({
    settings: { step: 1, initial: 0 },
    state: undefined,
    emit: undefined,
    count: undefined,
    published: false,
    serial: new SerialQueue(),
  }),
  ports: (self) => [
    target("_settings", Settings, { label: "Settings", position: "top", default: self.settings }),
    target("in", In, { label: "In", position: "left", default: { context: null, by: 0 } }),
    source("out", Out, { label: "Out", position: "right", default: { context: null, count: 0 } }),
    source("_control", Control, { label: "Control", position: "top", default: { count: self.count ?? self.settings.initial, reset: true } }),
  ],
  onState(ctx, state) {
    ctx.self.state = state;
  },
  onEmitter(ctx, emit) {
    ctx.self.emit = emit;
  },
  async onReconcile(ctx) {
    const self = ctx.self;
    if (self.published || !self.state) return;
    // First reconcile in this process (restart, new pod): show the persisted count.
    self.count = await readCount(self.state);
    self.published = true;
    void self.emit?.("_control");
  },
  onSettings(ctx, settings) {
    // Decoded settings: a missing field is 0; a step of 0 would count nothing, so it means 1.
    ctx.self.settings = { step: settings.step || 1, initial: settings.initial ?? 0 };
  },
  async onControl(ctx, control, output) {
    if (!ctx.isLeader || (control as { reset?: unknown }).reset !== true) return;
    const self = ctx.self;
    await self.serial.run(async () => {
      void self.state?.delete(COUNT_KEY); // readable at once; persisted as the count below
      self.count = undefined;
    });
    void output("_control");
  },
  async handle(ctx, output, _port, data) {
    const self = ctx.self;
    const state = self.state;
    if (!state) throw new Error("counter: node state is not available yet");
    const count = await self.serial.run(async () => {
      const current = (await readCount(state)) ?? self.settings.initial;
      const next = current + (data.by ? data.by : self.settings.step);
      // Readable at once; persisted by the node's next status write (≤ 1 s), which is retried when it
      // fails and flushed when the node stops (docs/authoring.md "State"). Awaiting it would hold
      // every message for that write; a failure shows on the node's status.
      void state.set(COUNT_KEY, String(next));
      self.count = next;
      return next;
    });
    void output("_control");
    return output("out", { context: data.context ?? null, count });
  },
});
