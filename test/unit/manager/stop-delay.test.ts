/** The stop delay (src/manager/stop-delay.ts): readiness first, serving on for the delay, then the wrapped drain — within the budget. */
import { describe, expect, test } from "bun:test";
import pino from "pino";
import { Manager, withStopDelay, STOP_DELAY_RESERVE_MS, type Runnable } from "../../../src/manager/index.ts";

const log = pino({ level: "silent" });

function drainStep(events: string[], t0: () => number): Runnable {
  return { name: "http listeners", stop: () => void events.push(`drain at ${Math.round(t0())}`) };
}

describe("withStopDelay", () => {
  test("on stop: stopping is marked at once, the drain starts only after the delay", async () => {
    const events: string[] = [];
    let start = 0;
    const since = () => performance.now() - start;
    const r = withStopDelay(drainStep(events, since), 300, () => events.push(`stopping at ${Math.round(since())}`));
    start = performance.now();
    await r.stop!({ signal: new AbortController().signal, remainingMs: () => 8000 });
    expect(events).toHaveLength(2);
    expect(events[0]).toStartWith("stopping at ");
    const drainAt = Number(events[1]!.split(" ").pop());
    expect(drainAt).toBeGreaterThanOrEqual(295);
  });

  test("the delay never eats the reserve the drains keep: with 3.2 s of budget left it waits at most 0.2 s", async () => {
    const events: string[] = [];
    const start = performance.now();
    const r = withStopDelay(
      drainStep(events, () => performance.now() - start),
      5000,
      () => undefined,
    );
    await r.stop!({ signal: new AbortController().signal, remainingMs: () => STOP_DELAY_RESERVE_MS + 200 });
    // Not the 5 s asked for (a wait that long would fail this bound even on a busy machine).
    expect(performance.now() - start).toBeLessThan(4500);
    expect(events).toHaveLength(1);
  });

  test("a delay of 0 marks stopping and drains at once; the name is the wrapped step's", async () => {
    const events: string[] = [];
    const r = withStopDelay(
      drainStep(events, () => 0),
      0,
      () => events.push("stopping"),
    );
    expect(r.name).toBe("http listeners");
    await r.stop!({ signal: new AbortController().signal, remainingMs: () => 8000 });
    expect(events).toEqual(["stopping", "drain at 0"]);
  });

  test("in a manager: the step of the first stopped group delays every later group", async () => {
    const order: string[] = [];
    const m = new Manager({ log });
    m.add("receivers", { name: "receivers", stop: () => void order.push("receivers") });
    m.add(
      "listeners",
      withStopDelay({ name: "http listeners", stop: () => void order.push("drain") }, 100, () => order.push("stopping")),
    );
    await m.start();
    await m.stop("test");
    expect(order).toEqual(["stopping", "drain", "receivers"]);
  });
});
