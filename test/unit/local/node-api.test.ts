import { describe, expect, test } from "bun:test";
import type { TinyNode } from "../../../src/core/api/index.ts";
import { isConflict, isGone, isNotFound } from "../../../src/k8s/client/errors.ts";
import type { WatchEvent } from "../../../src/k8s/client/types.ts";
import { LocalNodes, WATCH_HISTORY, type NodeChange } from "../../../src/local/node-api.ts";

const NAME = "h1.mod.relay-1";
const manifest = (over: Partial<TinyNode["spec"]> = {}, labels?: Record<string, string>): TinyNode => ({
  apiVersion: "operator.tinysystems.io/v1alpha1",
  kind: "TinyNode",
  metadata: { name: NAME, ...(labels ? { labels } : {}) },
  spec: { module: "mod", component: "relay", ...over },
});

/** The error `p` rejects with (undefined when it resolves). */
const errorOf = (p: Promise<unknown>) =>
  p.then(
    () => undefined,
    (e: unknown) => e,
  );

function api(changes: NodeChange[] = []) {
  return new LocalNodes({ namespace: "ns", onChange: (c) => changes.push(c) });
}

/** Collects watch events after `rv` until `n` arrived. */
async function take(nodes: LocalNodes, rv: string, n: number): Promise<WatchEvent<TinyNode>[]> {
  const stop = new AbortController();
  const out: WatchEvent<TinyNode>[] = [];
  for await (const ev of nodes.watch({ resourceVersion: rv, allowWatchBookmarks: true, signal: stop.signal })) {
    out.push(ev);
    if (out.length === n) break;
  }
  stop.abort();
  return out;
}

describe("LocalNodes (the in-memory TinyNode API)", () => {
  test("apply creates a node in the default namespace with generation 1; a spec change moves generation, a label change only resourceVersion", async () => {
    const nodes = api();
    nodes.apply(manifest());
    const created = await nodes.get(NAME);
    expect(created.metadata).toMatchObject({ name: NAME, namespace: "ns", generation: 1, resourceVersion: "1" });
    expect(created.metadata.uid).toBeString();
    nodes.apply(manifest({ component: "relay", edges: [] }));
    expect((await nodes.get(NAME)).metadata).toMatchObject({ generation: 2, resourceVersion: "2" });
    nodes.apply(manifest({ edges: [] }, { a: "b" }));
    expect((await nodes.get(NAME)).metadata).toMatchObject({ generation: 2, resourceVersion: "3", labels: { a: "b" } });
  });

  test("applying the same manifest again writes nothing", () => {
    const changes: NodeChange[] = [];
    const nodes = api(changes);
    nodes.apply(manifest());
    nodes.apply(manifest());
    expect(changes).toHaveLength(1);
  });

  test("a write with a stale resourceVersion is a 409 Conflict; a missing node a 404", async () => {
    const nodes = api();
    nodes.apply(manifest());
    const { metadata } = await nodes.get(NAME);
    await nodes.patchStatus(NAME, metadata.resourceVersion!, { status: "OK" });
    expect(isConflict(await errorOf(nodes.patchStatus(NAME, metadata.resourceVersion!, { status: "again" })))).toBe(true);
    expect(isConflict(await errorOf(nodes.setFinalizers(NAME, "1", ["x"])))).toBe(true);
    expect(isNotFound(await errorOf(nodes.get("h1.mod.ghost-1")))).toBe(true);
    expect(isNotFound(await errorOf(nodes.patch("h1.mod.ghost-1", () => {})))).toBe(true);
  });

  test("status patches are JSON merge patches: objects merge, null deletes, arrays are replaced", async () => {
    const nodes = api();
    nodes.apply(manifest(), () => ({
      status: { metadata: { a: "1", b: "2" }, ports: [{ name: "x", label: "X", position: 0, source: true, schema: "", configuration: "" }] },
    }));
    const rv = (await nodes.get(NAME)).metadata.resourceVersion!;
    await nodes.patchStatus(NAME, rv, { status: "OK", metadata: { b: null, c: "3" } as never, ports: [] });
    expect((await nodes.get(NAME)).status).toEqual({ status: "OK", metadata: { a: "1", c: "3" }, ports: [] } as never);
  });

  test("the runners' patch keeps only status changes and skips a write that changes nothing", async () => {
    const changes: NodeChange[] = [];
    const nodes = api(changes);
    nodes.apply(manifest());
    await nodes.patch(NAME, (n) => {
      n.status = { ...n.status!, metadata: { k: "v" } };
      n.spec.component = "other"; // not persisted: only status is written
    });
    const stored = await nodes.get(NAME);
    expect(stored.status?.metadata).toEqual({ k: "v" });
    expect(stored.spec.component).toBe("relay");
    const count = changes.length;
    await nodes.patch(NAME, () => {});
    expect(changes).toHaveLength(count);
  });

  test("delete with a finalizer marks the node deleting (deletionTimestamp, generation moved); removing the finalizer deletes it", async () => {
    const changes: NodeChange[] = [];
    const nodes = api(changes);
    nodes.apply(manifest(), () => ({ finalizers: ["io.tinysystems/node-finalizer"] }));
    nodes.delete(NAME);
    const deleting = await nodes.get(NAME);
    expect(deleting.metadata.deletionTimestamp).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    expect(deleting.metadata.generation).toBe(2);
    await nodes.setFinalizers(NAME, deleting.metadata.resourceVersion!, []);
    expect(nodes.find(NAME)).toBeUndefined();
    expect(changes.at(-1)).toMatchObject({ name: NAME, after: undefined });
  });

  test("delete without finalizers removes the node at once", () => {
    const nodes = api();
    nodes.apply(manifest());
    nodes.delete(NAME);
    expect(nodes.find(NAME)).toBeUndefined();
  });

  test("a manifest applied while its node is still deleting creates the node anew once it is gone", async () => {
    const nodes = api();
    nodes.apply(manifest(), () => ({ finalizers: ["f"] }));
    nodes.delete(NAME);
    nodes.apply(manifest({ component: "sink" }));
    expect((await nodes.get(NAME)).spec.component).toBe("relay");
    await nodes.setFinalizers(NAME, (await nodes.get(NAME)).metadata.resourceVersion!, []);
    const again = await nodes.get(NAME);
    expect(again.spec.component).toBe("sink");
    expect(again.metadata.deletionTimestamp).toBeUndefined();
    expect(again.metadata.generation).toBe(1);
  });

  test("a watch replays every change after the listed resourceVersion, deletions included", async () => {
    const nodes = api();
    nodes.apply(manifest());
    const listed = await nodes.list({});
    expect(listed.items.map((n) => n.metadata.name)).toEqual([NAME]);
    nodes.apply(manifest({ edges: [] }));
    nodes.delete(NAME);
    const events = await take(nodes, listed.metadata.resourceVersion, 2);
    expect(events.map((e) => e.type)).toEqual(["MODIFIED", "DELETED"]);
  });

  test("a watch from a resourceVersion older than the history is 410 Gone, so the watcher relists", async () => {
    const nodes = api();
    nodes.apply(manifest());
    for (let i = 0; i <= WATCH_HISTORY; i++) nodes.apply(manifest({}, { n: String(i) }));
    expect(isGone(await errorOf(take(nodes, "1", 1)))).toBe(true);
  });

  test("caughtUp: true once an open watch has taken every event", async () => {
    const nodes = api();
    expect(nodes.caughtUp()).toBe(false); // nobody watches yet
    const stop = new AbortController();
    const seen: string[] = [];
    const watching = (async () => {
      for await (const ev of nodes.watch({ resourceVersion: "0", allowWatchBookmarks: true, signal: stop.signal })) seen.push(ev.type);
    })();
    await nodes.whenCaughtUp();
    nodes.apply(manifest());
    expect(nodes.caughtUp()).toBe(false);
    await nodes.whenCaughtUp();
    expect(seen).toEqual(["ADDED"]);
    stop.abort();
    await watching;
  });
});
