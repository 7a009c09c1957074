import { describe, expect, test } from "bun:test";
import { KubeApiError } from "../../../src/k8s/client/errors.ts";
import { NODE_FINALIZER, type TinyNodeStatus } from "../../../src/core/api/index.ts";
import { tinyNodeReconciler, type NodeScheduler } from "../../../src/k8s/controllers/index.ts";
import type { NodeStatusMergePatch, TinyNodeApi } from "../../../src/k8s/resources/node-api.ts";
import { PermanentError } from "../../../src/core/errors.ts";
import type { TinyNode } from "../../../src/core/node.ts";
import type { ReconcileContext } from "../../../src/k8s/runtime/controller.ts";

const MODULE = { name: "tinysystems/mod-a", version: "1.2.3", sdkVersion: "0.1.0" };
const OWN = "h1.tinysystems-mod-a.recorder-x1";
const KEY = `ns/${OWN}`;
const ctx = {} as ReconcileContext<TinyNode>;

const REPORTED: TinyNodeStatus = {
  status: "OK",
  error: false,
  ports: [{ name: "in", label: "In", position: 3, source: false, schema: "e30=", configuration: "bnVsbA==" }],
  component: { description: "d", info: "i", tags: [] },
};

function conflict(): KubeApiError {
  return new KubeApiError({ verb: "PATCH", path: "/x", status: 409, reason: "Conflict" });
}
function notFound(): KubeApiError {
  return new KubeApiError({ verb: "GET", path: "/x", status: 404, reason: "NotFound" });
}

/** An in-memory node store with resourceVersion checks, like the apiserver. */
class FakeNodes implements Pick<TinyNodeApi, "get" | "setFinalizers" | "patchStatus"> {
  objects = new Map<string, TinyNode>();
  rv = 1;
  calls: string[] = [];
  /** Writes to fail with 409 before the store is touched (another writer raced in). */
  conflictsToInject = 0;

  put(node: TinyNode): TinyNode {
    const stored = structuredClone({ ...node, metadata: { ...node.metadata, resourceVersion: String(++this.rv) } });
    this.objects.set(node.metadata.name!, stored);
    return structuredClone(stored);
  }
  async get(name: string): Promise<TinyNode> {
    this.calls.push(`get ${name}`);
    const o = this.objects.get(name);
    if (!o) throw notFound();
    return structuredClone(o);
  }
  #check(name: string, rv: string): TinyNode {
    const o = this.objects.get(name);
    if (!o) throw notFound();
    if (this.conflictsToInject > 0) {
      this.conflictsToInject--;
      // someone else wrote: bump the stored version
      this.put({ ...o, status: { ...(o.status as TinyNodeStatus), metadata: { ...(o.status?.metadata ?? {}), other: String(this.rv) } } });
      throw conflict();
    }
    if (o.metadata.resourceVersion !== rv) throw conflict();
    return o;
  }
  async setFinalizers(name: string, rv: string, finalizers: string[]): Promise<TinyNode> {
    this.calls.push(`finalizers ${finalizers.join(",")}`);
    const o = this.#check(name, rv);
    return this.put({ ...o, metadata: { ...o.metadata, finalizers } });
  }
  async patchStatus(name: string, rv: string, status: NodeStatusMergePatch): Promise<TinyNode> {
    this.calls.push("status");
    const o = this.#check(name, rv);
    // JSON merge patch (RFC 7386) at the top level of status: null removes the field.
    const merged: Record<string, unknown> = { ...(o.status as TinyNodeStatus) };
    for (const [k, v] of Object.entries(status)) {
      if (v === null) delete merged[k];
      else merged[k] = v;
    }
    return this.put({ ...o, status: merged as unknown as TinyNodeStatus });
  }
}

class FakeScheduler implements NodeScheduler {
  updates: string[] = [];
  destroyed: string[] = [];
  fail: unknown;
  async update(node: TinyNode): Promise<TinyNodeStatus> {
    this.updates.push(node.metadata.name);
    if (this.fail) throw this.fail;
    return structuredClone(REPORTED);
  }
  async destroy(name: string): Promise<void> {
    this.destroyed.push(name);
  }
}

function setup(opts: { leader?: boolean; now?: Date } = {}) {
  const api = new FakeNodes();
  const scheduler = new FakeScheduler();
  let leader = opts.leader ?? true;
  let now = opts.now ?? new Date("2026-01-01T00:00:00Z");
  const r = tinyNodeReconciler({ module: MODULE, scheduler, api, isLeader: () => leader, now: () => now });
  const node = (over: Partial<TinyNode["metadata"]> = {}, status?: TinyNodeStatus): TinyNode =>
    api.put({
      metadata: { name: OWN, namespace: "ns", generation: 3, ...over },
      spec: { module: "whatever", component: "recorder" },
      ...(status ? { status } : {}),
    });
  return {
    api,
    scheduler,
    r,
    node,
    setLeader: (v: boolean) => (leader = v),
    setNow: (d: Date) => (now = d),
    reconcile: (obj: TinyNode | undefined, key = KEY) => r.reconcile(key, obj, ctx),
  };
}

describe("TinyNode reconciler", () => {
  test("ignores nodes whose name's module segment is another module's, whatever spec.module says", async () => {
    const s = setup();
    const other = s.api.put({ metadata: { name: "h1.other-mod.recorder-x1", namespace: "ns" }, spec: { module: "tinysystems/mod-a", component: "recorder" } });
    expect(await s.reconcile(other, "ns/h1.other-mod.recorder-x1")).toBeUndefined();
    expect(await s.reconcile(undefined, "ns/not-a-node-name")).toBeUndefined();
    expect(s.scheduler.updates).toEqual([]);
    expect(s.api.calls).toEqual([]);
  });

  test("a bare module segment (publisher prefix left out) is owned too (nameMatches)", async () => {
    const s = setup();
    expect(s.r.owns("h1.mod-a.recorder-x1")).toBe(true);
    expect(s.r.owns("h1.tinysystems-mod-b.recorder-x1")).toBe(false);
  });

  test("adds the finalizer, keeping finalizers others put there", async () => {
    const s = setup({ leader: false });
    await s.reconcile(s.node({ finalizers: ["someone/else"] }));
    expect(s.api.objects.get(OWN)!.metadata.finalizers).toEqual(["someone/else", NODE_FINALIZER]);
    expect(s.r.stats.finalizersAdded).toBe(1);
  });

  test("a finalizer add that meets 409 re-reads and keeps the other writer's finalizer", async () => {
    const s = setup({ leader: false });
    const stale = s.node();
    // Another replica added its own finalizer after we read.
    s.api.put({ ...stale, metadata: { ...stale.metadata, finalizers: ["other/finalizer"] } });
    await s.reconcile(stale);
    expect(s.api.objects.get(OWN)!.metadata.finalizers).toEqual(["other/finalizer", NODE_FINALIZER]);
    expect(s.r.stats.conflicts).toBe(1);
  });

  test("a follower runs the node but writes no status and requeues after 1 min", async () => {
    const s = setup({ leader: false });
    const result = await s.reconcile(s.node({ finalizers: [NODE_FINALIZER] }));
    expect(result).toEqual({ requeueAfterMs: 60_000 });
    expect(s.scheduler.updates).toEqual([OWN]);
    expect(s.api.calls.filter((c) => c === "status")).toEqual([]);
  });

  test("the leader writes module, component, ports, status, observedGeneration and lastUpdateTime (no error field when OK, as Go's omitempty), then requeues after 5 min", async () => {
    const s = setup();
    const result = await s.reconcile(s.node({ finalizers: [NODE_FINALIZER] }, { metadata: { k: "v" } } as unknown as TinyNodeStatus));
    expect(result).toEqual({ requeueAfterMs: 300_000 });
    const st = s.api.objects.get(OWN)!.status!;
    expect(st.module).toEqual({ name: "tinysystems/mod-a", version: "1.2.3", sdkVersion: "0.1.0" });
    expect(st.component).toEqual(REPORTED.component!);
    expect(st.ports).toEqual(REPORTED.ports as never);
    expect(st.status).toBe("OK");
    expect("error" in st).toBe(false);
    expect(st.observedGeneration).toBe(3);
    expect(st.lastUpdateTime).toBe("2026-01-01T00:00:00Z");
    expect(st.metadata).toEqual({ k: "v" }); // component metadata untouched
  });

  test("an unchanged status is not written again; only the heartbeat refreshes lastUpdateTime", async () => {
    const s = setup();
    await s.reconcile(s.node({ finalizers: [NODE_FINALIZER] }));
    expect(s.r.stats.statusWrites).toBe(1);
    s.setNow(new Date("2026-01-01T00:01:00Z"));
    await s.reconcile(structuredClone(s.api.objects.get(OWN)!));
    expect(s.r.stats.statusWrites).toBe(1);
    expect(s.r.stats.statusSkips).toBe(1);
    s.setNow(new Date("2026-01-01T00:05:00Z")); // the 5-min requeue: heartbeat due
    await s.reconcile(structuredClone(s.api.objects.get(OWN)!));
    expect(s.r.stats.statusWrites).toBe(2);
    expect(s.api.objects.get(OWN)!.status!.lastUpdateTime).toBe("2026-01-01T00:05:00Z");
  });

  test("a status write that meets 409 re-reads and retries with the fresh version; the other writer's metadata survives", async () => {
    const s = setup();
    const n = s.node({ finalizers: [NODE_FINALIZER] });
    s.api.conflictsToInject = 2;
    await s.reconcile(n);
    const st = s.api.objects.get(OWN)!.status!;
    expect(st.observedGeneration).toBe(3);
    expect(st.metadata?.other).toBeDefined();
    expect(s.r.stats.conflicts).toBe(2);
    expect(s.r.stats.statusWrites).toBe(1);
  });

  test("an unknown component (permanent) is reported in the status and requeued after 5 min, not retried", async () => {
    const s = setup();
    s.scheduler.fail = new PermanentError('component "nope" is not registered');
    const result = await s.reconcile(s.node({ finalizers: [NODE_FINALIZER] }));
    expect(result).toEqual({ requeueAfterMs: 300_000 });
    const st = s.api.objects.get(OWN)!.status!;
    expect(st.error).toBe(true);
    expect(st.status).toContain("is not registered");
    expect(st.component).toEqual({ description: "", info: "" });
    expect(st.ports).toEqual([]);
  });

  test("a cleared error removes the error field instead of writing error: false", async () => {
    const s = setup();
    s.scheduler.fail = new PermanentError('component "nope" is not registered');
    await s.reconcile(s.node({ finalizers: [NODE_FINALIZER] }));
    expect(s.api.objects.get(OWN)!.status!.error).toBe(true);
    s.scheduler.fail = undefined;
    await s.reconcile(structuredClone(s.api.objects.get(OWN)!));
    const st = s.api.objects.get(OWN)!.status!;
    expect(st.status).toBe("OK");
    expect("error" in st).toBe(false);
  });

  test("a transient scheduler error is written by the leader and then thrown for a rate-limited retry", async () => {
    const s = setup();
    s.scheduler.fail = new Error("transient");
    await expect(s.reconcile(s.node({ finalizers: [NODE_FINALIZER] }))).rejects.toThrow("transient");
    expect(s.api.objects.get(OWN)!.status!.status).toBe("transient");
  });

  test("a deleting node with our finalizer: runner destroyed (onDestroy), then the finalizer removed, keeping others", async () => {
    const s = setup();
    await s.reconcile(s.node({ finalizers: ["other/f", NODE_FINALIZER], deletionTimestamp: "2026-01-01T00:00:00Z" }));
    expect(s.scheduler.destroyed).toEqual([OWN]);
    expect(s.scheduler.updates).toEqual([]);
    expect(s.api.objects.get(OWN)!.metadata.finalizers).toEqual(["other/f"]);
  });

  test("a node another replica already un-finalized (gone) still gets its local runner destroyed", async () => {
    const s = setup();
    expect(await s.reconcile(undefined)).toBeUndefined();
    expect(s.scheduler.destroyed).toEqual([OWN]);
    expect(s.api.calls).toEqual([]);
  });

  test("a finalizer removal that finds the node gone (NotFound) is not an error", async () => {
    const s = setup();
    const deleting = s.node({ finalizers: [NODE_FINALIZER], deletionTimestamp: "2026-01-01T00:00:00Z" });
    s.api.objects.delete(OWN);
    await s.reconcile(deleting);
    expect(s.scheduler.destroyed).toEqual([OWN]);
  });

  test("becoming leader writes the status on the next reconcile of an unchanged node", async () => {
    const s = setup({ leader: false });
    const n = s.node({ finalizers: [NODE_FINALIZER] });
    await s.reconcile(n);
    expect(s.api.objects.get(OWN)!.status).toBeUndefined();
    s.setLeader(true);
    await s.reconcile(structuredClone(s.api.objects.get(OWN)!));
    expect(s.api.objects.get(OWN)!.status?.observedGeneration).toBe(3);
  });
});
