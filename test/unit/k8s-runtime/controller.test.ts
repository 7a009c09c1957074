import { describe, expect, test } from "bun:test";
import { Controller, ControllerError, type Reconciler } from "../../../src/k8s/runtime/controller.ts";
import { generationOrStatusMetadataChanged } from "../../../src/k8s/runtime/predicates.ts";
import { ItemExponentialRateLimiter } from "../../../src/k8s/runtime/ratelimiter.ts";
import type { ChangeEvent } from "../../../src/k8s/runtime/reflector.ts";
import { Watcher } from "../../../src/k8s/runtime/watcher.ts";
import { FakeClock, FakeCollection, settle, type Item } from "./fakes.ts";

function setup(reconcile: Reconciler<Item>, workers = 1) {
  const api = new FakeCollection();
  const clock = new FakeClock();
  const watcher = new Watcher(api, { clock, watchdogMs: 0, watchTimeoutSeconds: 300 });
  const controller = new Controller<Item>({
    name: "test",
    watcher,
    reconcile,
    workers,
    queue: { clock, rateLimiter: new ItemExponentialRateLimiter(5, 1_000_000) },
  });
  const stop = new AbortController();
  return { api, clock, controller, stop };
}

describe("controller", () => {
  test("reconciles every listed object once, with the store's copy", async () => {
    const seen: string[] = [];
    const { api, controller, stop } = setup((key, obj) => void seen.push(`${key}=${obj?.data?.v}`));
    api.put("a", { v: "1" });
    api.put("b", { v: "2" });
    const run = controller.run(stop.signal);
    await controller.store.whenSynced();
    await settle();
    expect(seen.sort()).toEqual(["ns/a=1", "ns/b=2"]);
    stop.abort();
    await run;
  });

  test("a deleted object is reconciled with undefined", async () => {
    const seen: [string, Item | undefined][] = [];
    const { api, controller, stop } = setup((key, obj) => void seen.push([key, obj]));
    api.put("a", { v: "1" });
    const run = controller.run(stop.signal);
    await settle();
    api.remove("a");
    await settle();
    expect(seen.at(-1)).toEqual(["ns/a", undefined]);
    stop.abort();
    await run;
  });

  test("a failing reconcile is retried with growing delays until it succeeds", async () => {
    const at: number[] = [];
    let clockRef: FakeClock | undefined;
    const { api, clock, controller, stop } = setup(() => {
      at.push(clockRef!.now());
      if (at.length < 4) throw new Error("not yet");
    });
    clockRef = clock;
    api.put("a", { v: "1" });
    const run = controller.run(stop.signal);
    await clock.advance(1000);
    expect(at).toEqual([0, 5, 15, 35]); // 5, 10, 20 ms apart
    expect(controller.stats.errors).toBe(3);
    expect(controller.queue.numRequeues("ns/a")).toBe(0); // forgotten after success
    stop.abort();
    await run;
  });

  test("requeueAfterMs runs the reconcile again after that delay", async () => {
    const at: number[] = [];
    let clockRef: FakeClock | undefined;
    const { api, clock, controller, stop } = setup(() => {
      at.push(clockRef!.now());
      return { requeueAfterMs: 60_000 };
    });
    clockRef = clock;
    api.put("a", { v: "1" });
    const run = controller.run(stop.signal);
    await clock.advance(150_000);
    expect(at).toEqual([0, 60_000, 120_000]);
    stop.abort();
    await run;
  });

  test("one key is never reconciled by two workers at once, and a change during a reconcile is reconciled after it", async () => {
    let running = 0;
    let maxRunning = 0;
    const versions: string[] = [];
    let release: (() => void) | undefined;
    const { api, controller, stop } = setup(async (_key, obj) => {
      running++;
      maxRunning = Math.max(maxRunning, running);
      versions.push(obj?.data?.v ?? "");
      await new Promise<void>((r) => (release = r));
      running--;
    }, 4);
    api.put("a", { v: "1" });
    const run = controller.run(stop.signal);
    await settle();
    api.put("a", { v: "2" });
    api.put("a", { v: "3" });
    await settle();
    expect(versions).toEqual(["1"]); // still running the first
    release!();
    await settle();
    expect(versions).toEqual(["1", "3"]); // the two changes collapsed into one reconcile of the newest copy
    release!();
    await settle();
    expect(maxRunning).toBe(1);
    stop.abort();
    await run;
  });

  test("predicates drop changes they reject", async () => {
    const seen: string[] = [];
    const api = new FakeCollection();
    const clock = new FakeClock();
    const controller = new Controller<Item>({
      name: "test",
      watcher: new Watcher(api, { clock, watchdogMs: 0 }),
      reconcile: (key) => void seen.push(key),
      predicates: [(c: ChangeEvent<Item>) => c.object.metadata.name !== "skip"],
      queue: { clock },
    });
    api.put("keep", { v: "1" });
    api.put("skip", { v: "1" });
    const stop = new AbortController();
    const run = controller.run(stop.signal);
    await settle();
    expect(seen).toEqual(["ns/keep"]);
    stop.abort();
    await run;
  });

  test("shutdown waits for the reconcile in flight and starts no new one", async () => {
    let finished = false;
    let started = 0;
    let release: (() => void) | undefined;
    const { api, controller, stop } = setup(async () => {
      started++;
      await new Promise<void>((r) => (release = r));
      finished = true;
    });
    api.put("a", { v: "1" });
    api.put("b", { v: "1" });
    const run = controller.run(stop.signal);
    await settle();
    stop.abort();
    let returned = false;
    void run.then(() => (returned = true));
    await settle();
    expect(returned).toBe(false);
    release!();
    await run;
    expect(finished).toBe(true);
    expect(started).toBe(1);
  });

  test("run twice at once is refused", async () => {
    const { controller, stop } = setup(() => {});
    const run = controller.run(stop.signal);
    expect(() => controller.run(stop.signal)).toThrow(ControllerError);
    stop.abort();
    await run;
  });
});

describe("predicates", () => {
  const node = (generation: number, meta?: Record<string, string>) =>
    ({ metadata: { name: "n", namespace: "ns", generation }, status: { metadata: meta } }) as Item & { status: { metadata?: Record<string, string> } };
  const update = (old: ReturnType<typeof node>, object: ReturnType<typeof node>) => ({ type: "applied" as const, key: "ns/n", object, old });

  test("generationOrStatusMetadataChanged passes generation changes and status.metadata changes only", () => {
    expect(generationOrStatusMetadataChanged(update(node(1, { a: "1" }), node(2, { a: "1" })))).toBe(true);
    expect(generationOrStatusMetadataChanged(update(node(1, { a: "1" }), node(1, { a: "2" })))).toBe(true);
    expect(generationOrStatusMetadataChanged(update(node(1, { a: "1", b: "2" }), node(1, { b: "2", a: "1" })))).toBe(false);
    expect(generationOrStatusMetadataChanged({ type: "applied", key: "ns/n", object: node(1), old: undefined })).toBe(true);
    expect(generationOrStatusMetadataChanged({ type: "deleted", key: "ns/n", object: node(1), finalStateUnknown: true })).toBe(true);
  });
});
