import { describe, expect, test } from "bun:test";
import { KubeApiError } from "../../../src/k8s/client/index.ts";
import { ConflictRetriesExhaustedError, Mutex, readModifyWrite } from "../../../src/k8s/resources/index.ts";

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

describe("readModifyWrite", () => {
  test("no change from modify means no write", async () => {
    const s = store(["a"]);
    const r = await readModifyWrite<Obj>({ what: "x", read: s.read, modify: () => undefined, write: s.write });
    expect(r.changed).toBe(false);
    expect(s.writes()).toBe(0);
  });

  test("after a conflict it recomputes from the newest object, keeping the other writer's change", async () => {
    const s = store(["a"]);
    let first = true;
    await readModifyWrite<Obj>({
      what: "x",
      read: s.read,
      modify: (o) => {
        if (first) {
          first = false;
          s.sneak("other");
        }
        return { ...o, items: [...o.items, "mine"] };
      },
      write: s.write,
    });
    expect(s.get().items).toEqual(["a", "other", "mine"]);
    expect(s.writes()).toBe(2);
  });

  test("gives up with ConflictRetriesExhaustedError after the attempt limit", async () => {
    const err = await readModifyWrite<Obj>({
      what: "Service ns/s",
      read: async () => ({ metadata: { resourceVersion: "1" }, items: [] }),
      modify: (o) => o,
      write: async () => {
        throw conflict();
      },
      attempts: 3,
    }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ConflictRetriesExhaustedError);
    expect((err as Error).message).toBe("Service ns/s: still conflicting after 3 attempts");
  });

  test("other write errors pass through at once", async () => {
    let writes = 0;
    const err = await readModifyWrite<Obj>({
      what: "x",
      read: async () => ({ metadata: { resourceVersion: "1" }, items: [] }),
      modify: (o) => o,
      write: async () => {
        writes++;
        throw new KubeApiError({ verb: "PUT", path: "/x", status: 403 });
      },
    }).catch((e: unknown) => e);
    expect((err as KubeApiError).status).toBe(403);
    expect(writes).toBe(1);
  });
});

describe("Mutex", () => {
  test("runs holders one at a time in call order, also after a failure", async () => {
    const m = new Mutex();
    const log: string[] = [];
    const job = (name: string, fail = false) =>
      m.run(async () => {
        log.push(`start ${name}`);
        await Bun.sleep(1);
        log.push(`end ${name}`);
        if (fail) throw new Error(name);
      });
    await Promise.allSettled([job("a"), job("b", true), job("c")]);
    expect(log).toEqual(["start a", "end a", "start b", "end b", "start c", "end c"]);
  });
});
