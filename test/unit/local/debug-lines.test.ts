import { describe, expect, test } from "bun:test";
import { DebugLines } from "../../../src/local/debug-lines.ts";
import type { Schedule } from "../../../src/local/repeat-limiter.ts";

/** A schedule run by hand: `tick()` fires every pending timer. */
function manual() {
  let pending: (() => void)[] = [];
  const schedule: Schedule = (fn) => {
    pending.push(fn);
    return () => void (pending = pending.filter((f) => f !== fn));
  };
  return { schedule, tick: () => pending.splice(0).forEach((f) => f()) };
}

function setup(perWindow = 3, hint?: string) {
  const lines: string[] = [];
  const clock = manual();
  const d = new DebugLines(
    (l) => lines.push(l),
    (n) => (n === "a.m.debug-1" ? '"Up"' : n),
    { perWindow, windowMs: 1000, schedule: clock.schedule, ...(hint ? { hint: () => hint } : {}) },
  );
  return { lines, clock, d };
}

describe("DebugLines", () => {
  test("every message of a burst within the budget is printed, by the node's display name", () => {
    const { lines, d } = setup(5);
    for (let i = 0; i < 4; i++) d.message("a.m.debug-1", `{"item":${i}}`);
    expect(lines).toEqual(['debug "Up": {"item":0}', 'debug "Up": {"item":1}', 'debug "Up": {"item":2}', 'debug "Up": {"item":3}']);
  });

  test("past the budget messages are counted and the count is printed when the window ends, with the hint", () => {
    const { lines, clock, d } = setup(2, "the console shows every one");
    for (let i = 0; i < 7; i++) d.message("a.m.debug-1", String(i));
    expect(lines).toEqual(['debug "Up": 0', 'debug "Up": 1']);
    clock.tick();
    expect(lines.at(-1)).toBe('debug "Up": 5 more messages in the last 1 s not printed (the console shows every one)');
    d.message("a.m.debug-1", "next"); // a new window prints again
    expect(lines.at(-1)).toBe('debug "Up": next');
  });

  test("the budget is per node", () => {
    const { lines, d } = setup(1);
    d.message("a.m.debug-1", "a");
    d.message("b.m.debug-2", "b");
    d.message("a.m.debug-1", "c");
    expect(lines).toEqual(['debug "Up": a', "debug b.m.debug-2: b"]);
  });

  test("flush prints a pending count at once (on stop), without a time span", () => {
    const { lines, d } = setup(1);
    d.message("a.m.debug-1", "a");
    d.message("a.m.debug-1", "b");
    d.flush();
    expect(lines).toEqual(['debug "Up": a', 'debug "Up": 1 more message not printed']);
  });

  test("a long message is cut at 240 characters", () => {
    const { lines, d } = setup();
    d.message("a.m.debug-1", "x".repeat(300));
    expect(lines[0]).toBe(`debug "Up": ${"x".repeat(240)}…`);
  });
});
