/**
 * `ticker` — "Ticker" (components.md §1.15): a periodic emitter. Started from `_control` on the
 * leader, it emits its context at the root of `out` (first tick at once), waits for the downstream
 * chain to finish, then waits `delay` ms, and again. Its running intent lives in node metadata
 * (`ticker-running`, `ticker-config`), so after a pod restart or a change of leader the new
 * leader's reconcile resumes it; a pod that loses the lease stops its loop (metadata kept).
 */
import {
  BackgroundLoop,
  defineComponent,
  readControl,
  sleepUnlessAborted,
  source,
  target,
  Type,
  type ComponentContext,
  type ComponentLogger,
  type Emitter,
  type TinyNode,
} from "tinyhost";

/** Metadata key set to `"true"` while the ticker should run (components.md §1.15). */
const KEY_RUNNING = "ticker-running";
/** Metadata key holding the JSON of the settings the ticker runs with (components.md §1.15). */
const KEY_CONFIG = "ticker-config";

const DEFAULT_DELAY_MS = 1000;

// Go `ticker` port types (common-module); `$id`s are the Go type names. `delay` is required in the
// editor but, as in Go, a settings value without it decodes to 0 (no pause between ticks).
const Settings = Type.Object(
  {
    context: Type.Optional(
      Type.Unknown({ $id: "Context", configurable: true, title: "Context", description: "Arbitrary message to be send each period of time" }),
    ),
    delay: Type.Integer({ minimum: 0, default: DEFAULT_DELAY_MS, title: "Delay (ms)", description: "Delay between signals" }),
  },
  { $id: "Settings" },
);

const ControlStopped = Type.Object(
  {
    context: Type.Unknown({ $id: "Context", title: "Context" }),
    status: Type.Optional(Type.String({ title: "Status", readonly: true })),
    start: Type.Boolean({ title: "Start", format: "button" }),
  },
  { $id: "ControlStopped" },
);

const ControlRunning = Type.Object(
  {
    context: Type.Unknown({ $id: "Context", title: "Context", readonly: true }),
    status: Type.Optional(Type.String({ title: "Status", readonly: true })),
    stop: Type.Boolean({ title: "Stop", format: "button" }),
  },
  { $id: "ControlRunning" },
);

interface TickerSettings {
  context?: unknown;
  delay: number;
}

interface TickerSelf {
  settings: TickerSettings;
  /** Settings came from `_settings`/`_control` since this instance started: metadata must not overwrite them. */
  settingsFromPort: boolean;
  readonly loop: BackgroundLoop;
  emit: Emitter | undefined;
  /** Aborted when `delay` changes during a pause, so the pause re-arms with the new delay. */
  delayChanged: AbortController | undefined;
}

/** `ticker-config` value: Go's JSON of the settings struct (`context` is `null` when unset, Go's `json:"context"`). */
function configJson(s: TickerSettings): string {
  return JSON.stringify({ context: s.context ?? null, delay: s.delay });
}

/** Settings from a `ticker-config` value, or `undefined` when it is missing or malformed. */
function parseConfig(text: string | undefined, log: ComponentLogger): TickerSettings | undefined {
  if (text === undefined || text === "") return undefined;
  try {
    const v = JSON.parse(text) as { context?: unknown; delay?: unknown };
    const delay = typeof v.delay === "number" && Number.isInteger(v.delay) && v.delay >= 0 ? v.delay : DEFAULT_DELAY_MS;
    return v.context === undefined ? { delay } : { context: v.context, delay };
  } catch (err) {
    log.warn({ key: KEY_CONFIG, err: (err as Error).message }, "ticker: ignoring malformed metadata");
    return undefined;
  }
}

function persistRunning(emit: Emitter | undefined, settings: TickerSettings): void {
  const config = configJson(settings);
  void emit?.("_reconcile", (node: TinyNode) => {
    const md = ((node.status ??= {}).metadata ??= {});
    md[KEY_RUNNING] = "true";
    md[KEY_CONFIG] = config;
  });
}

function clearRunning(emit: Emitter | undefined): void {
  void emit?.("_reconcile", (node: TinyNode) => {
    const md = node.status?.metadata;
    if (!md) return;
    delete md[KEY_RUNNING];
    delete md[KEY_CONFIG];
  });
}

/** The tick loop: emit, wait for the downstream, pause, until stopped or no longer leader. */
async function tick(self: TickerSelf, ctx: ComponentContext<TickerSelf>, signal: AbortSignal): Promise<void> {
  const emit = self.emit;
  if (!emit) return;
  void emit("_control"); // show "Running"
  while (!signal.aborted) {
    if (!ctx.isLeader) {
      ctx.log.info({}, "ticker: this pod is no longer the leader; loop stops");
      return;
    }
    const r = await emit("out", self.settings.context ?? null, signal);
    if (r.kind === "fail" && !signal.aborted) ctx.log.warn({ err: r.error.message }, "ticker: downstream error on out port");
    if (!(await pause(self, signal))) return;
  }
}

/**
 * The pause after a tick: `delay` ms counted from its start, re-armed when the delay changes
 * meanwhile (a change from 60 s to 3 s applies now, not after the minute; Go waits out the old
 * delay — docs/compatibility.md). Resolves false when `signal` aborts.
 */
async function pause(self: TickerSelf, signal: AbortSignal): Promise<boolean> {
  const started = Date.now();
  for (;;) {
    const changed = new AbortController();
    self.delayChanged = changed;
    const done = await sleepUnlessAborted(started + self.settings.delay - Date.now(), AbortSignal.any([signal, changed.signal]));
    self.delayChanged = undefined;
    if (done) return true;
    if (signal.aborted) return false;
  }
}

function startLoop(self: TickerSelf, ctx: ComponentContext<TickerSelf>): void {
  self.loop.start({
    lifetime: ctx.nodeSignal,
    body: (signal) => tick(self, ctx, signal),
    onExit: () => void self.emit?.("_control"), // show "Not running"
  });
}

export default defineComponent({
  info: {
    name: "ticker",
    description: "Ticker",
    info: "Periodic emitter. Click Start to begin emitting context on Out. Waits for Out port to complete, then waits [delay] ms before next emit. Click Stop to pause. Survives pod restarts via metadata persistence.",
    tags: ["SDK"],
  },
  // A module scaled to zero runs nothing until a hop arrives (docs/operations.md "Scaling").
  requirements: { scaling: { keepRunning: "it emits on a timer while started; at zero replicas no pod ticks and nothing wakes it" } },
  state: (): TickerSelf => ({
    settings: { delay: DEFAULT_DELAY_MS },
    settingsFromPort: false,
    loop: new BackgroundLoop(),
    emit: undefined,
    delayChanged: undefined,
  }),
  ports: (self) => [
    target("_settings", Settings, { label: "Settings", position: "top", default: { context: self.settings.context ?? null, delay: self.settings.delay } }),
    target("_reconcile", Type.Unknown(), { label: "Reconcile", position: "top" }),
    source("out", Type.Unknown({ $id: "Context" }), { label: "Out", position: "right", default: null }),
    self.loop.running
      ? source("_control", ControlRunning, {
          label: "Control",
          position: "top",
          default: { context: self.settings.context ?? null, status: "Running", stop: true },
        })
      : source("_control", ControlStopped, {
          label: "Control",
          position: "top",
          default: { context: self.settings.context ?? null, status: "Not running", start: true },
        }),
  ],
  handle: () => undefined, // every input is a system port
  onEmitter(ctx, emit) {
    ctx.self.emit = emit;
  },
  onSettings(ctx, settings) {
    const self = ctx.self;
    const delayChanged = settings.delay !== self.settings.delay;
    // Decoded settings carry every field; a null context means none (sent as null, as Go sends its nil).
    self.settings =
      settings.context === undefined || settings.context === null ? { delay: settings.delay } : { context: settings.context, delay: settings.delay };
    self.settingsFromPort = true;
    if (delayChanged) self.delayChanged?.abort();
    if (self.loop.running) persistRunning(self.emit, self.settings);
  },
  onReconcile(ctx, node) {
    const self = ctx.self;
    const md = node.status?.metadata ?? {};
    if (!self.settingsFromPort) {
      const restored = parseConfig(md[KEY_CONFIG], ctx.log);
      if (restored) self.settings = restored;
    }
    if (!ctx.isLeader) {
      if (self.loop.running) void self.loop.stop(new Error("leadership lost"));
      return;
    }
    if (md[KEY_RUNNING] !== undefined && !self.loop.running) {
      ctx.log.info({}, "ticker: resuming after a restart or a change of leader");
      startLoop(self, ctx);
    }
  },
  onControl(ctx, control, output) {
    if (!ctx.isLeader) return;
    const self = ctx.self;
    const c = readControl(control);
    if (c.stop) {
      void self.loop.stop(new Error("stopped from control"));
      clearRunning((port, data) => output(port, data));
      void output("_control");
      return;
    }
    if (!c.start) return;
    // A start whose context is null (`{"start": true}`) keeps the settings' context (Go: sets null).
    if (c.context !== undefined && c.context !== null) self.settings = { ...self.settings, context: c.context };
    self.settingsFromPort = true;
    persistRunning((port, data) => output(port, data), self.settings);
    startLoop(self, ctx);
    void output("_control");
  },
  onDestroy(ctx) {
    return ctx.self.loop.stop(new Error("node deleted"));
  },
});
