import { describe, expect, test } from "bun:test";
import { DISTINCT_PER_WINDOW, RepeatLimiter, type Schedule } from "../../../src/local/repeat-limiter.ts";

/** A manual timer: `fire()` runs what is due, as if the window passed. */
function manualClock() {
  let pending: Array<() => void> = [];
  const schedule: Schedule = (fn) => {
    pending.push(fn);
    return () => {
      pending = pending.filter((f) => f !== fn);
    };
  };
  return {
    schedule,
    fire() {
      const due = pending;
      pending = [];
      for (const f of due) f();
    },
    get pending() {
      return pending.length;
    },
  };
}

describe("RepeatLimiter", () => {
  test("prints the first occurrence at once and summarises repeats once per window", () => {
    const lines: string[] = [];
    const clock = manualClock();
    const r = new RepeatLimiter((l) => lines.push(l), 5000, clock.schedule);
    for (let i = 0; i < 100; i++) r.line("a:in", "error: node a port in", "boom");
    expect(lines).toEqual(["error: node a port in: boom"]);
    clock.fire();
    expect(lines).toEqual(["error: node a port in: boom", "error: node a port in: boom (repeated 99 more times in the last 5 s)"]);
  });

  test("a failure that keeps happening gets one summary per window; a quiet window closes the group", () => {
    const lines: string[] = [];
    const clock = manualClock();
    const r = new RepeatLimiter((l) => lines.push(l), 2000, clock.schedule);
    r.line("g", "p", "m");
    r.line("g", "p", "m");
    clock.fire();
    r.line("g", "p", "m");
    clock.fire();
    expect(lines).toEqual(["p: m", "p: m (repeated 1 more time in the last 2 s)", "p: m (repeated 1 more time in the last 2 s)"]);
    clock.fire(); // nothing happened in this window: the group closes
    expect(clock.pending).toBe(0);
    r.line("g", "p", "m");
    expect(lines.at(-1)).toBe("p: m"); // printed at once again, not counted
  });

  test("a single occurrence leaves no summary", () => {
    const lines: string[] = [];
    const clock = manualClock();
    const r = new RepeatLimiter((l) => lines.push(l), 5000, clock.schedule);
    r.line("g", "p", "once");
    clock.fire();
    expect(lines).toEqual(["p: once"]);
  });

  test(`a group prints at most ${DISTINCT_PER_WINDOW} different messages per window; the others are counted with the last one named`, () => {
    const lines: string[] = [];
    const clock = manualClock();
    const r = new RepeatLimiter((l) => lines.push(l), 5000, clock.schedule);
    for (let i = 0; i < 10; i++) r.line("g", "p", `request ${i} failed`);
    expect(lines).toEqual(["p: request 0 failed", "p: request 1 failed", "p: request 2 failed"]);
    clock.fire();
    expect(lines.at(-1)).toBe("p: 7 more with other messages in the last 5 s; the last: request 9 failed");
  });

  test("groups are independent", () => {
    const lines: string[] = [];
    const clock = manualClock();
    const r = new RepeatLimiter((l) => lines.push(l), 5000, clock.schedule);
    r.line("a", "pa", "x");
    r.line("b", "pb", "x");
    r.line("a", "pa", "x");
    expect(lines).toEqual(["pa: x", "pb: x"]);
    clock.fire();
    expect(lines).toEqual(["pa: x", "pb: x", "pa: x (repeated 1 more time in the last 5 s)"]);
  });

  test("flush prints pending summaries at once, without claiming a full window, and cancels the timers (on stop)", () => {
    const lines: string[] = [];
    const clock = manualClock();
    const r = new RepeatLimiter((l) => lines.push(l), 5000, clock.schedule);
    r.line("g", "p", "m");
    r.line("g", "p", "m");
    r.flush();
    expect(lines).toEqual(["p: m", "p: m (repeated 1 more time)"]);
    expect(clock.pending).toBe(0);
  });
});
