import { describe, expect, test } from "bun:test";
import { KubeApiError } from "../../../src/k8s/client/errors.ts";
import type { TinyModuleStatus } from "../../../src/core/api/index.ts";
import { componentStatuses, tinyModuleReconciler, type TinyModuleApi, type WatchedModule } from "../../../src/k8s/controllers/index.ts";
import type { ReconcileContext } from "../../../src/k8s/runtime/controller.ts";
import { defineComponent, source, target, Type } from "../../../src/sdk/index.ts";

const ctx = {} as ReconcileContext<WatchedModule>;
const OWN = "tinysystems-mod-a";

function desired(addr = "10.0.0.1:8483"): TinyModuleStatus {
  return { addr, name: "tinysystems/mod-a", version: "1.0.0", sdkVersion: "0.1.0", components: [] };
}

class FakeModules implements TinyModuleApi {
  objects = new Map<string, WatchedModule>();
  rv = 1;
  writes = 0;
  conflictsToInject = 0;
  put(m: WatchedModule): WatchedModule {
    const s = structuredClone({ ...m, metadata: { ...m.metadata, resourceVersion: String(++this.rv) } });
    this.objects.set(m.metadata.name!, s);
    return structuredClone(s);
  }
  async get(name: string) {
    const o = this.objects.get(name);
    if (!o) throw new KubeApiError({ verb: "GET", path: "/x", status: 404, reason: "NotFound" });
    return structuredClone(o);
  }
  async patchStatus(name: string, rv: string, status: TinyModuleStatus) {
    const o = this.objects.get(name)!;
    if (this.conflictsToInject > 0) {
      this.conflictsToInject--;
      this.put(o);
      throw new KubeApiError({ verb: "PATCH", path: "/x", status: 409, reason: "Conflict" });
    }
    if (o.metadata.resourceVersion !== rv) throw new KubeApiError({ verb: "PATCH", path: "/x", status: 409, reason: "Conflict" });
    this.writes++;
    return this.put({ ...o, status });
  }
}

function setup(leader = true, status: () => TinyModuleStatus | undefined = () => desired()) {
  const api = new FakeModules();
  const book: string[] = [];
  let isLeader = leader;
  const r = tinyModuleReconciler({
    ownName: OWN,
    desiredStatus: status,
    api,
    isLeader: () => isLeader,
    addresses: { register: (m, a) => void book.push(`+${m}=${a}`), deregister: (m) => void book.push(`-${m}`) },
  });
  return { api, book, r, setLeader: (v: boolean) => (isLeader = v), reconcile: (key: string, o: WatchedModule | undefined) => r.reconcile(key, o, ctx) };
}

describe("TinyModule reconciler", () => {
  test("while the own address is not known yet (gRPC port not bound), nothing is written; once it is, the status is", async () => {
    let addr: string | undefined;
    const s = setup(true, () => (addr === undefined ? undefined : desired(addr)));
    const own = s.api.put({ metadata: { name: OWN } });
    await s.reconcile(`ns/${OWN}`, own);
    expect(s.api.writes).toBe(0);
    expect(s.r.stats.statusSkips).toBe(1);
    addr = "10.0.0.9:8483";
    await s.reconcile(`ns/${OWN}`, await s.api.get(OWN));
    expect(s.api.writes).toBe(1);
    expect((await s.api.get(OWN)).status?.addr).toBe("10.0.0.9:8483");
  });

  test("another module's address goes into the pool under its name; gone → deregistered; empty addr ignored", async () => {
    const s = setup();
    await s.reconcile("ns/mod-b", { metadata: { name: "mod-b" }, status: { ...desired("mod-b:8483"), name: "mod-b" } });
    await s.reconcile("ns/mod-c", { metadata: { name: "mod-c" }, status: { ...desired(""), name: "mod-c" } });
    await s.reconcile("ns/mod-b", undefined);
    expect(s.book).toEqual(["+mod-b=mod-b:8483", "-mod-b"]);
    expect(s.api.writes).toBe(0);
  });

  test("the leader writes its own status when it differs, and skips the write when it is already stored", async () => {
    const s = setup();
    const own = s.api.put({ metadata: { name: OWN } });
    await s.reconcile(`ns/${OWN}`, own);
    expect(s.api.objects.get(OWN)!.status).toEqual(desired());
    await s.reconcile(`ns/${OWN}`, structuredClone(s.api.objects.get(OWN)!));
    expect(s.api.writes).toBe(1);
    expect(s.r.stats).toEqual({ statusWrites: 1, statusSkips: 1, conflicts: 0 });
  });

  test("with --also, each served TinyModule gets its own desired status and none goes into the address pool", async () => {
    const api = new FakeModules();
    const book: string[] = [];
    const r = tinyModuleReconciler({
      ownName: OWN,
      alsoOwn: ["tinysystems-common-module-v0"],
      desiredStatus: (name) => ({ ...desired(`nats://tinymodule.${name}.msg`), name }),
      api,
      isLeader: () => true,
      addresses: { register: (m, a) => void book.push(`+${m}=${a}`), deregister: (m) => void book.push(`-${m}`) },
    });
    for (const name of [OWN, "tinysystems-common-module-v0"]) await r.reconcile(`ns/${name}`, api.put({ metadata: { name } }), ctx);
    expect(api.objects.get("tinysystems-common-module-v0")!.status).toMatchObject({
      name: "tinysystems-common-module-v0",
      addr: "nats://tinymodule.tinysystems-common-module-v0.msg",
    });
    expect(api.objects.get(OWN)!.status).toMatchObject({ name: OWN, addr: `nats://tinymodule.${OWN}.msg` });
    expect(book).toEqual([]);
    expect(api.writes).toBe(2);
  });

  test("a follower never writes its own status and asks for no requeue", async () => {
    const s = setup(false);
    const own = s.api.put({ metadata: { name: OWN } });
    expect(await s.reconcile(`ns/${OWN}`, own)).toBeUndefined();
    expect(s.api.writes).toBe(0);
  });

  test("an own-status write that meets 409 is retried on a fresh read", async () => {
    const s = setup();
    const own = s.api.put({ metadata: { name: OWN } });
    s.api.conflictsToInject = 1;
    await s.reconcile(`ns/${OWN}`, own);
    expect(s.api.objects.get(OWN)!.status).toEqual(desired());
    expect(s.r.stats.conflicts).toBe(1);
  });

  test("component statuses list ports without _reconcile/_client/_identity, schemas as base64 JSON", () => {
    const def = defineComponent({
      info: { name: "c1", description: "D", info: "I", tags: ["t"] },
      ports: () => [
        target("_reconcile", Type.Any()),
        target("_settings", Type.Object({ a: Type.String() }), { default: { a: "" } }),
        target("in", Type.Object({ x: Type.Number() })),
        source("out", Type.Object({ y: Type.Number() })),
      ],
      handle: () => undefined,
    });
    const [c] = componentStatuses([def]);
    expect(c!.name).toBe("c1");
    expect(c!.tags).toEqual(["t"]);
    expect(c!.ports!.map((p) => p.name)).toEqual(["_settings", "in", "out"]);
    for (const p of c!.ports!) expect(typeof JSON.parse(Buffer.from(p.schema!, "base64").toString("utf8"))).toBe("object");
    expect(c!.ports!.find((p) => p.name === "out")!.source).toBe(true);
  });
});
