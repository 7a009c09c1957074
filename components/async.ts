/**
 * `async` — "Async" (components.md §1.4): passes `{context}` on to `out` without making the caller
 * wait. While fewer than `maxConcurrency` detached emits are in flight it starts one in the
 * background (node lifetime only, not the caller's cancellation) and returns an empty result at
 * once; when all slots are busy it emits in the caller's hop and returns that result (backpressure).
 */
import { defineComponent, empty, source, target, Type, type Emitter } from "tinyhost";

/** Slots used when `maxConcurrency` is 0 (components.md §1.4: "0 ⇒ 100"). */
const DEFAULT_MAX_CONCURRENCY = 100;

// Go `async` port types (common-module): the `$id`s are the Go type names, so the published defs
// are named as the Go module names them; no `required`/`default` beyond Go's tags.
const Settings = Type.Object(
  {
    maxConcurrency: Type.Optional(
      Type.Integer({ title: "Max Concurrency", description: "Maximum number of concurrent async operations. 0 means use default (100)." }),
    ),
  },
  { $id: "Settings" },
);

const In = Type.Object(
  {
    context: Type.Unknown({ $id: "Context", configurable: true, title: "Context", description: "Arbitrary message to be modified" }),
  },
  { $id: "InMessage" },
);

const Out = Type.Object(
  {
    context: Type.Optional(Type.Unknown({ $id: "Context", configurable: true, title: "Context", description: "Passthrough — the message, unchanged" })),
  },
  { $id: "OutMessage" },
);

interface AsyncSelf {
  maxConcurrency: number;
  inFlight: number;
  emit: Emitter | undefined;
}

export default defineComponent({
  info: {
    name: "async",
    description: "Async",
    info: "Non-blocking pass-through. Returns immediately (unblocks sender), then emits context on Out in a goroutine. Limits concurrent goroutines via maxConcurrency setting to prevent memory issues.",
    tags: ["SDK"],
  },
  state: (): AsyncSelf => ({ maxConcurrency: DEFAULT_MAX_CONCURRENCY, inFlight: 0, emit: undefined }),
  ports: (self) => [
    target("_settings", Settings, { label: "Settings", position: "top", default: { maxConcurrency: self.maxConcurrency } }),
    target("in", In, { label: "In", position: "left", default: { context: null } }),
    source("out", Out, { label: "Out", position: "right", default: { context: null } }),
  ],
  onEmitter(ctx, emit) {
    ctx.self.emit = emit;
  },
  onSettings(ctx, settings) {
    ctx.self.maxConcurrency = settings.maxConcurrency ?? 0; // decoded: a missing value is Go's 0 (→ 100 slots)
  },
  handle(ctx, output, _port, data) {
    const self = ctx.self;
    const message = { context: data.context ?? null };
    const limit = self.maxConcurrency > 0 ? self.maxConcurrency : DEFAULT_MAX_CONCURRENCY;
    const emit = self.emit;
    if (!emit || self.inFlight >= limit) return output("out", message); // saturated: backpressure
    self.inFlight++;
    void emit("out", message, ctx.nodeSignal)
      .then((r) => {
        if (r.kind === "fail") ctx.log.warn({ err: r.error.message }, "async: background emit failed");
      })
      .finally(() => {
        self.inFlight--;
      });
    return empty;
  },
});
