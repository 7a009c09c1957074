/**
 * `retry` — "Retry" (Go common-module `components/retry`): an explicit retry supervisor for a
 * flow's error path. Wire an error port that emits `{context, error, retryable}` into `request`:
 * - not `retryable` → `failed` at once, reason `not_retryable`;
 * - `attempt + 1 >= maxAttempts` → `failed`, reason `max_attempts`;
 * - otherwise it waits the backoff delay (cancelled with the hop) and emits `{context, attempt + 1,
 *   nextDelayMs}` on `retry`, to be wired back into the failing component's input.
 * Stateless: the attempt count rides in the payload. Every emit returns the downstream result.
 *
 * Delay before attempt n+1 (n = the incoming `attempt`): exponential `initial·2^n`, linear
 * `initial·(n+1)`, constant `initial` (an unknown backoff is exponential), capped at `maxDelayMs`,
 * then with `jitter` scaled by a random factor in [0.75, 1.25) and capped again; whole ms. A
 * negative `initialDelayMs` means 500, a `maxDelayMs` ≤ 0 means 30000, a `maxAttempts` ≤ 0 means 5.
 */
import { defineComponent, fail, omitEmpty, source, stringEnum, systemClock, target, Type, WaitCancelledError, type WallClock } from "tinyhost";

/** Go writes `context` with `omitempty`: a null context is left out of the output. */
const OMIT_CONTEXT = { interfaces: ["context" as const] };
/** `failed` also omits an empty `error` (Go `json:"error,omitempty"`). */
const OMIT_CONTEXT_ERROR = { interfaces: ["context" as const], values: ["error" as const] };

const DEFAULT_MAX_ATTEMPTS = 5;
const DEFAULT_INITIAL_MS = 500;
const DEFAULT_MAX_MS = 30000;
const BACKOFFS = ["exponential", "linear", "constant"] as const;

// Go `retry` port types; `$id`s are the Go type names.
const Settings = Type.Object(
  {
    maxAttempts: Type.Integer({
      minimum: 1,
      default: DEFAULT_MAX_ATTEMPTS,
      title: "Max Attempts",
      description: "Upper bound on retry loops. Counts the first attempt; e.g. 5 = original + 4 retries.",
    }),
    initialDelayMs: Type.Integer({ minimum: 0, default: DEFAULT_INITIAL_MS, title: "Initial Delay (ms)", description: "Wait before the first retry." }),
    maxDelayMs: Type.Integer({
      minimum: 0,
      default: DEFAULT_MAX_MS,
      title: "Max Delay (ms)",
      description: "Upper bound on a single wait. Caps exponential growth.",
    }),
    backoff: stringEnum(BACKOFFS, {
      default: "exponential",
      title: "Backoff",
      description: "exponential: initial * 2^n. linear: initial * (n+1). constant: always initial.",
    }),
    jitter: Type.Optional(
      Type.Boolean({ title: "Jitter", description: "Randomise each delay by ±25% to avoid thundering herd when many flows retry the same upstream." }),
    ),
  },
  { $id: "Settings" },
);

const Request = Type.Object(
  {
    context: Type.Optional(
      Type.Unknown({
        $id: "Context",
        configurable: true,
        title: "Context",
        description: "Original request payload — pass through unchanged so the loop can re-invoke the upstream component.",
      }),
    ),
    attempt: Type.Optional(Type.Integer({ title: "Attempt", description: "Zero or absent on first arrival. Component increments it on every retry." })),
    retryable: Type.Optional(Type.Boolean({ title: "Retryable", description: "From the error port. False = straight to failed without sleeping." })),
    error: Type.Optional(Type.String({ title: "Last Error", description: "Last error message, forwarded to failed for the dead-letter path." })),
  },
  { $id: "Request" },
);

const RetryOut = Type.Object(
  {
    context: Type.Optional(Type.Unknown({ $id: "Context", configurable: true, title: "Context" })),
    attempt: Type.Optional(Type.Integer({ title: "Attempt", description: "Incremented before emit. Next call lands here with this value." })),
    nextDelayMs: Type.Optional(Type.Integer({ title: "Slept (ms)", description: "How long the component just slept. Informational — useful for traces." })),
  },
  { $id: "Retry" },
);

const Failed = Type.Object(
  {
    context: Type.Optional(Type.Unknown({ $id: "Context", configurable: true, title: "Context" })),
    attempt: Type.Optional(Type.Integer({ title: "Attempt", description: "Final attempt count when the loop gave up." })),
    error: Type.Optional(Type.String({ title: "Last Error" })),
    reason: Type.Optional(Type.String({ title: "Reason", description: "max_attempts | not_retryable" })),
  },
  { $id: "Failed" },
);

interface RetrySettings {
  maxAttempts: number;
  initialDelayMs: number;
  maxDelayMs: number;
  backoff: string;
  jitter: boolean;
}

interface RetrySelf {
  settings: RetrySettings;
  /** Where waits happen; a test swaps in a virtual clock. */
  clock: WallClock;
  /** Uniform [0, 1) for the jitter; a test swaps in a fixed one. */
  random: () => number;
}

/** The wait in whole ms before the attempt after `prevAttempt` (Go `computeDelay`). */
export function computeDelay(s: RetrySettings, prevAttempt: number, random: () => number): number {
  const initial = s.initialDelayMs < 0 ? DEFAULT_INITIAL_MS : s.initialDelayMs;
  const maxMs = s.maxDelayMs <= 0 ? DEFAULT_MAX_MS : s.maxDelayMs;
  let raw: number;
  if (s.backoff === "linear") raw = initial * (prevAttempt + 1);
  else if (s.backoff === "constant") raw = initial;
  else raw = initial * 2 ** prevAttempt;
  if (raw > maxMs) raw = maxMs;
  if (s.jitter) {
    raw *= 0.75 + random() * 0.5;
    if (raw > maxMs) raw = maxMs;
  }
  if (!(raw > 0)) return 0; // also NaN (0 × ∞), which Go's int() turns into garbage
  return Math.trunc(raw);
}

export default defineComponent({
  info: {
    name: "retry",
    description: "Retry",
    info: "Explicit retry supervisor with bounded attempts and configurable backoff. Pairs with the error port of any component that emits the canonical module.ErrorMessage shape {context, error, retryable} (build it with module.NewError; mark transient failures with module.Retryable). Any conforming component works — llm_*, http_request, and any third-party module that uses the SDK error contract. Stateless: attempt count rides in the payload, so the same component can supervise many concurrent flows without cross-talk.",
    tags: ["SDK", "Resilience", "Backoff"],
  },
  state: (): RetrySelf => ({
    settings: { maxAttempts: DEFAULT_MAX_ATTEMPTS, initialDelayMs: DEFAULT_INITIAL_MS, maxDelayMs: DEFAULT_MAX_MS, backoff: "exponential", jitter: true },
    clock: systemClock,
    random: Math.random,
  }),
  ports: (self) => [
    target("_settings", Settings, { label: "Settings", position: "top", default: { ...self.settings } }),
    target("request", Request, { label: "Request", position: "left", default: { attempt: 0, retryable: false } }),
    source("retry", RetryOut, { label: "Retry", position: "right", default: { attempt: 0, nextDelayMs: 0 } }),
    source("failed", Failed, { label: "Failed", position: "bottom", default: { attempt: 0, reason: "" } }),
  ],
  onSettings(ctx, settings) {
    // Decoded settings: a missing field is its zero value, as in Go (jitter off, backoff "" = exponential).
    ctx.self.settings = { ...settings, jitter: settings.jitter === true };
  },
  async handle(ctx, output, _port, data) {
    const self = ctx.self;
    const attempt = data.attempt ?? 0;
    const failed = (n: number, reason: string) =>
      output("failed", omitEmpty({ context: data.context, attempt: n, error: data.error, reason }, OMIT_CONTEXT_ERROR));
    if (data.retryable !== true) return failed(attempt, "not_retryable");
    const maxAttempts = self.settings.maxAttempts <= 0 ? DEFAULT_MAX_ATTEMPTS : self.settings.maxAttempts;
    const next = attempt + 1;
    if (next >= maxAttempts) return failed(next, "max_attempts");
    const delayMs = computeDelay(self.settings, attempt, self.random);
    const signal = ctx.signal;
    if (!(await self.clock.sleepUntil(new Date(self.clock.now().getTime() + delayMs), signal))) return fail(new WaitCancelledError("retry", signal.reason));
    return output("retry", omitEmpty({ context: data.context, attempt: next, nextDelayMs: delayMs }, OMIT_CONTEXT));
  },
});
