/**
 * The `nodes` readiness check (src/operator/nodes-ready.ts): /readyz waits for every owned node of
 * the first TinyNode list to be applied once; a failed update does not block; the bound passes it
 * with one warning naming the pending nodes; it never flaps back.
 */
import { describe, expect, test } from "bun:test";
import type { TinyNode, TinyNodeStatus } from "../../../src/core/api/index.ts";
import { ObjectStore } from "../../../src/k8s/runtime/store.ts";
import type { NodeScheduler } from "../../../src/k8s/controllers/index.ts";
import { moduleReadiness } from "../../../src/operator/health.ts";
import { DEFAULT_READY_NODES_TIMEOUT_MS, NodesReady, readyNodesTimeout, reportingApplied } from "../../../src/operator/nodes-ready.ts";

const NS = "ns";
const owns = (name: string) => name.includes(".mine.");

function node(name: string, deleting = false): TinyNode {
  return {
    metadata: { name, namespace: NS, ...(deleting ? { deletionTimestamp: "2026-01-01T00:00:00Z" } : {}) },
    spec: { module: "mine", component: "c" },
  };
}

/** A store synced with `nodes`, a clock the test moves, the warnings logged, and the check watching them. */
async function setup(nodes: TinyNode[], timeoutMs = 1_000) {
  const store = new ObjectStore<TinyNode>();
  let now = 0;
  const warnings: { obj: { pending?: string[] }; msg: string }[] = [];
  const ready = new NodesReady({ timeoutMs, log: { warn: (obj, msg) => warnings.push({ obj, msg }) }, now: () => now });
  ready.watch(store, owns);
  for (const n of nodes) store.apply(n);
  expect(ready.check()).toBe("the first TinyNode list has not arrived yet");
  store.markSynced();
  await store.whenSynced();
  await Promise.resolve(); // the list is taken in the whenSynced continuation
  return { store, ready, warnings, advance: (ms: number) => (now += ms) };
}

/** A scheduler whose update resolves, or rejects for the nodes named in `failing`. */
function scheduler(failing: string[] = []): NodeScheduler {
  return {
    update: async (n) => {
      if (failing.includes(n.metadata.name)) throw new Error(`component c is not registered (${n.metadata.name})`);
      return {} as TinyNodeStatus;
    },
    destroy: async () => {},
  };
}

describe("NodesReady", () => {
  test("pending until every owned node of the first list was applied, then ready; nodes of other modules never count", async () => {
    const { ready } = await setup([node("f.mine.a"), node("f.mine.b"), node("f.other.c")]);
    expect(ready.check()).toBe("2 node(s) of the first list not applied yet: f.mine.a, f.mine.b");
    const tracked = reportingApplied(scheduler(), (n) => ready.applied(n));
    await tracked.update(node("f.mine.a"));
    expect(ready.check()).toBe("1 node(s) of the first list not applied yet: f.mine.b");
    await tracked.update(node("f.mine.b"));
    expect(ready.check()).toBe(true);
  });

  test("a node whose update failed counts as applied: its fault is in its status, the pod is ready", async () => {
    const { ready, warnings } = await setup([node("f.mine.a"), node("f.mine.bad")]);
    const tracked = reportingApplied(scheduler(["f.mine.bad"]), (n) => ready.applied(n));
    await tracked.update(node("f.mine.a"));
    await expect(tracked.update(node("f.mine.bad"))).rejects.toThrow("component c is not registered");
    expect(ready.check()).toBe(true);
    expect(warnings).toEqual([]);
  });

  test("an update settled before the list was taken counts (a reconcile may finish first)", async () => {
    const store = new ObjectStore<TinyNode>();
    const ready = new NodesReady({ timeoutMs: 1_000, log: { warn: () => {} } });
    ready.watch(store, owns);
    store.apply(node("f.mine.a"));
    ready.applied("f.mine.a");
    store.markSynced();
    await store.whenSynced();
    await Promise.resolve();
    expect(ready.check()).toBe(true);
  });

  test("a node deleted or deleting since the first list no longer counts", async () => {
    const { ready, store } = await setup([node("f.mine.a"), node("f.mine.b")]);
    store.remove(node("f.mine.a"));
    expect(ready.check()).toBe("1 node(s) of the first list not applied yet: f.mine.b");
    store.apply(node("f.mine.b", true));
    expect(ready.check()).toBe(true);
  });

  test("the bound passes the check with one warning naming the pending nodes; it stays passed", async () => {
    const names = ["f.mine.n1", "f.mine.n2", "f.mine.n3", "f.mine.n4", "f.mine.n5", "f.mine.n6", "f.mine.n7"];
    const { ready, warnings, advance } = await setup(names.map((n) => node(n)));
    ready.applied("f.mine.n1");
    expect(ready.check()).toBe("6 node(s) of the first list not applied yet: f.mine.n2, f.mine.n3, f.mine.n4, f.mine.n5, f.mine.n6 and 1 more");
    advance(999);
    expect(ready.check()).toStartWith("6 node(s)");
    expect(warnings).toEqual([]);
    advance(1);
    expect(ready.check()).toBe(true);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]!.obj.pending).toEqual(names.slice(1));
    expect(warnings[0]!.msg).toContain("TINYHOST_READY_NODES_TIMEOUT_MS");
    ready.check();
    expect(warnings).toHaveLength(1);
  });

  test("timeout 0: passes as soon as the list arrived, without a warning", async () => {
    const { ready, warnings } = await setup([node("f.mine.a")], 0);
    expect(ready.check()).toBe(true);
    expect(warnings).toEqual([]);
  });

  test("/readyz of cluster mode carries it as check `nodes`", async () => {
    const { ready } = await setup([node("f.mine.a")]);
    const r = moduleReadiness({
      nodeStore: { synced: true },
      transport: { ready: () => true },
      leadership: { leaderKnown: true },
      nodes: ready,
    });
    r.markStarted();
    expect(r.checks.nodes!()).toBe("1 node(s) of the first list not applied yet: f.mine.a");
    ready.applied("f.mine.a");
    expect(Object.values(r.checks).map((c) => c())).toEqual([true, true, true, true, true]);
  });
});

describe("TINYHOST_READY_NODES_TIMEOUT_MS", () => {
  test("default, 0 and a value; a bad value names the variable", () => {
    expect(readyNodesTimeout({})).toBe(DEFAULT_READY_NODES_TIMEOUT_MS);
    expect(readyNodesTimeout({ TINYHOST_READY_NODES_TIMEOUT_MS: "0" })).toBe(0);
    expect(readyNodesTimeout({ TINYHOST_READY_NODES_TIMEOUT_MS: "5000" })).toBe(5000);
    expect(() => readyNodesTimeout({ TINYHOST_READY_NODES_TIMEOUT_MS: "30s" })).toThrow('TINYHOST_READY_NODES_TIMEOUT_MS = "30s" must be a decimal integer');
  });
});
