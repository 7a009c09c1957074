import { describe, expect, test } from "bun:test";
import { Backoff } from "../../../src/k8s/runtime/backoff.ts";
import { primedSource } from "../../../src/k8s/runtime/primed-source.ts";
import { Watcher, type WatcherEvent } from "../../../src/k8s/runtime/watcher.ts";
import { FakeClock, FakeCollection, settle, type Item } from "./fakes.ts";

const applied = (events: WatcherEvent<Item>[]) =>
  events.flatMap((e) =>
    e.type === "applied"
      ? [`${e.object.metadata.name}=${e.object.data?.v}`]
      : e.type === "restarted"
        ? e.objects.map((o) => `${o.metadata.name}=${o.data?.v}`)
        : [],
  );

describe("primedSource", () => {
  test("lists the first page at once, hands it to the watcher's first list, and the watch then delivers what changed in between", async () => {
    const api = new FakeCollection();
    api.put("a", { v: "0" });
    const source = primedSource(api, 500);
    expect(api.listCalls).toEqual([{ limit: 500 }]); // requested before any watcher exists
    await settle();
    api.put("a", { v: "1" }); // after the early snapshot, before the watch
    api.put("b", { v: "0" });
    const clock = new FakeClock();
    const w = new Watcher(source, {
      clock,
      backoff: new Backoff({ initialMs: 1000, maxMs: 30_000, clock, random: () => 0 }),
      watchdogMs: 0,
      pageSize: 500,
      watchTimeoutSeconds: 300,
    });
    const stop = new AbortController();
    const seen: WatcherEvent<Item>[] = [];
    const done = (async () => {
      for await (const e of w.events(stop.signal)) seen.push(e);
    })();
    await settle();
    expect(api.listCalls).toHaveLength(1); // the early page was used, not listed again
    expect(seen[0]?.type).toBe("restarted");
    expect(applied(seen)).toEqual(["a=0", "a=1", "b=0"]);
    stop.abort();
    await done;
  });

  test("a failed early list is the watcher's first failure: it lists again itself", async () => {
    const api = new FakeCollection();
    api.put("a", { v: "0" });
    api.failLists = 1;
    const source = primedSource(api, 500);
    const clock = new FakeClock();
    const w = new Watcher(source, {
      clock,
      backoff: new Backoff({ initialMs: 1000, maxMs: 30_000, clock, random: () => 0 }),
      watchdogMs: 0,
      pageSize: 500,
      watchTimeoutSeconds: 300,
    });
    const stop = new AbortController();
    const seen: WatcherEvent<Item>[] = [];
    const done = (async () => {
      for await (const e of w.events(stop.signal)) seen.push(e);
    })();
    await settle();
    await clock.advance(1000);
    await settle();
    expect(api.listCalls).toHaveLength(2);
    expect(applied(seen)).toEqual(["a=0"]);
    stop.abort();
    await done;
  });

  test("a list that asks for another page size, or a continue page, goes to the source", async () => {
    const api = new FakeCollection();
    for (let i = 0; i < 3; i++) api.put(`cm-${i}`, { v: "0" });
    const source = primedSource(api, 2);
    const other = await source.list({ limit: 10 });
    expect(other.items).toHaveLength(3);
    expect(api.listCalls).toHaveLength(2);
    const again = await source.list({ limit: 2 }); // the early page was given up by the call above
    expect(again.items).toHaveLength(2);
    expect(api.listCalls).toHaveLength(3);
  });
});
