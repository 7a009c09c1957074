/**
 * `collect` — "Collect" (Go common-module `components/collect`): the fan-in partner of
 * `array_split`. Items `{context, groupKey, index, total, item}` are buffered per `groupKey` in node
 * State — one key per group (the group key itself) holding Go's JSON `{firstSeen, total, context,
 * items: {"<index>": item}}` — so assembly survives restarts and sees items handled by other
 * replicas once the node's status carries them. When a group holds `total` items, the buffer is
 * deleted and `{context, items}` is emitted on `response` (items ordered by index, context of the
 * last arriving item; a duplicate index overwrites); the hop returns the downstream result.
 *
 * Expiry is passive, as in Go: every item first sweeps the OTHER groups older than
 * `timeoutSeconds` (each emitted on `error` as `{context, groupKey, received, total, error}` through
 * the node's emitter, or logged when the error port is off); an item whose own group is past the
 * deadline and still incomplete fails it at once (error port, or a failed hop). A new group is
 * refused past `maxGroups`, and an item whose buffer no longer fits the node's 900 KiB state budget
 * fails naming the budget. Items of one pod are processed one at a time.
 */
import {
  defineComponent,
  fail,
  formatRfc3339Nano,
  marshalGoJson,
  omitEmpty,
  rejectedNow,
  SerialQueue,
  source,
  target,
  TinyError,
  Type,
  unnamed,
  type Emitter,
  type State,
} from "tinyhost";

/** Go writes `context` with `omitempty`: a null context is left out of the output. */
const OMIT_CONTEXT = { interfaces: ["context" as const] };

const DEFAULT_TIMEOUT_SECONDS = 300;
const DEFAULT_MAX_GROUPS = 100;

/** An item or a group collect refuses (Go's texts). code `"COLLECT"`. */
export class CollectError extends TinyError<"COLLECT"> {
  constructor(message: string, options?: { cause?: unknown }) {
    super("COLLECT", message, options);
  }
}

// Go `collect` port types; `$id`s are the Go type names.
const Settings = Type.Object(
  {
    enableErrorPort: Type.Boolean({
      title: "Enable Error Port",
      description: "Emit timed-out groups on the Error port. Without it expired groups are dropped silently (a warning is logged) — enable this in production.",
    }),
    timeoutSeconds: Type.Optional(
      Type.Integer({
        title: "Timeout Seconds",
        default: DEFAULT_TIMEOUT_SECONDS,
        description:
          "How long to wait for a group's stragglers after its first item arrives (0 = default 300). Expiry is checked when messages arrive, so an idle node holds stragglers until the next message.",
      }),
    ),
    maxGroups: Type.Optional(
      Type.Integer({
        title: "Max Groups",
        default: DEFAULT_MAX_GROUPS,
        description: "Maximum number of in-flight groups (0 = default 100). Guards the node's ~900KB state budget.",
      }),
    ),
  },
  { $id: "Settings" },
);

const In = Type.Object(
  {
    context: Type.Optional(
      Type.Unknown({
        $id: "Context",
        configurable: true,
        title: "Context",
        description: "Passthrough payload; the group's Response carries the context of its LAST arriving item.",
      }),
    ),
    groupKey: Type.String({
      title: "Group Key",
      description:
        "Identity of the fan-out this item belongs to — map something unique per source message (e.g. $.context.runId). Every item of one array must share it; different runs must differ.",
    }),
    index: Type.Optional(
      Type.Integer({
        title: "Index",
        description:
          "0-based position of this item in the reassembled array — map array_split's index. A duplicate index overwrites; it does not double-count.",
      }),
    ),
    total: Type.Integer({
      title: "Total",
      description: "Number of items the group expects — map array_split's total. Must be >= 1 and identical for every item of the group.",
    }),
    // Go `Item any`: an unnamed `any`, published inline (a named `type X any` would be a def).
    item: Type.Optional(unnamed(Type.Unknown({ title: "Item", description: "The per-item payload to reassemble." }))),
  },
  { $id: "InMessage" },
);

const Out = Type.Object(
  {
    context: Type.Optional(Type.Unknown({ $id: "Context", title: "Context", description: "Context of the group's last arriving item." })),
    items: Type.Optional(Type.Union([Type.Array(Type.Unknown()), Type.Null()], { title: "Items", description: "All items of the group, ordered by index." })),
  },
  { $id: "OutMessage" },
);

const ErrorOut = Type.Object(
  {
    context: Type.Optional(Type.Unknown({ $id: "Context", title: "Context", description: "Context of the group's last arriving item." })),
    groupKey: Type.Optional(Type.String({ title: "Group Key" })),
    received: Type.Optional(Type.Integer({ title: "Received" })),
    total: Type.Optional(Type.Integer({ title: "Total" })),
    error: Type.Optional(Type.String({ title: "Error" })),
  },
  { $id: "ErrorMessage" },
);

interface CollectSettings {
  enableErrorPort: boolean;
  timeoutSeconds: number;
  maxGroups: number;
}

/** One buffered group (Go `groupState`); `firstSeen` in ms since the epoch. */
interface Group {
  firstSeen: number;
  total: number;
  context: unknown;
  items: Map<number, unknown>;
}

interface TimeoutError {
  context?: unknown;
  groupKey: string;
  received: number;
  total: number;
  error: string;
}

interface CollectSelf {
  settings: CollectSettings;
  state: State | undefined;
  emit: Emitter | undefined;
  /** Wall clock, ms since the epoch; a test swaps it to drive expiry without sleeping. */
  now: () => number;
  readonly serial: SerialQueue;
}

const dec = new TextDecoder();

/** The stored form of a group: Go's `json.Marshal(groupState)` (fields in declaration order). */
function encodeGroup(g: Group): string {
  const items: Record<string, unknown> = {};
  for (const [i, v] of g.items) items[String(i)] = v;
  return `{"firstSeen":${JSON.stringify(formatRfc3339Nano(new Date(g.firstSeen)))},"total":${g.total},"context":${marshalGoJson(g.context, "encoding/json")},"items":${marshalGoJson(items, "encoding/json")}}`;
}

/** A stored group, or undefined when it is not readable (Go: Unmarshal fails → the buffer can never complete). */
function decodeGroup(bytes: Uint8Array): Group | undefined {
  let v: unknown;
  try {
    v = JSON.parse(dec.decode(bytes));
  } catch {
    return undefined;
  }
  if (v === null || typeof v !== "object" || Array.isArray(v)) return undefined;
  const o = v as Record<string, unknown>;
  const firstSeen =
    typeof o.firstSeen === "string"
      ? Date.parse(o.firstSeen)
      : o.firstSeen === undefined || o.firstSeen === null
        ? Date.parse("0001-01-01T00:00:00Z")
        : Number.NaN;
  const total = o.total === undefined || o.total === null ? 0 : o.total;
  if (Number.isNaN(firstSeen) || typeof total !== "number" || !Number.isSafeInteger(total)) return undefined;
  const items = new Map<number, unknown>();
  if (o.items !== undefined && o.items !== null) {
    if (typeof o.items !== "object" || Array.isArray(o.items)) return undefined;
    for (const [k, item] of Object.entries(o.items)) {
      if (!/^-?\d+$/.test(k) || !Number.isSafeInteger(Number(k))) return undefined; // Go: a map[int] key must be an integer
      items.set(Number(k), item);
    }
  }
  return { firstSeen, total, context: o.context ?? null, items };
}

function timeoutError(groupKey: string, g: Group): TimeoutError {
  return omitEmpty(
    { context: g.context, groupKey, received: g.items.size, total: g.total, error: `collect timeout: got ${g.items.size} of ${g.total}` },
    OMIT_CONTEXT,
  ) as TimeoutError; // only context may go
}

/** What one item decides under the lock; emits happen after it (Go `outcome`). */
interface Outcome {
  expired: TimeoutError[];
  response?: { context?: unknown; items: unknown[] };
  ownError?: TimeoutError;
  fail?: Error;
}

interface Item {
  context: unknown;
  groupKey: string;
  index: number;
  total: number;
  item: unknown;
}

/** Deletes and reports every group but `exclude` first seen more than `timeoutMs` before `now` (passive expiry). */
async function sweepExpired(state: State, now: number, timeoutMs: number, exclude: string): Promise<TimeoutError[]> {
  const out: TimeoutError[] = [];
  for (const key of await state.list()) {
    if (key === exclude) continue;
    const bytes = await state.get(key);
    if (bytes === undefined) continue;
    const g = decodeGroup(bytes);
    if (!g) {
      void state.delete(key); // an unreadable buffer can never complete
      continue;
    }
    if (now - g.firstSeen <= timeoutMs) continue;
    void state.delete(key);
    out.push(timeoutError(key, g));
  }
  return out;
}

/** The state read-modify-write for one item and the expiry sweep (Go `process`); decides, never emits. */
async function process(self: CollectSelf, state: State, msg: Item): Promise<Outcome> {
  const { timeoutSeconds, maxGroups } = self.settings;
  const timeoutMs = timeoutSeconds * 1000;
  const now = self.now();
  const o: Outcome = { expired: await sweepExpired(state, now, timeoutMs, msg.groupKey) };
  const bytes = await state.get(msg.groupKey);
  let g = bytes === undefined ? undefined : decodeGroup(bytes); // unreadable: start the group over
  if (!g) {
    const groups = (await state.list()).length;
    if (groups >= maxGroups) {
      o.fail = new CollectError(`too many in-flight groups: ${groups} (max ${maxGroups}); raise maxGroups or check that groups complete or time out`);
      return o;
    }
    g = { firstSeen: now, total: msg.total, context: null, items: new Map() };
  }
  if (g.total !== msg.total) {
    o.fail = new CollectError(
      `total mismatch for group ${JSON.stringify(msg.groupKey)}: got ${msg.total}, group started with ${g.total} — every item of a group must carry the same total`,
    );
    return o;
  }
  g.items.set(msg.index, msg.item);
  g.context = msg.context;
  if (g.items.size >= g.total) {
    // Complete (also a straggler finishing an expired group: late success beats failure).
    void state.delete(msg.groupKey);
    o.response = omitEmpty(
      { context: g.context, items: Array.from({ length: g.total }, (_, i) => g.items.get(i) ?? null) },
      OMIT_CONTEXT,
    ) as Outcome["response"];
    return o;
  }
  if (now - g.firstSeen > timeoutMs) {
    // Incomplete and past the deadline: this straggler cannot save the group.
    void state.delete(msg.groupKey);
    o.ownError = timeoutError(msg.groupKey, g);
    return o;
  }
  const refused = rejectedNow(state.set(msg.groupKey, encodeGroup(g)));
  if (refused) {
    const reason = refused.reason as Error & { code?: string };
    o.fail =
      reason.code === "STATE_TOO_LARGE"
        ? new CollectError(
            `state budget exhausted: the node's total state is capped at ~900KB and group ${JSON.stringify(msg.groupKey)} no longer fits; collect smaller items (carry IDs, not payloads) or lower maxGroups: ${reason.message}`,
            { cause: reason },
          )
        : new CollectError(`state.Set: ${reason.message}`, { cause: reason });
  }
  return o;
}

export default defineComponent({
  info: {
    name: "collect",
    description: "Collect",
    info: "Fan-in for map-reduce — the pair of array_split. array_split emits {context, item, index, total} per element; route each item through the per-item work, then map into Item here: groupKey MUST be unique per fan-out (e.g. $.context.runId — every item of one array shares it, different runs differ), and index/total come straight from array_split. Items are buffered per groupKey in the node's State, so assembly survives restarts and is multi-replica safe. Once a group holds all `total` items, Response emits {context, items}: items ordered by index regardless of arrival order (a duplicate index overwrites, never double-counts), context taken from the group's LAST arriving item. Groups older than timeoutSeconds fail onto the Error port as {context, groupKey, received, total, error}. Expiry is passive — checked when messages arrive — so an idle node holds stragglers until the next message on any group. State is capped at ~900KB per node: keep buffered items small (carry IDs, not blobs) or lower maxGroups.",
    tags: ["SDK", "ARRAY"],
  },
  state: (): CollectSelf => ({
    settings: { enableErrorPort: false, timeoutSeconds: DEFAULT_TIMEOUT_SECONDS, maxGroups: DEFAULT_MAX_GROUPS },
    state: undefined,
    emit: undefined,
    now: Date.now,
    serial: new SerialQueue(),
  }),
  ports: (self) => [
    target("_reconcile", Type.Unknown(), { label: "", position: "top" }),
    target("_settings", Settings, { label: "Settings", position: "top", default: { ...self.settings } }),
    target("item", In, { label: "Item", position: "left", default: { groupKey: "", index: 0, total: 1, item: null } }),
    source("response", Out, { label: "Response", position: "right", default: { items: [] } }),
    ...(self.settings.enableErrorPort
      ? [source("error", ErrorOut, { label: "Error", position: "bottom", default: { groupKey: "", received: 0, total: 0, error: "" } })]
      : []),
  ],
  onState(ctx, state) {
    ctx.self.state = state;
  },
  onEmitter(ctx, emit) {
    ctx.self.emit = emit;
  },
  onSettings(ctx, settings) {
    ctx.self.settings = {
      enableErrorPort: settings.enableErrorPort,
      timeoutSeconds: settings.timeoutSeconds && settings.timeoutSeconds > 0 ? settings.timeoutSeconds : DEFAULT_TIMEOUT_SECONDS,
      maxGroups: settings.maxGroups && settings.maxGroups > 0 ? settings.maxGroups : DEFAULT_MAX_GROUPS,
    };
  },
  async handle(ctx, output, _port, data) {
    const self = ctx.self;
    const msg: Item = { context: data.context ?? null, groupKey: data.groupKey, index: data.index ?? 0, total: data.total, item: data.item ?? null };
    if (msg.groupKey === "") return fail(new CollectError("groupKey is required: map something unique per fan-out (e.g. $.context.runId)"));
    if (msg.total < 1) return fail(new CollectError(`total must be >= 1, got ${msg.total}: map array_split's total`));
    if (msg.index < 0 || msg.index >= msg.total) return fail(new CollectError(`index ${msg.index} out of range [0, ${msg.total}): map array_split's index`));
    const state = self.state;
    if (!state) return fail(new CollectError("state backend not available"));

    const o = await self.serial.run(() => process(self, state, msg));
    const errorPort = self.settings.enableErrorPort;
    // Timed-out groups belong to older messages: emitted through the node's emitter, not this hop.
    for (const e of o.expired) {
      if (errorPort && self.emit) await self.emit("error", e);
      else ctx.log.warn({ groupKey: e.groupKey }, `collect: ${e.error} (error port disabled; group dropped)`);
    }
    if (o.fail) return fail(o.fail);
    if (o.response) return output("response", o.response);
    if (o.ownError) return errorPort ? output("error", o.ownError) : fail(new CollectError(o.ownError.error));
  },
});
