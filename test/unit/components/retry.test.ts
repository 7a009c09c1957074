// retry: Go's common-module components/retry has no tests; these pin its behaviour as read —
// failed at once when not retryable or out of attempts, otherwise wait the backoff and emit retry.
import { describe, expect, test } from "bun:test";
import { ok, testComponent, type Result, type WallClock } from "tinyhost";
import retry, { computeDelay } from "../../../components/retry.ts";

process.env.TINYHOST_LOG_LEVEL ??= "silent";

/** A clock whose waits end at once and are recorded (ms asked for). */
class RecordingClock implements WallClock {
  readonly zone = "utc" as const;
  readonly waits: number[] = [];
  t = 1_000_000;
  now(): Date {
    return new Date(this.t);
  }
  async sleepUntil(deadline: Date, signal: AbortSignal): Promise<boolean> {
    this.waits.push(deadline.getTime() - this.t);
    if (signal.aborted) return false;
    this.t = deadline.getTime();
    return true;
  }
}

async function harness(settings?: unknown, random = () => 0.5) {
  const h = await testComponent(retry, settings === undefined ? {} : { settings });
  const clock = new RecordingClock();
  Object.assign(h.self as object, { clock, random });
  return { h, clock };
}

const defaults = { maxAttempts: 5, initialDelayMs: 500, maxDelayMs: 30000, backoff: "exponential", jitter: false };

describe("retry ports", () => {
  test("Go's names, labels, positions and defaults (jitter on until settings arrive)", () => {
    expect(retry.info).toMatchObject({ name: "retry", description: "Retry", tags: ["SDK", "Resilience", "Backoff"] });
    expect(retry.ports().map((p) => [p.name, p.label, p.source, p.position, p.configuration])).toEqual([
      ["_settings", "Settings", false, "top", { maxAttempts: 5, initialDelayMs: 500, maxDelayMs: 30000, backoff: "exponential", jitter: true }],
      ["request", "Request", false, "left", { attempt: 0, retryable: false }],
      ["retry", "Retry", true, "right", { attempt: 0, nextDelayMs: 0 }],
      ["failed", "Failed", true, "bottom", { attempt: 0, reason: "" }],
    ]);
  });
});

describe("retry", () => {
  test("a non-retryable error goes to failed at once, attempt unchanged, without waiting", async () => {
    const { h, clock } = await harness(defaults);
    h.respond("failed", () => ok("dead-lettered"));
    const r = await h.send("request", { context: { q: 1 }, attempt: 2, retryable: false, error: "bad request" });
    expect(r).toEqual(ok("dead-lettered"));
    expect(h.emitted).toEqual([{ port: "failed", data: { context: { q: 1 }, attempt: 2, error: "bad request", reason: "not_retryable" } }]);
    expect(clock.waits).toEqual([]);
  });

  test("a retryable error waits the backoff, then emits the next attempt on retry and returns its result", async () => {
    const { h, clock } = await harness(defaults);
    h.respond("retry", () => ok("re-invoked"));
    const r = await h.send("request", { context: "c", attempt: 1, retryable: true, error: "503" });
    expect(r).toEqual(ok("re-invoked"));
    expect(clock.waits).toEqual([1000]); // 500 · 2^1
    expect(h.emitted).toEqual([{ port: "retry", data: { context: "c", attempt: 2, nextDelayMs: 1000 } }]);
  });

  test("out of attempts: failed with reason max_attempts and the final attempt count; an empty error and a null context are left out", async () => {
    const { h } = await harness({ ...defaults, maxAttempts: 3 });
    await h.send("request", { attempt: 2, retryable: true });
    expect(h.emitted).toEqual([{ port: "failed", data: { attempt: 3, reason: "max_attempts" } }]);
  });

  test("wired back into itself as a flow would: original + 3 retries, then failed (maxAttempts 4)", async () => {
    const { h, clock } = await harness({ ...defaults, maxAttempts: 4 });
    // The "upstream" fails again on every retry and sends its error back into request.
    h.respond("retry", (data) => h.send("request", { ...(data as object), retryable: true, error: "still down" }));
    h.respond("failed", (data) => ok({ gaveUp: data }));
    const r = await h.send("request", { context: { id: 9 }, retryable: true, error: "down" });
    expect(r).toEqual(ok({ gaveUp: { context: { id: 9 }, attempt: 4, error: "still down", reason: "max_attempts" } }));
    expect(h.emitted.map((e) => e.port)).toEqual(["retry", "retry", "retry", "failed"]);
    expect(clock.waits).toEqual([500, 1000, 2000]);
  });

  test("settings without fields decode to Go's zero values: maxAttempts 0 means 5, a 0 ms initial delay, no jitter", async () => {
    const { h, clock } = await harness({}, () => 0.999);
    await h.send("request", { retryable: true });
    expect(clock.waits).toEqual([0]);
    expect(h.emitted[0]!.data).toEqual({ attempt: 1, nextDelayMs: 0 });
    await h.send("request", { attempt: 4, retryable: true });
    expect(h.emitted[1]!.data).toEqual({ attempt: 5, reason: "max_attempts" });
  });

  test("a hop cancelled during the wait fails with CANCELLED and never emits", async () => {
    const h = await testComponent(retry, { settings: { ...defaults, initialDelayMs: 60_000 } });
    const caller = new AbortController();
    const pending = h.send("request", { retryable: true }, caller.signal);
    await Bun.sleep(10);
    caller.abort(new Error("caller gave up"));
    const r: Result = await pending;
    expect(r.kind === "fail" && [(r.error as Error & { code?: string }).code, r.error.message]).toEqual(["CANCELLED", "retry cancelled: caller gave up"]);
    expect(h.emitted).toEqual([]);
  });

  test("the real clock waits before retrying", async () => {
    const h = await testComponent(retry, { settings: { ...defaults, initialDelayMs: 30 } });
    const t0 = performance.now();
    await h.send("request", { retryable: true });
    expect(performance.now() - t0).toBeGreaterThanOrEqual(29);
    expect(h.emitted).toEqual([{ port: "retry", data: { attempt: 1, nextDelayMs: 30 } }]);
  });
});

describe("retry backoff (Go computeDelay)", () => {
  const s = (over: Partial<typeof defaults>) => ({ ...defaults, ...over });
  const never = () => 0.5;

  test("exponential, linear and constant, capped at maxDelayMs; an unknown backoff is exponential", () => {
    expect([0, 1, 2, 3].map((n) => computeDelay(s({}), n, never))).toEqual([500, 1000, 2000, 4000]);
    expect(computeDelay(s({}), 10, never)).toBe(30000);
    expect([0, 1, 2].map((n) => computeDelay(s({ backoff: "linear" }), n, never))).toEqual([500, 1000, 1500]);
    expect([0, 5].map((n) => computeDelay(s({ backoff: "constant" }), n, never))).toEqual([500, 500]);
    expect(computeDelay(s({ backoff: "fibonacci" }), 2, never)).toBe(2000);
  });

  test("jitter scales by [0.75, 1.25), whole ms, never past maxDelayMs", () => {
    expect(computeDelay(s({ jitter: true }), 0, () => 0)).toBe(375);
    expect(computeDelay(s({ jitter: true }), 0, () => 0.999)).toBe(624);
    expect(computeDelay(s({ jitter: true, maxDelayMs: 600 }), 0, () => 0.999)).toBe(600);
  });

  test("out-of-range settings: a negative initial means 500, maxDelayMs ≤ 0 means 30000, huge attempts stay capped", () => {
    expect(computeDelay(s({ initialDelayMs: -1 }), 0, never)).toBe(500);
    expect(computeDelay(s({ maxDelayMs: 0 }), 20, never)).toBe(30000);
    expect(computeDelay(s({}), 5000, never)).toBe(30000); // 2^5000 overflows to Infinity, then capped
    expect(computeDelay(s({ initialDelayMs: 0 }), 5000, never)).toBe(0); // 0 · ∞ is NaN: no wait (Go: int(NaN))
    expect(computeDelay(s({}), -3, never)).toBe(62); // 500 · 2^-3
  });
});
