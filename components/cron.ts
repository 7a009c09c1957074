/**
 * `cron` — "Cron" (components.md §1.16): emits its context at the root of `out` on a standard
 * 5-field cron schedule. Started from `_control` on the leader; the running intent, schedule and
 * context live in node metadata (`cron-running`, `cron-schedule`, `cron-context`, and `cron-error`
 * for a rejected schedule), so a restarted pod or a new leader resumes it on reconcile. A pod that
 * loses the lease stops its loop; deleting the node stops it too (Go has no OnDestroy here).
 */
import {
  BackgroundLoop,
  defineComponent,
  formatRfc3339,
  parseCron,
  readControl,
  source,
  systemClock,
  target,
  Type,
  type ComponentContext,
  type CronSchedule,
  type Emitter,
  type TinyNode,
  type WallClock,
} from "tinyhost";

/** Metadata keys (components.md §1.16). */
const KEY_RUNNING = "cron-running";
const KEY_SCHEDULE = "cron-schedule";
const KEY_CONTEXT = "cron-context";
const KEY_ERROR = "cron-error";

const DEFAULT_SCHEDULE = "*/1 * * * *";

// Go `cron` port types (common-module); `$id`s are the Go type names.
const Settings = Type.Object(
  {
    context: Type.Optional(
      Type.Unknown({ $id: "Context", configurable: true, title: "Context", description: "Arbitrary message to send on each scheduled execution" }),
    ),
    schedule: Type.String({
      default: DEFAULT_SCHEDULE,
      title: "Schedule",
      description: "Cron expression (e.g., '*/5 * * * *' for every 5 minutes, '0 9 * * 1-5' for 9 AM on weekdays)",
    }),
  },
  { $id: "Settings" },
);

const ControlStopped = Type.Object(
  {
    context: Type.Unknown({ $id: "Context", title: "Context" }),
    schedule: Type.String({ title: "Schedule", description: "Cron expression" }),
    status: Type.Optional(Type.String({ title: "Status", readonly: true })),
    start: Type.Boolean({ title: "Start", format: "button" }),
  },
  { $id: "ControlStopped" },
);

const ControlRunning = Type.Object(
  {
    context: Type.Unknown({ $id: "Context", title: "Context", readonly: true }),
    schedule: Type.Optional(Type.String({ title: "Schedule", readonly: true })),
    nextRun: Type.Optional(Type.String({ title: "Next Run", readonly: true })),
    status: Type.Optional(Type.String({ title: "Status", readonly: true })),
    stop: Type.Boolean({ title: "Stop", format: "button" }),
  },
  { $id: "ControlRunning" },
);

interface CronSelf {
  settings: { context: unknown; schedule: string };
  /** Settings came from `_settings`/`_control` since this instance started: metadata must not overwrite them. */
  settingsFromPort: boolean;
  /** Why the last start was refused (shown as the stopped status); `""` when none. */
  lastError: string;
  /** Next activation of the running loop. */
  nextTick: Date | undefined;
  readonly loop: BackgroundLoop;
  emit: Emitter | undefined;
  /** Time source; replaced by a virtual clock in unit tests. */
  clock: WallClock;
}

type MetadataUpdate = (md: Record<string, string>) => void;

function patchMetadata(emit: Emitter | undefined, update: MetadataUpdate): void {
  void emit?.("_reconcile", (node: TinyNode) => update(((node.status ??= {}).metadata ??= {})));
}

function runningKeys(self: CronSelf): MetadataUpdate {
  const schedule = self.settings.schedule;
  const context = JSON.stringify(self.settings.context ?? null);
  return (md) => {
    md[KEY_RUNNING] = "true";
    md[KEY_SCHEDULE] = schedule;
    md[KEY_CONTEXT] = context;
  };
}

const clearAll: MetadataUpdate = (md) => {
  delete md[KEY_RUNNING];
  delete md[KEY_SCHEDULE];
  delete md[KEY_CONTEXT];
  delete md[KEY_ERROR];
};

function refuse(self: CronSelf, message: string): MetadataUpdate {
  self.lastError = message;
  return (md) => {
    md[KEY_ERROR] = message;
  };
}

function invalidScheduleMessage(schedule: string, err: unknown): string {
  return `invalid schedule ${JSON.stringify(schedule)}: ${err instanceof Error ? err.message : String(err)}`;
}

/** The schedule loop: wait for the next activation, emit, repeat — until stopped or no longer leader. */
async function run(self: CronSelf, ctx: ComponentContext<CronSelf>, signal: AbortSignal): Promise<void> {
  const emit = self.emit;
  if (!emit) return;
  let schedule: CronSchedule;
  try {
    schedule = parseCron(self.settings.schedule);
  } catch (err) {
    // Metadata restored a schedule that no longer parses: stop and say why (Go clears the keys silently).
    const fail = refuse(self, invalidScheduleMessage(self.settings.schedule, err));
    patchMetadata(emit, (md) => (clearAll(md), fail(md)));
    return;
  }
  self.nextTick = schedule.next(self.clock.now(), self.clock.zone);
  void emit("_control");
  for (;;) {
    const due = self.nextTick;
    if (!due) {
      const fail = refuse(self, `schedule ${JSON.stringify(schedule.expression)} has no run within 5 years`);
      patchMetadata(emit, (md) => (clearAll(md), fail(md)));
      return;
    }
    if (!(await self.clock.sleepUntil(due, signal))) return;
    if (!ctx.isLeader) {
      ctx.log.info({}, "cron: this pod is no longer the leader; loop stops");
      return;
    }
    const r = await emit("out", self.settings.context ?? null, signal);
    if (signal.aborted) return;
    if (r.kind === "fail") ctx.log.warn({ err: r.error.message }, "cron: downstream error on out port");
    self.nextTick = schedule.next(self.clock.now(), self.clock.zone);
    void emit("_control"); // refresh nextRun
  }
}

function startLoop(self: CronSelf, ctx: ComponentContext<CronSelf>): void {
  self.loop.start({
    lifetime: ctx.nodeSignal,
    body: (signal) => run(self, ctx, signal),
    onExit: () => {
      if (!self.loop.running) self.nextTick = undefined; // a restarted loop keeps its own
      void self.emit?.("_control");
    },
  });
}

function control(self: CronSelf) {
  if (self.loop.running) {
    return source("_control", ControlRunning, {
      label: "Control",
      position: "top",
      default: {
        context: self.settings.context ?? null,
        schedule: self.settings.schedule,
        nextRun: self.nextTick ? formatRfc3339(self.nextTick, self.clock.zone) : "",
        status: "Running",
        stop: true,
      },
    });
  }
  return source("_control", ControlStopped, {
    label: "Control",
    position: "top",
    default: { context: self.settings.context ?? null, schedule: self.settings.schedule, status: self.lastError || "Not running", start: true },
  });
}

export default defineComponent({
  info: {
    name: "cron",
    description: "Cron",
    info: "Scheduled emitter using cron expressions. Click Start to begin emitting context on Out port according to the schedule. Supports standard cron syntax (minute hour day-of-month month day-of-week). Examples: '*/5 * * * *' (every 5 min), '0 */2 * * *' (every 2 hours), '0 9 * * 1-5' (9 AM weekdays). Click Stop to pause. Cron survives pod restarts and leadership changes.",
    tags: ["SDK"],
  },
  // A module scaled to zero runs nothing until a hop arrives (docs/operations.md "Scaling").
  requirements: { scaling: { keepRunning: "it emits on a schedule while started; at zero replicas no pod keeps the schedule and nothing wakes it" } },
  state: (): CronSelf => ({
    settings: { context: null, schedule: DEFAULT_SCHEDULE },
    settingsFromPort: false,
    lastError: "",
    nextTick: undefined,
    loop: new BackgroundLoop(),
    emit: undefined,
    clock: systemClock,
  }),
  ports: (self) => [
    target("_reconcile", Type.Unknown(), { label: "", position: "top" }),
    target("_settings", Settings, {
      label: "Settings",
      position: "top",
      default: { context: self.settings.context ?? null, schedule: self.settings.schedule },
    }),
    source("out", Type.Unknown({ $id: "Context" }), { label: "Out", position: "right", default: null }),
    control(self),
  ],
  handle: () => undefined, // every input is a system port
  onEmitter(ctx, emit) {
    ctx.self.emit = emit;
  },
  onSettings(ctx, settings) {
    const self = ctx.self;
    // An empty schedule (missing from the settings: Go's zero value) is stored as Go does; a start
    // then reports it as invalid. Any other schedule that does not parse fails the reconcile.
    if (settings.schedule !== "") {
      try {
        parseCron(settings.schedule);
      } catch (err) {
        throw new Error(`settings field "schedule": ${invalidScheduleMessage(settings.schedule, err)}`, { cause: err });
      }
    }
    const rescheduled = settings.schedule !== self.settings.schedule;
    self.settings = { context: settings.context ?? null, schedule: settings.schedule };
    self.settingsFromPort = true;
    if (!self.loop.running) return;
    patchMetadata(self.emit, runningKeys(self));
    if (rescheduled) {
      void self.loop.stop(new Error("schedule changed"));
      startLoop(self, ctx);
    }
  },
  onReconcile(ctx, node) {
    const self = ctx.self;
    const md = node.status?.metadata ?? {};
    if (!self.settingsFromPort) {
      const schedule = md[KEY_SCHEDULE];
      if (schedule) self.settings = { ...self.settings, schedule };
      const context = md[KEY_CONTEXT];
      if (context) {
        try {
          self.settings = { ...self.settings, context: JSON.parse(context) as unknown };
        } catch (err) {
          ctx.log.warn({ key: KEY_CONTEXT, err: (err as Error).message }, "cron: ignoring malformed metadata");
        }
      }
      if (md[KEY_ERROR] !== undefined) self.lastError = md[KEY_ERROR];
    }
    if (!ctx.isLeader) {
      if (self.loop.running) void self.loop.stop(new Error("leadership lost"));
      return;
    }
    if (md[KEY_RUNNING] !== undefined && !self.loop.running) {
      ctx.log.info({}, "cron: resuming after a restart or a change of leader");
      startLoop(self, ctx);
    }
  },
  onControl(ctx, message, output) {
    if (!ctx.isLeader) return;
    const self = ctx.self;
    const emit: Emitter = (port, data) => output(port, data);
    const c = readControl(message);
    if (c.stop) {
      void self.loop.stop(new Error("stopped from control"));
      patchMetadata(emit, clearAll);
      void output("_control");
      return;
    }
    if (self.loop.running) {
      // A running cron given another context applies it (Go restarts its loop for this).
      // The decoded message always has `context`: null stands for "none given" and changes nothing.
      if (c.context !== undefined && c.context !== null && JSON.stringify(c.context) !== JSON.stringify(self.settings.context ?? null)) {
        self.settings = { ...self.settings, context: c.context };
        self.settingsFromPort = true;
        patchMetadata(emit, runningKeys(self));
        void output("_control");
      }
      return;
    }
    if (!c.start) return;
    // A start without a schedule (decoded as "") or without a context (null) uses the settings' ones.
    const schedule = typeof c.fields.schedule === "string" && c.fields.schedule !== "" ? c.fields.schedule : self.settings.schedule;
    try {
      parseCron(schedule);
    } catch (err) {
      patchMetadata(emit, refuse(self, invalidScheduleMessage(schedule, err)));
      void output("_control");
      return;
    }
    self.settings = { context: c.context !== undefined && c.context !== null ? c.context : self.settings.context, schedule };
    self.settingsFromPort = true;
    self.lastError = "";
    const keys = runningKeys(self);
    patchMetadata(emit, (md) => {
      delete md[KEY_ERROR];
      keys(md);
    });
    startLoop(self, ctx);
    void output("_control");
  },
  onDestroy(ctx) {
    return ctx.self.loop.stop(new Error("node deleted"));
  },
});
