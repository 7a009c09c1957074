import { describe, expect, test } from "bun:test";
import { Backoff, BackoffOptionsError } from "../../../src/k8s/runtime/backoff.ts";
import { FakeClock } from "./fakes.ts";

describe("backoff", () => {
  test("delays double from the initial delay and never exceed the cap", () => {
    const b = new Backoff({ initialMs: 1000, maxMs: 30_000, random: () => 0, clock: new FakeClock() });
    const delays = Array.from({ length: 8 }, () => b.next());
    expect(delays).toEqual([1000, 2000, 4000, 8000, 16_000, 30_000, 30_000, 30_000]);
  });

  test("each delay is jittered within [d·(1−jitter), d]", () => {
    const draws = [0, 0.999, 0.5];
    let i = 0;
    const b = new Backoff({ initialMs: 1000, jitter: 0.5, random: () => draws[i++ % draws.length]!, clock: new FakeClock() });
    const [d0, d1, d2] = [b.next(), b.next(), b.next()];
    expect(d0).toBe(1000);
    expect(d1).toBeGreaterThanOrEqual(1000);
    expect(d1).toBeLessThan(1002);
    expect(d2).toBe(3000);
  });

  test("random jitter spreads delays but keeps them within bounds", () => {
    const delays = new Set<number>();
    for (let i = 0; i < 50; i++) {
      const b = new Backoff({ initialMs: 1000, maxMs: 30_000, clock: new FakeClock() });
      for (let k = 0; k < 10; k++) {
        const d = b.next();
        expect(d).toBeGreaterThanOrEqual(500);
        expect(d).toBeLessThanOrEqual(30_000);
        if (k === 9) delays.add(Math.round(d));
      }
    }
    expect(delays.size).toBeGreaterThan(1);
  });

  test("a failure after a healthy period starts from the initial delay again", async () => {
    const clock = new FakeClock();
    const b = new Backoff({ initialMs: 1000, resetAfterMs: 120_000, random: () => 0, clock });
    b.next();
    b.next();
    expect(b.next()).toBe(4000);
    await clock.advance(120_001);
    expect(b.next()).toBe(1000);
  });

  test("rejects a cap below the initial delay, naming the option", () => {
    expect(() => new Backoff({ initialMs: 1000, maxMs: 10 })).toThrow(BackoffOptionsError);
    expect(() => new Backoff({ initialMs: 1000, maxMs: 10 })).toThrow(/maxMs = 10/);
  });
});
