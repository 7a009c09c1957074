/**
 * `delay` — "Delay" (components.md §1.3): waits `delay` ms, then emits `{context}` on `out` and
 * returns the downstream result, so the caller is blocked for the wait plus the downstream time.
 * The wait ends early with a `CANCELLED` failure when the hop is cancelled (`ctx.signal`).
 */
import { defineComponent, fail, source, systemClock, target, TinyError, Type, WaitCancelledError } from "tinyhost";

/** `delay` got a wait ≤ 0 ms (components.md §1.3: fails "invalid delay"). code `"INVALID_DELAY"`. */
export class InvalidDelayError extends TinyError<"INVALID_DELAY"> {
  /** @param delayMs the rejected value of the `delay` field, ms. */
  constructor(readonly delayMs: number) {
    super("INVALID_DELAY", `invalid delay: field "delay" must be > 0 ms, got ${delayMs}`);
  }
}

// Go `delay` port types (common-module `Request`, `OutMessage`); `$id`s are the Go type names.
const In = Type.Object(
  {
    context: Type.Optional(Type.Unknown({ $id: "Context", configurable: true, title: "Context", description: "Arbitrary message to be delayed" })),
    delay: Type.Integer({ title: "Delay (ms)" }),
  },
  { $id: "Request" },
);

const Out = Type.Object(
  { context: Type.Optional(Type.Unknown({ $id: "Context", configurable: true, title: "Context", description: "Passthrough — the message, unchanged" })) },
  { $id: "OutMessage" },
);

export default defineComponent({
  info: {
    name: "delay",
    description: "Delay",
    info: "Timed pause. Receives context + delay (ms) on In, sleeps for specified duration (blocking upstream), then emits context on Out. Use for rate limiting or adding pauses between operations.",
    tags: ["SDK"],
  },
  ports: () => [
    target("in", In, { label: "In", position: "left", default: { context: null, delay: 1000 } }),
    source("out", Out, { label: "Out", position: "right", default: { context: null } }),
  ],
  async handle(ctx, output, _port, data) {
    if (data.delay <= 0) return fail(new InvalidDelayError(data.delay));
    const signal = ctx.signal;
    // systemClock chains timers past setTimeout's 2^31−1 ms limit (a longer one would fire at once).
    if (!(await systemClock.sleepUntil(new Date(Date.now() + data.delay), signal))) return fail(new WaitCancelledError("delay", signal.reason));
    return output("out", { context: data.context ?? null });
  },
});
