import { describe, expect, test } from "bun:test";
import pino from "pino";
import { loop, Manager, ManagerStartError, ManagerStateError, onStop, RUNNABLE_GROUPS, type Runnable, type RunnableGroup } from "../../../src/manager/index.ts";

const quiet = pino({ level: "silent" });

/** A runnable that records its start and stop in `journal`. */
function recorder(journal: string[], name: string, extra: Partial<Runnable> = {}): Runnable {
  return {
    name,
    start: async (ctx) => {
      journal.push(`start ${name}`);
      await extra.start?.(ctx);
    },
    stop: async (ctx) => {
      journal.push(`stop ${name}`);
      await extra.stop?.(ctx);
    },
  };
}

describe("Manager", () => {
  test("starts groups in order, a group's runnables in the order added; stops groups in reverse", async () => {
    const journal: string[] = [];
    const m = new Manager({ log: quiet });
    // Added out of group order on purpose: the groups decide, not the calls.
    for (const group of [...RUNNABLE_GROUPS].reverse()) {
      m.add(group, recorder(journal, `${group}-1`));
      m.add(group, recorder(journal, `${group}-2`));
    }
    await m.start();
    expect(journal).toEqual(RUNNABLE_GROUPS.flatMap((g) => [`start ${g}-1`, `start ${g}-2`]));
    journal.length = 0;
    await m.stop("test");
    // Within a group the stops run concurrently; between groups strictly in reverse order.
    const groupOf = (line: string) => line.slice("stop ".length).replace(/-\d$/, "") as RunnableGroup;
    expect(journal.map(groupOf)).toEqual([...RUNNABLE_GROUPS].reverse().flatMap((g) => [g, g]));
    expect(await m.done).toBe(0);
  });

  test("a group does not stop before the later group's stops finished", async () => {
    const journal: string[] = [];
    const m = new Manager({ log: quiet });
    m.add("runners", recorder(journal, "runners"));
    m.add("receivers", recorder(journal, "receivers", { stop: () => Bun.sleep(50).then(() => void journal.push("receivers drained")) }));
    await m.start();
    await m.stop("test");
    expect(journal.slice(2)).toEqual(["stop receivers", "receivers drained", "stop runners"]);
  });

  test("a start that throws fails start naming the runnable; what started is stopped in reverse, the rest never starts", async () => {
    const journal: string[] = [];
    const m = new Manager({ log: quiet });
    m.add("servers", recorder(journal, "health"));
    m.add("election", recorder(journal, "elector"));
    m.add("controllers", recorder(journal, "broken", { start: () => Promise.reject(new Error("no watch")) }));
    m.add("receivers", recorder(journal, "receivers"));
    const err = await m.start().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ManagerStartError);
    expect((err as ManagerStartError).message).toBe('start-up failed at stage "broken": no watch');
    expect((err as ManagerStartError).runnable).toBe("broken");
    expect(journal).toEqual(["start health", "start elector", "start broken", "stop elector", "stop health"]);
  });

  test("a fatal error from a runnable stops everything and done resolves 1", async () => {
    const m = new Manager({ log: quiet });
    const journal: string[] = [];
    let die: (err: Error) => void = () => {};
    m.add("servers", recorder(journal, "health"));
    m.add("stores", { name: "connection", start: (ctx) => void (die = ctx.fatal) });
    await m.start();
    die(new Error("connection closed"));
    expect(await m.done).toBe(1);
    expect(journal).toEqual(["start health", "stop health"]);
  });

  test("one shutdown budget: a stop that overruns it is left behind and the earlier groups still stop (given a short overtime)", async () => {
    const journal: string[] = [];
    const m = new Manager({ log: quiet, shutdownBudgetMs: 100 });
    m.add("election", recorder(journal, "elector", { stop: () => Bun.sleep(20).then(() => void journal.push("lease released")) }));
    m.add("receivers", recorder(journal, "stuck", { stop: () => new Promise(() => {}) }));
    await m.start();
    const t0 = performance.now();
    await m.stop("test");
    expect(performance.now() - t0).toBeLessThan(2_000); // bounded by the budget, not by the stuck stop
    expect(journal.slice(-2)).toEqual(["stop elector", "lease released"]);
  });

  test("a stop is told the time left of the shared budget", async () => {
    const seen: number[] = [];
    const m = new Manager({ log: quiet, shutdownBudgetMs: 1_000 });
    m.add(
      "runners",
      onStop("runners", (ctx) => void seen.push(ctx.remainingMs())),
    );
    m.add(
      "receivers",
      onStop("receivers", async (ctx) => {
        seen.push(ctx.remainingMs());
        await Bun.sleep(100);
      }),
    );
    await m.start();
    await m.stop("test");
    expect(seen[0]!).toBeLessThanOrEqual(1_000);
    expect(seen[1]!).toBeLessThan(seen[0]! - 50); // the receivers' 100 ms came out of the runners' share
  });

  test("a runnable added after its group started starts at once; adding while stopping is refused", async () => {
    const journal: string[] = [];
    const m = new Manager({ log: quiet });
    await m.start();
    m.add("receivers", recorder(journal, "late"));
    await Bun.sleep(0);
    expect(journal).toEqual(["start late"]);
    const stopping = m.stop("test");
    expect(() => m.add("servers", recorder(journal, "too late"))).toThrow(ManagerStateError);
    await stopping;
    expect(journal).toEqual(["start late", "stop late"]);
  });

  test("stop is idempotent: a second call waits for the first", async () => {
    const journal: string[] = [];
    const m = new Manager({ log: quiet });
    m.add("servers", recorder(journal, "health", { stop: () => Bun.sleep(20) }));
    await m.start();
    await Promise.all([m.stop("a"), m.stop("b")]);
    expect(journal.filter((l) => l.startsWith("stop"))).toEqual(["stop health"]);
  });
});

describe("loop", () => {
  test("stop aborts the loop's signal and waits for it to end", async () => {
    let ended = false;
    const m = new Manager({ log: quiet });
    m.add(
      "controllers",
      loop("watch", async (signal) => {
        await new Promise((r) => signal.addEventListener("abort", r));
        await Bun.sleep(20);
        ended = true;
      }),
    );
    await m.start();
    await m.stop("test");
    expect(ended).toBe(true);
    expect(await m.done).toBe(0);
  });

  test("a loop that ends on its own is fatal", async () => {
    const m = new Manager({ log: quiet });
    m.add(
      "election",
      loop("elector", () => Promise.resolve()),
    );
    await m.start();
    expect(await m.done).toBe(1);
  });

  test("a loop that rejects is fatal", async () => {
    const m = new Manager({ log: quiet });
    m.add(
      "controllers",
      loop("watch", () => Promise.reject(new Error("watch died"))),
    );
    await m.start();
    expect(await m.done).toBe(1);
  });
});
