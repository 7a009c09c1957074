import { describe, expect, test } from "bun:test";
import { Backoff } from "../../../src/k8s/runtime/backoff.ts";
import { reflector, type ChangeEvent } from "../../../src/k8s/runtime/reflector.ts";
import { ObjectStore } from "../../../src/k8s/runtime/store.ts";
import { Watcher, type WatcherEvent } from "../../../src/k8s/runtime/watcher.ts";
import { FakeClock, FakeCollection, settle, type Item } from "./fakes.ts";

function collect<T>(it: AsyncIterable<T>): { seen: T[]; done: Promise<void> } {
  const seen: T[] = [];
  const done = (async () => {
    for await (const e of it) seen.push(e);
  })();
  return { seen, done };
}

function setup(opts: { pageSize?: number; watchdogMs?: number } = {}) {
  const api = new FakeCollection();
  const clock = new FakeClock();
  // random() = 0 → delays are exactly initial·2^n, so the test knows when retries happen.
  const backoff = new Backoff({ initialMs: 1000, maxMs: 30_000, clock, random: () => 0 });
  const w = new Watcher(api, { clock, backoff, watchdogMs: opts.watchdogMs ?? 0, pageSize: opts.pageSize ?? 500, watchTimeoutSeconds: 300 });
  const stop = new AbortController();
  return { api, clock, w, stop };
}

const applied = (events: WatcherEvent<Item>[]) => events.flatMap((e) => (e.type === "applied" ? [`${e.object.metadata.name}=${e.object.data?.v}`] : []));

describe("watcher", () => {
  test("the first event is one restarted list of every object, read page by page", async () => {
    const { api, w, stop } = setup({ pageSize: 2 });
    for (let i = 0; i < 5; i++) api.put(`cm-${i}`, { v: "0" });
    const { seen, done } = collect(w.events(stop.signal));
    await settle();
    const first = seen[0];
    expect(first?.type).toBe("restarted");
    if (first?.type !== "restarted") throw new Error("unreachable");
    expect(first.reason).toBe("initial");
    expect(first.objects.map((o) => o.metadata.name)).toEqual(["cm-0", "cm-1", "cm-2", "cm-3", "cm-4"]);
    expect(api.listCalls.map((c) => c.continue)).toEqual([undefined, "2", "4"]);
    expect(api.watchCalls).toEqual([first.resourceVersion]);
    stop.abort();
    await done;
  });

  test("after a disconnect the watch resumes from the last resourceVersion it saw and loses nothing", async () => {
    const { api, clock, w, stop } = setup();
    api.put("a", { v: "0" });
    const { seen, done } = collect(w.events(stop.signal));
    await settle();
    api.put("a", { v: "1" });
    const last = api.put("a", { v: "2" });
    await settle();
    api.cut();
    await settle();
    api.put("a", { v: "3" }); // while disconnected
    await clock.advance(1000); // one backoff step (the watch ended at once)
    api.put("a", { v: "4" });
    await settle();
    expect(api.watchCalls).toHaveLength(2);
    expect(api.watchCalls[1]).toBe(last.metadata.resourceVersion!);
    expect(applied(seen)).toEqual(["a=1", "a=2", "a=3", "a=4"]);
    expect(w.stats.watchRestarts).toBe(1);
    expect(w.stats.lists).toBe(1);
    stop.abort();
    await done;
  });

  test("a bookmark moves the resume point without producing an event", async () => {
    const { api, clock, w, stop } = setup();
    api.put("a", { v: "0" });
    const { seen, done } = collect(w.events(stop.signal));
    await settle();
    api.rv += 50; // changes elsewhere in the cluster
    api.bookmark();
    await settle();
    expect(w.stats.resourceVersion).toBe(String(api.rv));
    api.cut();
    await clock.advance(1000);
    expect(api.watchCalls[1]).toBe(String(api.rv));
    expect(seen.map((e) => e.type)).toEqual(["restarted"]);
    stop.abort();
    await done;
  });

  test("410 Gone relists once and the reflector turns objects gone meanwhile into deleted events, changed ones into applied", async () => {
    const { api, clock, w, stop } = setup();
    api.put("a", { v: "0" });
    api.put("b", { v: "0" });
    api.put("c", { v: "0" });
    const store = new ObjectStore<Item>();
    const { seen, done } = collect(reflector(store, w.events(stop.signal)));
    await settle();
    expect(store.size).toBe(3);
    const initial = seen.length;
    api.cut(); // the watch drops; while it is down:
    await settle();
    api.remove("a");
    api.put("b", { v: "1" });
    api.put("d", { v: "0" });
    api.compact(); // …and the history it would resume from is compacted
    await clock.advance(1000);
    const after = seen.slice(initial) as ChangeEvent<Item>[];
    const describe = (e: ChangeEvent<Item>) =>
      e.type === "deleted" ? `deleted ${e.key} unknown=${e.finalStateUnknown}` : `applied ${e.key} ${e.old ? "modified" : "added"} v=${e.object.data?.v}`;
    expect(after.map(describe).sort()).toEqual(["applied ns/b modified v=1", "applied ns/d added v=0", "deleted ns/a unknown=true"]);
    expect(store.keys().sort()).toEqual(["ns/b", "ns/c", "ns/d"]);
    expect(w.stats.gone).toBe(1);
    expect(w.stats.relists).toBe(1);
    expect(api.listCalls).toHaveLength(2);
    api.put("c", { v: "1" }); // and the new watch works from the relist's version
    await settle();
    expect(store.get("ns/c")?.data?.v).toBe("1");
    stop.abort();
    await done;
  });

  test("the watchdog relists when nothing, not even a bookmark, arrives for its period", async () => {
    const { api, clock, w, stop } = setup({ watchdogMs: 5000 });
    api.put("a", { v: "0" });
    const { seen, done } = collect(w.events(stop.signal));
    await settle();
    await clock.advance(4000);
    api.bookmark(); // a bookmark counts as life
    await clock.advance(4000);
    expect(w.stats.watchdogRelists).toBe(0);
    await clock.advance(1500);
    expect(w.stats.watchdogRelists).toBe(1);
    expect(api.listCalls).toHaveLength(2);
    const restarts = seen.filter((e) => e.type === "restarted").map((e) => (e.type === "restarted" ? e.reason : ""));
    expect(restarts).toEqual(["initial", "watchdog"]);
    stop.abort();
    await done;
  });

  test("failed lists are retried after growing backoff delays", async () => {
    const { api, clock, w, stop } = setup();
    api.failLists = 3;
    const errors: unknown[] = [];
    const w2 = new Watcher(api, { clock, backoff: new Backoff({ initialMs: 1000, clock, random: () => 0 }), watchdogMs: 0, onError: (e) => errors.push(e) });
    void w;
    const { seen, done } = collect(w2.events(stop.signal));
    await settle();
    expect(api.listCalls).toHaveLength(1);
    await clock.advance(999);
    expect(api.listCalls).toHaveLength(1);
    await clock.advance(1);
    expect(api.listCalls).toHaveLength(2);
    await clock.advance(1999);
    expect(api.listCalls).toHaveLength(2);
    await clock.advance(1);
    expect(api.listCalls).toHaveLength(3);
    await clock.advance(4000);
    expect(api.listCalls).toHaveLength(4);
    expect(seen[0]?.type).toBe("restarted");
    expect(errors).toHaveLength(3);
    stop.abort();
    await done;
  });

  test("a server that ends every watch at once gets rate-limited reconnects", async () => {
    const { api, clock, w, stop } = setup();
    api.closeWatchesAtOnce = true;
    const { done } = collect(w.events(stop.signal));
    await clock.advance(15_000); // backoff 1 s, 2 s, 4 s, 8 s → 4 restarts fit
    expect(w.stats.watchStarts).toBeLessThanOrEqual(5);
    expect(w.stats.watchStarts).toBeGreaterThanOrEqual(3);
    stop.abort();
    await done;
  });

  test("a non-410 ERROR event backs off and resumes from the last version, without a relist", async () => {
    const { api, clock, w, stop } = setup();
    const errors: unknown[] = [];
    const w2 = new Watcher(api, { clock, backoff: new Backoff({ initialMs: 1000, clock, random: () => 0 }), watchdogMs: 0, onError: (e) => errors.push(e) });
    void w;
    const { seen, done } = collect(w2.events(stop.signal));
    await settle();
    const last = api.put("a", { v: "1" });
    await settle();
    api.errorEvent(500, "etcd leader changed");
    await settle();
    expect(String(errors[0])).toContain("etcd leader changed");
    expect(api.watchCalls).toHaveLength(1); // waiting out the backoff
    await clock.advance(1000);
    expect(api.watchCalls).toEqual([api.watchCalls[0]!, last.metadata.resourceVersion!]);
    expect(w2.stats.lists).toBe(1);
    expect(applied(seen)).toEqual(["a=1"]);
    stop.abort();
    await done;
  });

  test("aborting the signal ends the stream", async () => {
    const { api, w, stop } = setup();
    api.put("a", { v: "0" });
    const { done } = collect(w.events(stop.signal));
    await settle();
    stop.abort();
    await done; // would hang if the open watch ignored the signal
    expect(w.stats.watchStarts).toBe(1);
  });
});

describe("store", () => {
  test("is synced after the first list and finds objects by key, name and namespace", async () => {
    const { api, w, stop } = setup();
    api.put("a", { v: "0" });
    const store = new ObjectStore<Item>();
    expect(store.synced).toBe(false);
    const { done } = collect(reflector(store, w.events(stop.signal)));
    await store.whenSynced();
    expect(store.synced).toBe(true);
    expect(store.get("ns/a")?.data?.v).toBe("0");
    expect(store.getByName("a", "ns")?.metadata.name).toBe("a");
    expect(store.list("ns")).toHaveLength(1);
    expect(store.list("other")).toHaveLength(0);
    stop.abort();
    await done;
  });
});
