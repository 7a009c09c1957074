import { describe, expect, test } from "bun:test";
import { BusyError, HopSlots } from "../../../src/transport/slots.ts";
import { errorCode } from "../../../src/core/errors.ts";

describe("hop slots (bounded concurrency, issue 21)", () => {
  test("tryAcquire stops at the limit; release frees a slot", () => {
    const s = new HopSlots({ limit: 2 });
    expect([s.tryAcquire(), s.tryAcquire(), s.tryAcquire()]).toEqual([true, true, false]);
    expect({ taken: s.taken, free: s.free }).toEqual({ taken: 2, free: 0 });
    s.release();
    expect(s.tryAcquire()).toBe(true);
  });

  test("a waiter gets the next released slot, in FIFO order, ahead of newcomers", async () => {
    const s = new HopSlots({ limit: 1, queueLimit: 2 });
    expect(await s.acquire(1000)).toBe(true);
    const order: number[] = [];
    const a = s.acquire(1000).then((ok) => (order.push(1), ok));
    const b = s.acquire(1000).then((ok) => (order.push(2), ok));
    expect(s.queued).toBe(2);
    expect(s.tryAcquire()).toBe(false); // a newcomer does not jump the queue
    s.release();
    expect(await a).toBe(true);
    s.release();
    expect(await b).toBe(true);
    expect(order).toEqual([1, 2]);
    expect(s.taken).toBe(1);
  });

  test("a full queue refuses at once; a wait that runs out refuses; both are counted", async () => {
    const s = new HopSlots({ limit: 1, queueLimit: 1 });
    s.tryAcquire();
    const waiting = s.acquire(30);
    expect(await s.acquire(1000)).toBe(false); // queue full
    expect(await waiting).toBe(false); // timed out
    expect({ busy: s.busy, queued: s.queued, taken: s.taken }).toEqual({ busy: 2, queued: 0, taken: 1 });
  });

  test("an aborted waiter leaves the queue uncounted, and a release then skips it", async () => {
    const s = new HopSlots({ limit: 1, queueLimit: 2 });
    s.tryAcquire();
    const gone = new AbortController();
    const a = s.acquire(1000, gone.signal);
    const b = s.acquire(1000);
    expect(s.queued).toBe(2);
    gone.abort();
    expect(await a).toBe(false);
    expect({ queued: s.queued, busy: s.busy }).toEqual({ queued: 1, busy: 0 });
    s.release(); // passes to b, not to the aborted a
    expect(await b).toBe(true);
    expect(s.taken).toBe(1);
    expect(await s.acquire(1000, AbortSignal.abort())).toBe(false); // aborted before: no wait
    expect(s.queued).toBe(0);
  });

  test("reserve takes up to the free slots; whenFree waits for a release", async () => {
    const s = new HopSlots({ limit: 4 });
    expect(s.reserve(10)).toBe(4);
    expect(s.reserve(1)).toBe(0);
    const stop = new AbortController();
    let woke = false;
    const w = s.whenFree(2, 5, stop.signal).then(() => (woke = true));
    await Bun.sleep(20);
    expect(woke).toBe(false);
    s.release(2);
    await w;
    expect(s.free).toBe(2);
  });

  test("whenFree returns with one free slot once the batching window passed, and on abort", async () => {
    const s = new HopSlots({ limit: 4 });
    s.reserve(3);
    const t0 = performance.now();
    await s.whenFree(4, 30, new AbortController().signal);
    expect(performance.now() - t0).toBeGreaterThanOrEqual(25);
    s.reserve(1);
    const stop = new AbortController();
    const w = s.whenFree(1, 5, stop.signal);
    stop.abort();
    await w; // resolves although no slot is free
    expect(s.free).toBe(0);
  });

  test("release without a taken slot throws; bad limits are refused with the value", () => {
    expect(() => new HopSlots({ limit: 1 }).release()).toThrow("release without a taken slot");
    expect(() => new HopSlots({ limit: 0 })).toThrow("limit = 0 must be an integer ≥ 1");
    expect(() => new HopSlots({ limit: 2, queueLimit: -1 })).toThrow("queueLimit = -1");
  });

  test("BusyError carries the code BUSY and names the hop and limit", () => {
    const e = new BusyError("h.m.n-1:in", 8, "queue of 8 full");
    expect(errorCode(e)).toBe("BUSY");
    expect(e.message).toBe('BUSY: module busy: 8 hops running, hop to "h.m.n-1:in" refused (queue of 8 full); retry');
  });
  test("pull loops sharing the slots (one per served module name) each reserve only their share", () => {
    const s = new HopSlots({ limit: 64 });
    expect(s.pullShare).toBe(64);
    const offFront = s.addPuller();
    const offCommon = s.addPuller();
    expect(s.pullShare).toBe(32);
    // The first loop's open pull leaves the second its half, rather than every slot.
    expect(s.reserve(s.pullShare)).toBe(32);
    expect(s.reserve(s.pullShare)).toBe(32);
    s.release(64);
    const offThird = s.addPuller();
    expect(s.pullShare).toBe(22); // ceil(64 / 3)
    offThird();
    offThird(); // unregistering twice counts once
    expect(s.pullShare).toBe(32);
    offFront();
    offCommon();
    expect(s.pullShare).toBe(64);
    expect(new HopSlots({ limit: 2 }).pullShare).toBe(2);
    const small = new HopSlots({ limit: 1 });
    small.addPuller();
    small.addPuller();
    expect(small.pullShare).toBe(1);
  });
});
