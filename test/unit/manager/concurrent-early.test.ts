/**
 * The manager's concurrent groups (a group whose runnables start all at once) and earlyLoop (a
 * loop started before the manager, adopted by its runnable): what cluster mode's start path uses
 * to overlap its waits (issue 19).
 */
import { describe, expect, test } from "bun:test";
import pino from "pino";
import { earlyLoop, Manager, ManagerStartError } from "../../../src/manager/index.ts";

const quiet = pino({ level: "silent" });

describe("concurrent groups", () => {
  test("a concurrent group's runnables start at once, the next group only after all of them", async () => {
    const journal: string[] = [];
    const slow = (name: string, ms: number) => ({
      name,
      start: async () => {
        journal.push(`begin ${name}`);
        await Bun.sleep(ms);
        journal.push(`end ${name}`);
      },
    });
    const m = new Manager({ log: quiet, concurrentGroups: ["controllers"] });
    m.add("controllers", slow("a", 30)).add("controllers", slow("b", 5)).add("receivers", slow("r", 0));
    await m.start();
    expect(journal).toEqual(["begin a", "begin b", "end b", "end a", "begin r", "end r"]);
    await m.stop("test");
  });

  test("a failure in a concurrent group fails start naming it, after the others settled; the started ones are stopped", async () => {
    const journal: string[] = [];
    const m = new Manager({ log: quiet, concurrentGroups: ["controllers"] });
    m.add("controllers", {
      name: "ok",
      start: async () => {
        await Bun.sleep(10);
        journal.push("start ok");
      },
      stop: () => void journal.push("stop ok"),
    });
    m.add("controllers", { name: "broken", start: () => Promise.reject(new Error("no watch")) });
    m.add("receivers", { name: "r", start: () => void journal.push("start r") });
    const err = await m.start().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ManagerStartError);
    expect((err as ManagerStartError).message).toBe('start-up failed at stage "broken": no watch');
    expect(journal).toEqual(["start ok", "stop ok"]);
  });

  test("without the option a group still starts in turn", async () => {
    const journal: string[] = [];
    const m = new Manager({ log: quiet });
    m.add("controllers", {
      name: "a",
      start: async () => {
        await Bun.sleep(20);
        journal.push("a");
      },
    }).add("controllers", { name: "b", start: () => void journal.push("b") });
    await m.start();
    expect(journal).toEqual(["a", "b"]);
    await m.stop("test");
  });
});

describe("earlyLoop", () => {
  test("runs before the manager; the manager's stop aborts it and waits for it", async () => {
    let running = false;
    const e = earlyLoop("elector", async (signal) => {
      running = true;
      await new Promise((r) => signal.addEventListener("abort", r, { once: true }));
      await Bun.sleep(10);
      running = false;
    });
    expect(running).toBe(true);
    const m = new Manager({ log: quiet });
    m.add("election", e.runnable);
    await m.start();
    expect(running).toBe(true);
    await m.stop("test");
    expect(running).toBe(false);
    expect(await m.done).toBe(0);
  });

  test("a failure before the manager adopted it is fatal once adopted", async () => {
    const e = earlyLoop("elector", () => Promise.reject(new Error("lease forbidden")));
    await Bun.sleep(1);
    const m = new Manager({ log: quiet });
    m.add("election", e.runnable);
    await m.start();
    expect(await m.done).toBe(1);
  });

  test("cancel ends a loop the manager never took over", async () => {
    let ended = false;
    const e = earlyLoop("elector", async (signal) => {
      await new Promise((r) => signal.addEventListener("abort", r, { once: true }));
      ended = true;
    });
    await e.cancel();
    expect(ended).toBe(true);
  });
});
