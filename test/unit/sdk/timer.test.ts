import { describe, expect, test } from "bun:test";
import { nodeInterval, nodeTimeout, sleepUnlessAborted } from "tinyhost";
import { MAX_TIMER_MS, startInterval, startTimer, timeoutSignal, timerDelay } from "../../../src/core/timer.ts";
import { VirtualTimers } from "../../support/virtual-timers.ts";

const DAY = 86_400_000;

describe("startTimer waits as long as asked (Go's time.Sleep takes any duration)", () => {
  test("a 30-day timer fires at 30 days, not after 1 ms, and never hands the host a delay it would clamp", () => {
    const host = new VirtualTimers();
    let fired = -1;
    startTimer(30 * DAY, () => (fired = host.now()), { host });
    host.advance(1);
    expect(fired).toBe(-1);
    host.advance(30 * DAY - 2);
    expect(fired).toBe(-1);
    host.advance(1);
    expect(fired).toBe(30 * DAY);
    expect(host.clamped).toEqual([]);
    expect(Math.max(...host.armed)).toBe(MAX_TIMER_MS);
  });

  test("a delay exactly at and one past the 32-bit limit both wait their full length", () => {
    for (const ms of [MAX_TIMER_MS, MAX_TIMER_MS + 1, 2 ** 32 + 5]) {
      const host = new VirtualTimers();
      let fired = -1;
      startTimer(ms, () => (fired = host.now()), { host });
      host.advance(ms - 1);
      expect(fired).toBe(-1);
      host.advance(1);
      expect(fired).toBe(ms);
      expect(host.clamped).toEqual([]);
    }
  });

  test("a delay in years (Number.MAX_SAFE_INTEGER ms) is chunked, not clamped", () => {
    const host = new VirtualTimers();
    let fired = false;
    startTimer(Number.MAX_SAFE_INTEGER, () => (fired = true), { host });
    host.advance(10 * MAX_TIMER_MS);
    expect(fired).toBe(false);
    expect(host.clamped).toEqual([]);
    expect(host.pendingCount).toBe(1);
  });

  test("cancel stops a chunked timer between chunks", () => {
    const host = new VirtualTimers();
    let fired = false;
    const t = startTimer(60 * DAY, () => (fired = true), { host });
    host.advance(30 * DAY);
    t.cancel();
    host.advance(60 * DAY);
    expect(fired).toBe(false);
    expect(host.pendingCount).toBe(0);
  });

  test("NaN and negative delays fire on the next turn; Infinity never fires and arms nothing", () => {
    expect([timerDelay(Number.NaN), timerDelay(-5), timerDelay(0), timerDelay(7), timerDelay(Infinity)]).toEqual([0, 0, 0, 7, Infinity]);
    const host = new VirtualTimers();
    let fired = 0;
    startTimer(Infinity, () => fired++, { host });
    expect(host.pendingCount).toBe(0);
    startTimer(-1, () => fired++, { host });
    host.advance(1);
    expect(fired).toBe(1);
  });

  test("a host timer that wakes early (the chunk ran out, or the host fired a little early) waits again for the rest", () => {
    const host = new VirtualTimers();
    const early: TimerHostEarly = new TimerHostEarly(host, 3);
    let fired = -1;
    startTimer(100, () => (fired = host.now()), { host: early });
    host.advance(97);
    expect(fired).toBe(-1);
    host.advance(3);
    expect(fired).toBe(100);
  });
});

/** Wraps a host so every timer fires `early` ms before its time. */
class TimerHostEarly {
  constructor(
    readonly host: VirtualTimers,
    readonly early: number,
  ) {}
  now = () => this.host.now();
  set = (fn: () => void, ms: number) => this.host.set(fn, Math.max(0, ms - this.early));
  clear = (h: unknown) => this.host.clear(h);
}

describe("startInterval", () => {
  test("a 30-day period ticks once per 30 days", () => {
    const host = new VirtualTimers();
    const ticks: number[] = [];
    const t = startInterval(30 * DAY, () => ticks.push(host.now()), { host });
    host.advance(90 * DAY);
    t.cancel();
    expect(ticks).toEqual([30 * DAY, 60 * DAY, 90 * DAY]);
    expect(host.clamped).toEqual([]);
  });

  test("ticks keep their schedule (no drift) and a throw in one tick does not stop the next", () => {
    const host = new VirtualTimers();
    const ticks: number[] = [];
    startInterval(
      10,
      () => {
        ticks.push(host.now());
        if (ticks.length === 1) throw new Error("boom");
      },
      { host },
    );
    expect(() => host.advance(10)).toThrow("boom");
    host.advance(20);
    expect(ticks).toEqual([10, 20, 30]);
  });
});

describe("waits built on the primitive", () => {
  test("sleepUnlessAborted: 30 days is 30 days, and an abort ends it at once", async () => {
    const host = new VirtualTimers();
    const ctl = new AbortController();
    let outcome: boolean | undefined;
    void sleepUnlessAborted(30 * DAY, ctl.signal, { host }).then((v) => (outcome = v));
    host.advance(29 * DAY);
    await Promise.resolve();
    expect(outcome).toBeUndefined();
    host.advance(DAY);
    await Promise.resolve();
    expect(outcome).toBe(true);

    const ctl2 = new AbortController();
    const p = sleepUnlessAborted(30 * DAY, ctl2.signal, { host });
    ctl2.abort();
    expect(await p).toBe(false);
    expect(host.clamped).toEqual([]);
  });

  test("nodeTimeout and nodeInterval with a 30-day delay wait 30 days (the SDK's component timers)", () => {
    const host = new VirtualTimers();
    const owner = { nodeSignal: new AbortController().signal };
    let once = 0;
    let every = 0;
    nodeTimeout(owner, 30 * DAY, () => void once++, { host });
    nodeInterval(owner, 30 * DAY, () => void every++, { host });
    host.advance(30 * DAY - 1);
    expect([once, every]).toEqual([0, 0]);
    host.advance(1);
    expect([once, every]).toEqual([1, 1]);
    expect(host.clamped).toEqual([]);
  });

  test("timeoutSignal takes delays AbortSignal.timeout throws on (above 2^53−1 ms) and aborts with a TimeoutError", () => {
    expect(() => AbortSignal.timeout(1e20)).toThrow();
    const host = new VirtualTimers();
    const far = timeoutSignal(1e20, { host });
    host.advance(100 * DAY);
    expect(far.aborted).toBe(false);
    const near = timeoutSignal(40 * DAY, { host });
    host.advance(40 * DAY);
    expect(near.aborted).toBe(true);
    expect((near.reason as DOMException).name).toBe("TimeoutError");
  });
});
