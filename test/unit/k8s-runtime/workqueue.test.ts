import { describe, expect, test } from "bun:test";
import { BucketRateLimiter, ItemExponentialRateLimiter } from "../../../src/k8s/runtime/ratelimiter.ts";
import { WorkQueue } from "../../../src/k8s/runtime/workqueue.ts";
import { FakeClock, settle } from "./fakes.ts";

function queue() {
  const clock = new FakeClock();
  return { clock, q: new WorkQueue({ clock, rateLimiter: new ItemExponentialRateLimiter(5, 1_000_000) }) };
}

describe("work queue", () => {
  test("a key added many times while queued is handed out once", async () => {
    const { q } = queue();
    q.add("a");
    q.add("b");
    q.add("a");
    q.add("a");
    expect(q.depth).toBe(2);
    expect(await q.get()).toBe("a");
    expect(await q.get()).toBe("b");
    expect(q.depth).toBe(0);
  });

  test("a key re-added while processing is handed out again only after done", async () => {
    const { q } = queue();
    q.add("a");
    const first = await q.get();
    q.add("a"); // changed while its reconcile runs
    expect(q.depth).toBe(0); // not available to a second worker
    let second: string | undefined;
    void q.get().then((k) => (second = k));
    await settle();
    expect(second).toBeUndefined();
    q.done(first!);
    await settle();
    expect(second).toBe("a");
  });

  test("rate-limited retries of a key wait 5 ms · 2^failures and forget resets them", async () => {
    const { q, clock } = queue();
    const delays: number[] = [];
    for (let i = 0; i < 4; i++) {
      const t0 = clock.now();
      q.addRateLimited("a");
      await clock.advanceUntil(() => q.depth > 0, 10_000, 1);
      delays.push(clock.now() - t0);
      q.done((await q.get())!);
    }
    expect(delays).toEqual([5, 10, 20, 40]);
    expect(q.numRequeues("a")).toBe(4);
    q.forget("a");
    expect(q.numRequeues("a")).toBe(0);
  });

  test("addAfter queues the key after the delay and keeps the earliest due time", async () => {
    const { q, clock } = queue();
    q.addAfter("a", 1000);
    q.addAfter("a", 5000); // later: ignored
    expect(q.delayed).toBe(1);
    await clock.advance(999);
    expect(q.depth).toBe(0);
    await clock.advance(1);
    expect(q.depth).toBe(1);
    q.done((await q.get())!);
    await clock.advance(10_000);
    expect(q.depth).toBe(0); // the 5000 ms add was folded into the earlier one
  });

  test("after shutDown no key is handed out and whenIdle waits for keys in flight", async () => {
    const { q } = queue();
    q.add("a");
    q.add("b");
    const inFlight = (await q.get())!;
    q.shutDown();
    expect(await q.get()).toBeUndefined();
    q.add("c");
    expect(q.depth).toBe(1); // "b" stays queued but is never handed out; "c" was refused
    let idle = false;
    void q.whenIdle().then(() => (idle = true));
    await settle();
    expect(idle).toBe(false);
    q.done(inFlight);
    await settle();
    expect(idle).toBe(true);
  });

  test("a waiting get resolves undefined on shutDown", async () => {
    const { q } = queue();
    const pending = q.get();
    q.shutDown();
    expect(await pending).toBeUndefined();
  });
});

describe("bucket rate limiter", () => {
  test("after the burst, retries are spaced 1/qps apart", async () => {
    const clock = new FakeClock();
    const bucket = new BucketRateLimiter(10, 3, clock);
    expect([bucket.when("a"), bucket.when("b"), bucket.when("c")]).toEqual([0, 0, 0]);
    expect(bucket.when("d")).toBeCloseTo(100);
    expect(bucket.when("e")).toBeCloseTo(200);
    await clock.advance(1000);
    expect(bucket.when("f")).toBe(0);
  });
});
