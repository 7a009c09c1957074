import { afterEach, describe, expect, test } from "bun:test";
import { systemClock } from "../../../src/sdk/wall-clock.ts";

const realSetTimeout = globalThis.setTimeout;
afterEach(() => {
  globalThis.setTimeout = realSetTimeout;
});

describe("systemClock.sleepUntil past the end of Date's range", () => {
  // A `delay` or retry wait over ~8.64e15 ms minus now gives `new Date(now + ms)` an invalid time (NaN).
  test("an invalid deadline waits until aborted, arming no timer (no 0 ms re-arm loop)", async () => {
    let armed = 0;
    globalThis.setTimeout = ((fn: () => void, ms?: number) => {
      armed++;
      return realSetTimeout(fn, ms);
    }) as typeof setTimeout;
    const ac = new AbortController();
    let settled: boolean | undefined;
    const waiting = systemClock.sleepUntil(new Date(Date.now() + 9e15), ac.signal).then((v) => (settled = v));
    await Bun.sleep(100);
    const armedWhileWaiting = armed;
    globalThis.setTimeout = realSetTimeout;
    expect(settled).toBeUndefined();
    // The loop re-armed ~100 timers in these 100 ms; other code in this process may arm a few of its own.
    expect(armedWhileWaiting).toBeLessThan(10);
    ac.abort();
    await waiting;
    expect(settled).toBe(false);
  });
});
