import { expect, test } from "bun:test";
import { Backoff } from "../../../src/k8s/runtime/backoff.ts";
import { stripManagedFields, Watcher, type WatcherEvent } from "../../../src/k8s/runtime/watcher.ts";
import { FakeClock, FakeCollection, settle, type Item } from "./fakes.ts";

test("the transform option rewrites listed and watched objects, and stripManagedFields drops managedFields only", async () => {
  const api = new FakeCollection();
  const clock = new FakeClock();
  const backoff = new Backoff({ initialMs: 1000, maxMs: 30_000, clock, random: () => 0 });
  const managed = [{ manager: "kubectl", operation: "Update" as const }];
  const withFields = (o: Item): Item => ({ ...o, metadata: { ...o.metadata, managedFields: managed } });
  const w = new Watcher<Item>(
    {
      list: async (opts) => {
        const page = await api.list(opts);
        return { ...page, items: page.items.map(withFields) };
      },
      watch: async function* (opts) {
        for await (const ev of api.watch(opts)) yield ev.type === "BOOKMARK" || ev.type === "ERROR" ? ev : { ...ev, object: withFields(ev.object) };
      },
    },
    { clock, backoff, watchdogMs: 0, watchTimeoutSeconds: 300, transform: stripManagedFields },
  );
  api.put("listed", { v: "0" });
  const stop = new AbortController();
  const seen: WatcherEvent<Item>[] = [];
  const done = (async () => {
    for await (const e of w.events(stop.signal)) seen.push(e);
  })();
  await settle();
  api.put("watched", { v: "1" });
  await settle();
  stop.abort();
  await done;
  const objects = seen.flatMap((e) => (e.type === "restarted" ? e.objects : [e.object]));
  expect(objects.map((o) => o.metadata.name)).toEqual(["listed", "watched"]);
  for (const o of objects) {
    expect(o.metadata.managedFields).toBeUndefined();
    expect(o.metadata.resourceVersion).toBeDefined();
    expect(o.data?.v).toBeDefined();
  }
});
