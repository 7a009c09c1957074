import { describe, expect, test } from "bun:test";
import { ConflictRetriesExhaustedError, KubeApiError, retryOnConflict } from "../../../src/k8s/client/index.ts";

type Obj = { metadata: { resourceVersion: string }; items: string[] };
const conflict = () => new KubeApiError({ verb: "PUT", path: "/x", status: 409 });

/** An in-memory store with resourceVersion checks (a fake, unit tests only). */
function store(initial: string[]) {
  let current: Obj = { metadata: { resourceVersion: "1" }, items: initial };
  let writes = 0;
  return {
    read: async () => structuredClone(current),
    write: async (next: Obj) => {
      writes++;
      if (next.metadata.resourceVersion !== current.metadata.resourceVersion) throw conflict();
      current = { ...next, metadata: { resourceVersion: String(Number(current.metadata.resourceVersion) + 1) } };
      return current;
    },
    sneak: (item: string) => {
      current = { items: [...current.items, item], metadata: { resourceVersion: String(Number(current.metadata.resourceVersion) + 1) } };
    },
    get: () => current,
    writes: () => writes,
  };
}

describe("retryOnConflict", () => {
  test("nothing to write means no write", async () => {
    const s = store(["a"]);
    const r = await retryOnConflict<Obj>({ what: "x", read: s.read, write: () => undefined });
    expect(r.written).toBe(false);
    expect(s.writes()).toBe(0);
  });

  test("the first attempt works on the given object; a conflict reads the newest one", async () => {
    const s = store(["a"]);
    const stale: Obj = { metadata: { resourceVersion: "0" }, items: ["stale"] };
    const seen: string[][] = [];
    const r = await retryOnConflict<Obj>({
      what: "x",
      current: stale,
      read: s.read,
      write: (o) => {
        seen.push(o.items);
        return s.write({ ...o, items: [...o.items, "mine"] });
      },
    });
    expect(seen).toEqual([["stale"], ["a"]]);
    expect(r).toMatchObject({ written: true, conflicts: 1 });
    expect(s.get().items).toEqual(["a", "mine"]);
  });

  test("after a conflict it recomputes from the newest object, keeping the other writer's change", async () => {
    const s = store(["a"]);
    let first = true;
    await retryOnConflict<Obj>({
      what: "x",
      read: s.read,
      write: (o) => {
        if (first) {
          first = false;
          s.sneak("other");
        }
        return s.write({ ...o, items: [...o.items, "mine"] });
      },
    });
    expect(s.get().items).toEqual(["a", "other", "mine"]);
    expect(s.writes()).toBe(2);
  });

  test("gives up with ConflictRetriesExhaustedError after the attempt limit", async () => {
    let writes = 0;
    const err = await retryOnConflict<Obj>({
      what: "Service ns/s",
      read: async () => ({ metadata: { resourceVersion: "1" }, items: [] }),
      write: async () => {
        writes++;
        throw conflict();
      },
      attempts: 3,
    }).catch((e: unknown) => e);
    expect(writes).toBe(3);
    expect(err).toBeInstanceOf(ConflictRetriesExhaustedError);
    expect((err as Error).message).toBe("Service ns/s: still conflicting after 3 attempts");
    expect((err as ConflictRetriesExhaustedError).cause).toBeInstanceOf(KubeApiError);
  });

  test("other write errors pass through at once", async () => {
    let writes = 0;
    const err = await retryOnConflict<Obj>({
      what: "x",
      read: async () => ({ metadata: { resourceVersion: "1" }, items: [] }),
      write: async () => {
        writes++;
        throw new KubeApiError({ verb: "PUT", path: "/x", status: 403 });
      },
    }).catch((e: unknown) => e);
    expect((err as KubeApiError).status).toBe(403);
    expect(writes).toBe(1);
  });
});
