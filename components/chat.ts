/**
 * `chat` — "Chat with a human" (common-module chat, components.md §1.21): the flow's conversation
 * widget on the platform's dashboard.
 *
 * - A human types in the composer → the widget sends `{_kind: "message", text}` on `_control` → a
 *   bubble in the thread, marked pending, and `{requestId, text}` on `message` (detached).
 * - The flow speaks on `say` → a markdown bubble; a `requestId` of a pending message marks it answered.
 * - The flow asks on `ask` → a question card (the request's form, else the settings form, else
 *   Approve/Deny) queued FIFO; the human's submission (`{_kind: "answer", _qid, …values}`) of the
 *   head question emits `{questionId, values, context}` on `answer` (detached).
 * - A question unanswered for `timeoutSeconds` expires onto `error` (when enabled) and leaves a
 *   note in the thread; `clear` wipes the thread and the queue.
 *
 * What the dashboard reads is the `_control` port: its authored schema (root `format: "chat"`,
 * Go's Port.Schema, published verbatim) and its data `{thread, placeholder, hideComposer?,
 * pendingQuestion?: {qid, form, context, waiting}}`. The thread and the queue are node state
 * (`_state/thread`, `_state/queue`, JSON as Go writes them), so a restarted pod and every replica
 * show the same conversation. Business ports are not leader-gated; `_control` and the reconcile
 * tick act on the leader only. Secrets (writeOnly, `format: password`, `secret`) are masked in the
 * persisted thread; the raw values travel only on `answer`.
 */
import {
  defineComponent,
  errorCode,
  mark,
  nodeTimeout,
  omitEmpty,
  SerialQueue,
  source,
  stringEnum,
  systemClock,
  target,
  Type,
  formatRfc3339Nano,
  type ComponentContext,
  type Emitter,
  type State,
  type WallClock,
} from "tinyhost";

const THREAD_KEY = "thread";
const QUEUE_KEY = "queue";
const DEFAULT_HISTORY_LIMIT = 50;
/** What a write-only submission value becomes wherever the conversation is persisted or shown. */
const SECRET_MASK = "••••••";
/** Node state cap, KiB (runtime-spec §4.6), named in the "budget exhausted" error as Go does. */
const STATE_CAP_KIB = 900;

/** The question form when neither the ask request nor the settings author one (Go `defaultForm`). */
const DEFAULT_FORM = `{
  "type": "object",
  "properties": {
    "approve": {"type": "boolean", "title": "Approve", "format": "button", "propertyOrder": 1},
    "deny":    {"type": "boolean", "title": "Deny",    "format": "button", "propertyOrder": 2}
  }
}`;

/** `_control`'s authored schema (Go `controlSchema()`): the chat renderer's root format; form fallback fields. */
const CONTROL_SCHEMA = {
  type: "object",
  format: "chat",
  properties: {
    _kind: { type: "string", title: "Kind", readonly: true },
    text: { type: "string", title: "Message", format: "textarea" },
    _qid: { type: "string", title: "Question ID", readonly: true },
  },
};

const ctxDef = (options: { configurable?: boolean; description?: string }) =>
  mark(Type.Unknown({ $id: "Context" }), {
    ...(options.configurable ? { configurable: true } : {}),
    title: "Context",
    ...(options.description ? { description: options.description } : {}),
  });

const Settings = Type.Object(
  {
    form: Type.Optional(
      Type.String({
        title: "Question Form",
        format: "code",
        language: "json",
        description: "Default JSON Schema for ask questions (a request's own form overrides it). Leave empty for Approve/Deny.",
      }),
    ),
    timeoutSeconds: Type.Optional(
      Type.Integer({
        title: "Question Timeout Seconds",
        default: 0,
        description:
          "How long a question may stay unanswered before it expires onto the Error port (0 = wait forever). Expiry is passive — checked when messages arrive and on reconcile ticks.",
      }),
    ),
    enableErrorPort: Type.Boolean({
      title: "Enable Error Port",
      description:
        "Emit timed-out questions on the Error port as {context, error}. Without it expired questions are dropped with a log line — enable this when a timeout is set.",
    }),
    historyLimit: Type.Optional(
      Type.Integer({
        title: "History Limit",
        default: 50,
        description: "Messages kept in the widget thread. Display only — conversation memory belongs in a store component.",
      }),
    ),
    placeholder: Type.Optional(Type.String({ title: "Composer Placeholder", description: "Hint text in the input box, e.g. 'Ask the agent…'." })),
    hideComposer: Type.Optional(
      Type.Boolean({
        title: "Hide Composer",
        description:
          "Form mode: the widget shows only question cards and notes — no free-text input. For settings-style surfaces where the flow drives every question (keep the card armed by re-asking after each answer).",
      }),
    ),
  },
  { $id: "Settings" },
);

const Say = Type.Object(
  {
    requestId: Type.Optional(
      Type.String({
        title: "Request ID",
        description:
          "Id from a message emitted on the Message port; carrying it back marks that message answered. Empty or unknown ids are shown as unsolicited messages, not dropped.",
      }),
    ),
    role: Type.Optional(
      stringEnum(["assistant", "system", "error"], { title: "Role", description: "How the bubble renders: assistant (default), system note, or error note." }),
    ),
    text: Type.Optional(Type.String({ title: "Text", description: "Markdown is rendered." })),
    context: Type.Optional(ctxDef({ configurable: true })),
  },
  { $id: "Say" },
);

const AskRequest = Type.Object(
  {
    context: Type.Optional(ctxDef({ configurable: true, description: "Payload under review — shown on the question card and passed through to the answer." })),
    form: Type.Optional(
      Type.String({
        title: "Form",
        format: "code",
        language: "json",
        description: 'JSON Schema of the question form, overriding the Settings form for this question only. Fields with format:"button" are the answers.',
      }),
    ),
  },
  { $id: "AskRequest" },
);

const ClearRequest = Type.Object(
  {
    context: Type.Optional(
      ctxDef({
        configurable: true,
        description:
          "Passthrough payload, carried for correlation only — anything arriving here wipes the displayed conversation and any pending questions. Conversation MEMORY lives in a store component and must be cleared there separately.",
      }),
    ),
  },
  { $id: "ClearRequest" },
);

const Message = Type.Object(
  {
    requestId: Type.Optional(Type.String({ title: "Request ID", description: "Carry this back on Say so the thread marks the message answered." })),
    text: Type.Optional(Type.String({ title: "Text" })),
    context: Type.Optional(ctxDef({})),
  },
  { $id: "Message" },
);

const Answer = Type.Object(
  {
    questionId: Type.Optional(Type.String({ title: "Question ID" })),
    values: Type.Optional(
      Type.Record(Type.String(), Type.Unknown(), { title: "Values", description: "What the human submitted, keyed by the form's field names." }),
    ),
    context: Type.Optional(ctxDef({ description: "The ask request payload, unchanged." })),
  },
  { $id: "Answer" },
);

const ErrorMessage = Type.Object(
  {
    context: Type.Optional(ctxDef({ description: "The ask request payload of the expired question, unchanged." })),
    error: Type.Optional(Type.String({ title: "Error" })),
  },
  { $id: "ErrorMessage" },
);

/** `_control` data arrives as a map (Go decodes it into `map[string]interface{}`). */
const Control = Type.Record(Type.String(), Type.Unknown());

/** One bubble of the display buffer (Go `threadEntry`; JSON as Go writes it into `_state/thread`). */
export interface ThreadEntry {
  id: string;
  /** message | reply | question | answer | note */
  kind: string;
  role?: string;
  text?: string;
  values?: Record<string, unknown>;
  qid?: string;
  at: string;
  /** A human message still waiting for its reply, or a question still unanswered. */
  pending?: boolean;
}

/** One queued question (Go `pendingQuestion`): the form is kept as asked, whatever changes later. */
export interface PendingQuestion {
  id: string;
  context: unknown;
  form: unknown;
  askedAt: string;
}

interface ChatSettings {
  form: string;
  timeoutSeconds: number;
  enableErrorPort: boolean;
  historyLimit: number;
  placeholder: string;
  hideComposer: boolean;
}

interface Expired {
  context: unknown;
  error: string;
}

/** Per-node instance state. */
export interface ChatSelf {
  settings: ChatSettings;
  state: State | undefined;
  emit: Emitter | undefined;
  /** Serialises read-modify-write of thread and queue within this replica (Go `stateMu`). */
  readonly serial: SerialQueue;
  /** The widget was republished once after this process's first reconcile (Go `rehydrated`). */
  rehydrated: boolean;
  /** Clock seam for tests (Go `now`). */
  clock: WallClock;
  /** Cancels the pending expiry timer, if one is armed (leader only). */
  cancelExpiry: (() => void) | undefined;
  /** `_control` data as last read from state; undefined before the first read. */
  shown: Record<string, unknown> | undefined;
}

const enc = new TextEncoder();
const dec = new TextDecoder();

/** `<prefix>-<unix ns>-<8 hex>`, as Go's `newID`. */
function newId(prefix: string, now: Date): string {
  const rand = crypto.getRandomValues(new Uint8Array(4));
  return `${prefix}-${BigInt(now.getTime()) * 1_000_000n}-${Buffer.from(rand).toString("hex")}`;
}

function isJson(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

/** Reads a list kept under `key`; unreadable state starts over rather than wedging the node (as Go). */
async function loadList<T>(state: State, key: string): Promise<T[]> {
  const raw = await state.get(key);
  if (raw === undefined) return [];
  try {
    const v = JSON.parse(dec.decode(raw)) as unknown;
    return Array.isArray(v) ? (v as T[]) : [];
  } catch {
    return [];
  }
}

/**
 * Stores (or, when empty, deletes) a list. Waits for the value to be staged — a refusal such as
 * STATE_TOO_LARGE rejects at once — but not for the status write that persists it, as Go's `Set`
 * returns once the write is queued (docs/authoring.md "State").
 */
async function saveList(state: State, key: string, list: readonly unknown[]): Promise<void> {
  const write = list.length === 0 ? state.delete(key) : state.set(key, enc.encode(JSON.stringify(list)));
  write.catch(() => undefined); // a later failure is retried and shown on the node's status
  try {
    await Promise.race([write, Promise.resolve()]);
  } catch (err) {
    if (errorCode(err) === "STATE_TOO_LARGE") {
      throw new Error(
        `state budget exhausted (~${STATE_CAP_KIB}KB per node): lower historyLimit or carry smaller context (IDs, not blobs): ${(err as Error).message}`,
        { cause: err },
      );
    }
    throw err;
  }
}

function appendCapped(thread: ThreadEntry[], limit: number, ...entries: ThreadEntry[]): ThreadEntry[] {
  const all = [...thread, ...entries];
  return all.length > limit ? all.slice(all.length - limit) : all;
}

/** Splits the queue into kept and expired questions (Go `sweepExpired`); a timeout ≤ 0 keeps all. */
export function sweepExpired(queue: readonly PendingQuestion[], now: Date, timeoutSeconds: number): { kept: PendingQuestion[]; expired: Expired[] } {
  if (timeoutSeconds <= 0) return { kept: [...queue], expired: [] };
  const kept: PendingQuestion[] = [];
  const expired: Expired[] = [];
  for (const q of queue) {
    if (now.getTime() - Date.parse(q.askedAt) > timeoutSeconds * 1000) expired.push({ context: q.context, error: `question expired after ${timeoutSeconds}s` });
    else kept.push(q);
  }
  return { kept, expired };
}

/** The expiries as thread notes, so the human sees a question vanish for a reason. */
function expiredNotes(expired: readonly Expired[], now: Date): ThreadEntry[] {
  return expired.map((e) => ({ id: newId("n", now), kind: "note", role: "error", text: e.error, at: formatRfc3339Nano(now) }));
}

/** Names of a form's fields whose values must never persist: `writeOnly`, `format: "password"`, `secret`. */
export function secretFields(form: unknown): Set<string> {
  const props = (form as { properties?: unknown } | null)?.properties;
  const out = new Set<string>();
  if (props && typeof props === "object") {
    for (const [name, p] of Object.entries(props as Record<string, { writeOnly?: unknown; format?: unknown; secret?: unknown } | null>)) {
      if (p && (p.writeOnly === true || p.secret === true || p.format === "password")) out.add(name);
    }
  }
  return out;
}

/** A submission without the control machinery (`_kind`, `_qid`, `text`): the answer fields. */
function cleanValues(values: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(values)) if (k !== "_kind" && k !== "_qid" && k !== "text") out[k] = v;
  return out;
}

function maskSecrets(values: Record<string, unknown>, secrets: Set<string>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(values)) out[k] = secrets.has(k) && v !== null && v !== undefined && v !== "" ? SECRET_MASK : v;
  return out;
}

/** True when the submission pressed a button (some value is `true`). */
const pressedButton = (values: Record<string, unknown>) => Object.values(values).some((v) => v === true);

/** A submission answers question `id` unless it names another one in `_qid` (none or empty: the head). */
function submissionMatches(values: Record<string, unknown>, id: string): boolean {
  const qid = values._qid;
  return typeof qid !== "string" || qid === "" || qid === id;
}

/** The Answer port's sample values from a form: each field's zero value by type (Go `sampleValues`). */
export function sampleValues(form: string): Record<string, unknown> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(form);
  } catch {
    return {};
  }
  const props = (parsed as { properties?: unknown } | null)?.properties;
  const out: Record<string, unknown> = {};
  if (!props || typeof props !== "object") return out;
  for (const name of Object.keys(props).sort()) {
    const type = ((props as Record<string, { type?: unknown } | null>)[name] ?? {}).type;
    out[name] = type === "boolean" ? false : type === "string" ? "" : type === "number" || type === "integer" ? 0 : type === "array" ? [] : {};
  }
  return out;
}

function formText(settings: ChatSettings): string {
  return settings.form !== "" ? settings.form : DEFAULT_FORM;
}

/** The widget's data: the whole conversation (Go `control()`). */
async function controlData(self: ChatSelf): Promise<Record<string, unknown>> {
  const thread = self.state ? await loadList<ThreadEntry>(self.state, THREAD_KEY) : [];
  const queue = self.state ? await loadList<PendingQuestion>(self.state, QUEUE_KEY) : [];
  const out: Record<string, unknown> = { thread: thread.length === 0 ? null : thread, placeholder: self.settings.placeholder };
  if (self.settings.hideComposer) out.hideComposer = true;
  const head = queue[0];
  if (head) out.pendingQuestion = { qid: head.id, form: head.form, context: head.context, waiting: queue.length - 1 };
  return out;
}

/** Reads the conversation into `self.shown` (ports() is synchronous, state reads are not). */
async function refresh(self: ChatSelf): Promise<void> {
  self.shown = await controlData(self);
}

async function republish(self: ChatSelf): Promise<void> {
  await refresh(self);
  await self.emit?.("_control");
}

function requireState(self: ChatSelf): State {
  if (!self.state) throw new Error("chat: state backend not available");
  return self.state;
}

/** Emits expiries on `error` (when enabled) or logs them as dropped (Go `emitExpired`). */
function emitExpired(ctx: ComponentContext<ChatSelf>, expired: readonly Expired[]): void {
  for (const e of expired) {
    if (ctx.self.settings.enableErrorPort && ctx.self.emit) {
      void ctx.self.emit("error", omitEmpty({ context: e.context, error: e.error }, { interfaces: ["context"] }), ctx.nodeSignal);
    } else {
      ctx.log.warn({ node: ctx.node.nodeName }, `${e.error} (error port disabled; question dropped)`);
    }
  }
}

/**
 * Sweeps expired questions now and, on the leader, arms one timer for the next expiry — so a
 * question expires on time in an idle flow (Go waits for the next message or reconcile tick).
 */
async function sweep(ctx: ComponentContext<ChatSelf>): Promise<boolean> {
  const self = ctx.self;
  const state = self.state;
  if (!state) return false;
  const now = self.clock.now();
  const expired = await self.serial.run(async () => {
    const { kept, expired } = sweepExpired(await loadList<PendingQuestion>(state, QUEUE_KEY), now, self.settings.timeoutSeconds);
    if (expired.length > 0) {
      await saveList(state, QUEUE_KEY, kept);
      await saveList(
        state,
        THREAD_KEY,
        appendCapped(await loadList<ThreadEntry>(state, THREAD_KEY), self.settings.historyLimit, ...expiredNotes(expired, now)),
      );
    }
    return expired;
  });
  emitExpired(ctx, expired);
  await armExpiry(ctx);
  return expired.length > 0;
}

async function armExpiry(ctx: ComponentContext<ChatSelf>): Promise<void> {
  const self = ctx.self;
  self.cancelExpiry?.();
  self.cancelExpiry = undefined;
  if (!ctx.isLeader || !self.state || self.settings.timeoutSeconds <= 0) return;
  const head = (await loadList<PendingQuestion>(self.state, QUEUE_KEY))[0];
  if (!head) return;
  const due = Date.parse(head.askedAt) + self.settings.timeoutSeconds * 1000 + 1 - self.clock.now().getTime();
  self.cancelExpiry = nodeTimeout(ctx, Math.max(0, due), async () => {
    self.cancelExpiry = undefined;
    if (await sweep(ctx)) await republish(self);
  });
}

async function handleSay(ctx: ComponentContext<ChatSelf>, data: { requestId?: string; role?: string; text?: string }): Promise<void> {
  const self = ctx.self;
  const state = requireState(self);
  const now = self.clock.now();
  await self.serial.run(async () => {
    const thread = await loadList<ThreadEntry>(state, THREAD_KEY);
    // A matching request id closes the "working…" state of the message it answers; unknown or
    // absent ids still land in the thread (a conversation may receive pushes).
    if (data.requestId) for (const e of thread) if (e.kind === "message" && e.id === data.requestId) delete e.pending;
    const reply: ThreadEntry = { id: newId("r", now), kind: "reply", role: data.role || "assistant", text: data.text ?? "", at: formatRfc3339Nano(now) };
    await saveList(state, THREAD_KEY, appendCapped(thread, self.settings.historyLimit, omitEmpty(reply, { values: ["text"] }) as ThreadEntry));
  });
}

async function handleAsk(ctx: ComponentContext<ChatSelf>, data: { context?: unknown; form?: string }): Promise<void> {
  const self = ctx.self;
  const state = requireState(self);
  if (data.form && !isJson(data.form)) throw new Error(`ask form is not valid JSON: ${JSON.stringify(data.form.slice(0, 80))}`);
  const now = self.clock.now();
  const form = JSON.parse(data.form ? data.form : formText(self.settings)) as unknown;
  const expired = await self.serial.run(async () => {
    const { kept, expired } = sweepExpired(await loadList<PendingQuestion>(state, QUEUE_KEY), now, self.settings.timeoutSeconds);
    const question: PendingQuestion = { id: newId("q", now), context: data.context ?? null, form, askedAt: formatRfc3339Nano(now) };
    await saveList(state, QUEUE_KEY, [...kept, question]);
    const card: ThreadEntry = { id: newId("t", now), kind: "question", qid: question.id, at: formatRfc3339Nano(now), pending: true };
    await saveList(
      state,
      THREAD_KEY,
      appendCapped(await loadList<ThreadEntry>(state, THREAD_KEY), self.settings.historyLimit, ...expiredNotes(expired, now), card),
    );
    return expired;
  });
  emitExpired(ctx, expired);
  await armExpiry(ctx);
}

/** Drops the thread and every unanswered question (no expiry: their conversation is gone). */
async function handleClear(ctx: ComponentContext<ChatSelf>): Promise<void> {
  const self = ctx.self;
  const state = requireState(self);
  await self.serial.run(async () => {
    await saveList(state, THREAD_KEY, []);
    await saveList(state, QUEUE_KEY, []);
  });
  await armExpiry(ctx);
}

/** The composer's message: a pending bubble, and `{requestId, text}` on `message`. */
async function controlMessage(ctx: ComponentContext<ChatSelf>, values: Record<string, unknown>): Promise<void> {
  const self = ctx.self;
  const text = typeof values.text === "string" ? values.text : "";
  if (text === "" || !self.state) return;
  const state = self.state;
  const now = self.clock.now();
  const rid = newId("m", now);
  await self.serial.run(async () => {
    const entry: ThreadEntry = { id: rid, kind: "message", text, at: formatRfc3339Nano(now), pending: true };
    await saveList(state, THREAD_KEY, appendCapped(await loadList<ThreadEntry>(state, THREAD_KEY), self.settings.historyLimit, entry));
  });
  // Detached, like signal: the control call must not stay open for the downstream flow.
  void self.emit?.("message", { requestId: rid, text }, ctx.nodeSignal);
  await republish(self);
}

/** A question card's submission: answers the head question when it matches and pressed a button. */
async function controlAnswer(ctx: ComponentContext<ChatSelf>, values: Record<string, unknown>): Promise<void> {
  const self = ctx.self;
  if (!self.state) return;
  const state = self.state;
  const now = self.clock.now();
  const outcome = await self.serial.run(async () => {
    let queue = await loadList<PendingQuestion>(state, QUEUE_KEY);
    if (queue.length === 0) return undefined;
    // Only the head can be answered: a replayed card of an answered question cannot consume the
    // next one. Beating the deadline wins over expiry: pop before sweeping.
    let answered: PendingQuestion | undefined;
    if (pressedButton(values) && submissionMatches(values, queue[0]!.id)) {
      answered = queue[0]!;
      queue = queue.slice(1);
    }
    const { kept, expired } = sweepExpired(queue, now, self.settings.timeoutSeconds);
    if (!answered && expired.length === 0) return { answered, expired };
    await saveList(state, QUEUE_KEY, kept);
    const thread = await loadList<ThreadEntry>(state, THREAD_KEY);
    const entries = expiredNotes(expired, now);
    if (answered) {
      for (const e of thread) if (e.kind === "question" && e.qid === answered.id) delete e.pending;
      entries.push({
        id: newId("a", now),
        kind: "answer",
        qid: answered.id,
        values: maskSecrets(cleanValues(values), secretFields(answered.form)),
        at: formatRfc3339Nano(now),
      });
    }
    await saveList(state, THREAD_KEY, appendCapped(thread, self.settings.historyLimit, ...entries));
    return { answered, expired };
  });
  if (!outcome) return;
  emitExpired(ctx, outcome.expired);
  if (!outcome.answered && outcome.expired.length === 0) return;
  if (outcome.answered) {
    const answer = omitEmpty({ questionId: outcome.answered.id, values: cleanValues(values), context: outcome.answered.context }, { interfaces: ["context"] });
    void self.emit?.("answer", answer, ctx.nodeSignal);
  }
  await armExpiry(ctx);
  await republish(self);
}

export default defineComponent({
  info: {
    name: "chat",
    description: "Chat with a human",
    info:
      "The flow's human touchpoint: one conversation widget on the dashboard. " +
      "A human types → Message port (carry requestId back on Say to mark it answered). " +
      "The flow speaks → Say port (markdown bubble; role system/error renders as a note). " +
      "The flow asks → Ask port: a question card with the form's buttons appears in the thread and the submission emits on Answer as {questionId, values, context} — wire Answer to the gated action. " +
      "Questions queue FIFO, persist across restarts, and expire onto Error after timeoutSeconds. " +
      "The flow starts over → Clear port: the thread and any pending questions are wiped (store memory clears separately). " +
      "The thread is display only (historyLimit); keep real conversation memory in a store component. " +
      "Replaces prompt and ask.",
    tags: ["SDK", "dashboard", "Human"],
  },
  state: (): ChatSelf => ({
    settings: { form: "", timeoutSeconds: 0, enableErrorPort: false, historyLimit: DEFAULT_HISTORY_LIMIT, placeholder: "", hideComposer: false },
    state: undefined,
    emit: undefined,
    serial: new SerialQueue(),
    rehydrated: false,
    clock: systemClock,
    cancelExpiry: undefined,
    shown: undefined,
  }),
  ports: (self) => [
    target("_settings", Settings, {
      label: "Settings",
      position: "top",
      default: omitEmpty(self.settings, { values: ["form", "placeholder"] }) as Required<ChatSettings>,
    }),
    target("say", Say, { label: "Say", position: "left", default: { text: "" } }),
    target("ask", AskRequest, { label: "Ask", position: "left", default: {} }),
    target("clear", ClearRequest, { label: "Clear", position: "left", default: {} }),
    source("message", Message, { label: "Message", position: "right", default: { requestId: "", text: "" } }),
    source("answer", Answer, { label: "Answer", position: "right", default: { questionId: "", values: sampleValues(formText(self.settings)) } }),
    source("_control", Control, {
      label: "Control",
      position: "top",
      rawSchema: CONTROL_SCHEMA,
      default: self.shown ?? { thread: null, placeholder: self.settings.placeholder, ...(self.settings.hideComposer ? { hideComposer: true } : {}) },
    }),
    ...(self.settings.enableErrorPort ? [source("error", ErrorMessage, { label: "Error", position: "bottom", default: { error: "" } })] : []),
  ],
  onState(ctx, state) {
    ctx.self.state = state;
  },
  onEmitter(ctx, emit) {
    ctx.self.emit = emit;
  },
  async onSettings(ctx, s) {
    const form = s.form ?? "";
    if (form !== "" && !isJson(form)) throw new Error(`form is not valid JSON: ${JSON.stringify(form.slice(0, 80))}`);
    const historyLimit = (s.historyLimit ?? 0) > 0 ? s.historyLimit! : DEFAULT_HISTORY_LIMIT;
    ctx.self.settings = {
      form,
      timeoutSeconds: Math.max(0, s.timeoutSeconds ?? 0),
      enableErrorPort: s.enableErrorPort,
      historyLimit,
      placeholder: s.placeholder ?? "",
      hideComposer: s.hideComposer ?? false,
    };
    await refresh(ctx.self);
  },
  async onReconcile(ctx) {
    // Every replica re-reads the conversation another one may have changed, so whatever status it
    // writes shows the current thread (Go's Ports() reads state on each call).
    await refresh(ctx.self);
    // Leader only: rehydrate the widget once per process, and sweep expiries. Republish only on a
    // change — never re-render a thread a human is typing into.
    if (!ctx.isLeader || !ctx.self.state) return;
    const expired = await sweep(ctx);
    const republishNow = expired || !ctx.self.rehydrated;
    ctx.self.rehydrated = true;
    if (republishNow) await republish(ctx.self);
  },
  async onControl(ctx, control) {
    if (!ctx.isLeader) return;
    const values = control as Record<string, unknown>;
    if (values._kind === "message") return controlMessage(ctx, values);
    if (values._kind === "answer") return controlAnswer(ctx, values);
    // anything else is a re-render or a replayed submission, not an action
  },
  onDestroy(ctx) {
    ctx.self.cancelExpiry?.();
  },
  async handle(ctx, _output, port, data) {
    // Not leader-gated: flow traffic reaches whichever replica the runtime picks; the state is shared.
    if (port === "say") await handleSay(ctx, data as { requestId?: string; role?: string; text?: string });
    else if (port === "ask") await handleAsk(ctx, data as { context?: unknown; form?: string });
    else await handleClear(ctx);
    await republish(ctx.self);
  },
});
