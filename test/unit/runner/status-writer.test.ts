import { describe, expect, test } from "bun:test";
import { defineComponent, Type, target, type State, type TinyNode } from "tinyhost";
import { Scheduler } from "../../../src/runtime/scheduler/index.ts";
import { StatusWriter, type StatusSink } from "../../../src/runtime/runner/index.ts";
import { statusWriteFailures } from "../../../src/runtime/runner/status-writer.ts";
import { makeNode, MODULE, nodeName } from "../../support/fake-components.ts";
import { until as poll } from "../../support/until.ts";

process.env.TINYHOST_LOG_LEVEL ??= "silent";

/** This file's timeout and poll interval. */
const until = (what: string, cond: () => boolean, ms = 3000) => poll(what, cond, ms, 2);

/** A write that blocks until released; counts how many run at once. */
function gatedWrites() {
  let running = 0;
  let maxRunning = 0;
  let started = 0;
  const gates: (() => void)[] = [];
  const write = async () => {
    started++;
    running++;
    maxRunning = Math.max(maxRunning, running);
    await new Promise<void>((r) => gates.push(r));
    running--;
  };
  const releaseAll = () => gates.splice(0).forEach((g) => g());
  return { write, releaseAll, stats: () => ({ started, running, maxRunning }) };
}

describe("StatusWriter", () => {
  test("a burst of requests while a write is slow leaves one write in flight and one more after it", async () => {
    const g = gatedWrites();
    const w = new StatusWriter(5, g.write);
    w.request();
    await Bun.sleep(20); // window over: write 1 runs and blocks
    expect(g.stats()).toEqual({ started: 1, running: 1, maxRunning: 1 });
    for (let i = 0; i < 10_000; i++) w.request();
    await Bun.sleep(30); // several windows pass while write 1 is still blocked
    expect(g.stats().started).toBe(1);
    expect(w.dirty).toBe(true);
    g.releaseAll();
    await Bun.sleep(20); // write 1 ends dirty → one window → write 2
    expect(g.stats()).toEqual({ started: 2, running: 1, maxRunning: 1 });
    g.releaseAll();
    await Bun.sleep(20);
    expect(g.stats().started).toBe(2); // nothing requested since write 2 started
    expect(w.inFlight).toBe(false);
  });

  test("requests inside one window are one write; a failing write is retried with doubling, capped backoff and no new request", async () => {
    const starts: number[] = [];
    let failing = true;
    const w = new StatusWriter(
      5,
      async () => {
        starts.push(performance.now());
        if (failing) throw new Error("apiserver down");
      },
      { initialMs: 20, maxMs: 40 },
    );
    const failedBefore = statusWriteFailures.count;
    for (let i = 0; i < 100; i++) w.request();
    await until("the first write to fail", () => w.failures === 1);
    expect(starts.length).toBe(1); // 100 requests, one write
    expect(statusWriteFailures.count - failedBefore).toBe(1); // the /metrics counter saw it
    expect(w.dirty).toBe(true); // what it carried is pending again
    await until("three retries without any request", () => starts.length >= 4); // at +20, +40, +40 (capped)
    expect([1, 2, 3, 4].map((n) => w.retryDelayMs(n))).toEqual([20, 40, 40, 40]);
    const gaps = starts.slice(1).map((t, i) => t - starts[i]!);
    expect(gaps[0]!).toBeGreaterThanOrEqual(18); // a timer never fires early: the backoff was waited
    expect(gaps[1]!).toBeGreaterThanOrEqual(38);
    failing = false;
    await until("a retry to succeed", () => w.failures === 0 && !w.inFlight);
    const n = starts.length;
    expect(w.dirty).toBe(false);
    await Bun.sleep(60);
    expect(starts.length).toBe(n); // written: no more retries
  });

  test("during an outage a burst of requests still makes one write in flight at a time", async () => {
    let running = 0;
    let maxRunning = 0;
    let started = 0;
    const w = new StatusWriter(
      1,
      async () => {
        started++;
        running++;
        maxRunning = Math.max(maxRunning, running);
        await Bun.sleep(3);
        running--;
        throw new Error("apiserver down");
      },
      { initialMs: 5, maxMs: 10 },
    );
    for (let i = 0; i < 200; i++) {
      w.request();
      await Bun.sleep(0.5);
    }
    await Bun.sleep(30);
    expect(maxRunning).toBe(1);
    expect(started).toBeLessThan(40); // ~one per backoff window (≤ 10 ms + 3 ms), not one per request
    w.stop();
  });

  test("a write that answers gone ends the writer: no retry, requests refused", async () => {
    let calls = 0;
    const w = new StatusWriter(
      5,
      async () => {
        calls++;
        return "gone" as const;
      },
      { initialMs: 5, maxMs: 5 },
    );
    w.request();
    await Bun.sleep(20);
    expect(calls).toBe(1);
    expect(w.gone).toBe(true);
    expect(w.request()).toBe(false);
    await Bun.sleep(20);
    expect(calls).toBe(1);
    expect(await w.flush(new AbortController().signal)).toBe("gone");
  });

  test("flush retries a failing write until it succeeds, or gives up when its deadline aborts", async () => {
    let fails = 2;
    let calls = 0;
    const w = new StatusWriter(
      1_000,
      async () => {
        calls++;
        if (fails-- > 0) throw new Error("503");
      },
      { initialMs: 5, maxMs: 5 },
    );
    w.request();
    expect(await w.flush(new AbortController().signal)).toBe("written");
    expect(calls).toBe(3);
    const down = new StatusWriter(
      1_000,
      async () => {
        throw new Error("503");
      },
      { initialMs: 5, maxMs: 5 },
    );
    down.request();
    const t0 = performance.now();
    expect(await down.flush(AbortSignal.timeout(40))).toBe("failed");
    expect(performance.now() - t0).toBeLessThan(2000); // it gave up instead of retrying forever
    expect(down.writes).toBeGreaterThan(1);
  });

  test("flush waits for the running write and runs what is pending, also what was requested meanwhile; stop drops what is pending", async () => {
    const g = gatedWrites();
    const w = new StatusWriter(1_000, g.write);
    w.request();
    const flushed = w.flush(new AbortController().signal); // runs now, not after the window
    await Bun.sleep(1);
    expect(g.stats().started).toBe(1);
    w.request();
    g.releaseAll();
    await Bun.sleep(1);
    expect(g.stats().started).toBe(2);
    g.releaseAll();
    await flushed;
    expect(g.stats().started).toBe(2); // the request made during write 1 was written too, not after its window
    w.request();
    w.stop();
    await Bun.sleep(5);
    expect(g.stats().started).toBe(2);
    expect(w.request()).toBe(false);
  });
});

/** A component that keeps its state handle. */
function stateful() {
  const kept: { state?: State } = {};
  const def = defineComponent({
    info: { name: "stateful", description: "S", info: "" },
    ports: () => [target("in", Type.Any())],
    onState: (_c, state) => void (kept.state = state),
    handle: () => {},
  });
  return { def, kept };
}

describe("runner status writes under a burst (issue 19 memory)", () => {
  test("10,000 state sets during a blocked write hold one key and one updater-free pending write, then one write with the latest value", async () => {
    const { def, kept } = stateful();
    const live = makeNode("s", "stateful");
    const gates: (() => void)[] = [];
    let patches = 0;
    const sink: StatusSink = {
      async patchStatus(_name, mutate) {
        patches++;
        await new Promise<void>((r) => gates.push(r));
        mutate(live);
      },
    };
    const s = new Scheduler({ module: MODULE, debounceMs: 5, statusSink: sink });
    s.install(def);
    await s.update(makeNode("s", "stateful"));
    const runner = s.runner(nodeName("s"))!;
    const first = kept.state!.set("count", "0");
    await Bun.sleep(20);
    expect(patches).toBe(1); // blocked in the apiserver
    const burst = new Set<Promise<void>>();
    for (let i = 1; i <= 10_000; i++) burst.add(kept.state!.set("count", String(i)));
    expect(burst.size).toBe(1); // one shared promise for the key's next write, not 10,000
    expect(new TextDecoder().decode(await kept.state!.get("count"))).toBe("10000"); // readable at once
    await Bun.sleep(30);
    expect(patches).toBe(1);
    expect(runner.pendingWrites).toMatchObject({ dirty: true, inFlight: true, updaters: 0, stateKeys: 1 });
    gates.splice(0).forEach((g) => g());
    await first; // resolves once its write succeeded
    await Bun.sleep(20);
    expect(patches).toBe(2);
    gates.splice(0).forEach((g) => g());
    await [...burst][0];
    await Bun.sleep(1); // the writer's own bookkeeping ends after the write's promises settle
    expect(Buffer.from(live.status!.metadata!["_state/count"]!, "base64").toString()).toBe("10000");
    expect(runner.pendingWrites).toMatchObject({ dirty: false, inFlight: false, stateKeys: 0 });
    await s.stopAll();
  });

  test("a failed write keeps its sets waiting, puts the entries back and retries them; a later set of the same key wins", async () => {
    const { def, kept } = stateful();
    const live: TinyNode = makeNode("s", "stateful");
    let fail = true;
    const sink: StatusSink = {
      async patchStatus(_name, mutate) {
        if (fail) throw new Error("conflict retries exhausted");
        mutate(live);
      },
    };
    const s = new Scheduler({ module: MODULE, debounceMs: 5, statusRetry: { initialMs: 30, maxMs: 30 }, statusSink: sink });
    s.install(def);
    await s.update(makeNode("s", "stateful"));
    const runner = s.runner(nodeName("s"))!;
    let aDone = false;
    const a = kept.state!.set("a", "1").then(() => (aDone = true));
    void kept.state!.set("b", "1");
    await Bun.sleep(15);
    expect(runner.pendingWrites).toMatchObject({ stateKeys: 2, failures: 1 }); // restored after the failure
    expect(aDone).toBe(false); // still waiting: not rejected, not dropped
    expect(new TextDecoder().decode(await kept.state!.get("a"))).toBe("1");
    fail = false;
    await kept.state!.set("b", "2"); // joins the retry
    await a;
    await Bun.sleep(1);
    expect(runner.pendingWrites.failures).toBe(0);
    const md = live.status!.metadata!;
    expect(Buffer.from(md["_state/a"]!, "base64").toString()).toBe("1");
    expect(Buffer.from(md["_state/b"]!, "base64").toString()).toBe("2");
    await s.stopAll();
  });

  test("a status write never changes the node object the runner was given (the informer's copy, which the sink writes from)", async () => {
    const { def, kept } = stateful();
    const given = makeNode("s", "stateful");
    const before = structuredClone(given);
    let sent: TinyNode | undefined;
    const sink: StatusSink = {
      async patchStatus(_name, mutate) {
        const fresh = structuredClone(given); // what the sink reads: the informer's copy
        mutate(fresh);
        sent = fresh;
      },
    };
    const s = new Scheduler({ module: MODULE, debounceMs: 5, statusSink: sink });
    s.install(def);
    await s.update(given);
    await kept.state!.set("count", "7");
    await Bun.sleep(20);
    expect(given).toEqual(before);
    expect(Buffer.from(sent!.status!.metadata!["_state/count"]!, "base64").toString()).toBe("7");
    await s.stopAll();
  });
});

describe("StatusWriter flush deadline", () => {
  test("a flush ends at its deadline while a write hangs, and while requests keep coming", async () => {
    const hang = new StatusWriter(1_000, () => new Promise<void>(() => {}));
    hang.request();
    const t0 = performance.now();
    expect(await hang.flush(AbortSignal.timeout(30))).toBe("failed");
    expect(performance.now() - t0).toBeLessThan(2000); // it did not wait for the write that never ends
    let writes = 0;
    const busy: StatusWriter = new StatusWriter(1_000, async () => {
      writes++;
      await Bun.sleep(2);
      busy.request(); // a component that keeps writing while it stops
    });
    busy.request();
    expect(await busy.flush(AbortSignal.timeout(40))).toBe("failed");
    expect(writes).toBeGreaterThan(1); // each pending write was made until the deadline
  });
});

describe("runner status writes after the reconciler's (issue 19 scale)", () => {
  test("a `_control` re-publish whose ports the reconciler already wrote sends no request, and the stored status gets no `error: false`", async () => {
    const { kubeStatusSink } = await import("../../../src/k8s/controllers/status-sink.ts");
    const { patchNode } = await import("../../../src/k8s/resources/patch-node.ts");
    const { nodeStatusPatch, ownedNodeStatus } = await import("../../../src/k8s/controllers/node-status.ts");
    let emit: ((port: string) => Promise<unknown>) | undefined;
    const def = defineComponent({
      info: { name: "announcer", description: "A", info: "" },
      ports: () => [target("in", Type.Object({ v: Type.Number() }))],
      onEmitter: (_ctx, e) => void (emit = e),
      handle: () => undefined,
    });
    const stored = makeNode("a", "announcer");
    const patches: unknown[] = [];
    const nodes = {
      get: async () => structuredClone(stored),
      patchStatus: async (_name: string, _rv: string, status: Record<string, unknown>) => {
        patches.push(status);
        Object.assign(stored.status!, status);
        for (const [k, v] of Object.entries(status)) if (v === null) delete (stored.status as Record<string, unknown>)[k];
        return structuredClone(stored);
      },
    };
    const sink = kubeStatusSink(
      (name, updater, current) => patchNode(nodes, name, "ns", updater, current),
      () => stored,
    );
    const s = new Scheduler({ module: MODULE, debounceMs: 5, statusSink: sink });
    s.install(def);
    const reported = await s.update(makeNode("a", "announcer"));
    // The reconciler's write, as node-status.ts builds it: no error → `error: null` (field absent).
    const owned = ownedNodeStatus(stored, { name: MODULE, version: "1.0.0", sdkVersion: "0" }, reported, undefined);
    const written = nodeStatusPatch(owned, new Date());
    Object.assign(stored.status!, written);
    delete (stored.status as Record<string, unknown>).error;
    await emit!("_control");
    await Bun.sleep(30);
    expect(patches).toEqual([]);
    // A real change still writes, and still leaves `error` out.
    s.runner(nodeName("a"))!.state.set("k", "v");
    await Bun.sleep(30);
    expect(patches).toHaveLength(1);
    expect("error" in stored.status!).toBe(false);
    await s.stopAll();
  });
});
