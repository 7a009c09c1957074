import { describe, expect, test } from "bun:test";
import { defineComponent, Type, target, type State, type TinyNode } from "tinyhost";
import { Scheduler } from "../../../src/runtime/scheduler/index.ts";
import { StatusWriter, type StatusSink } from "../../../src/runtime/runner/index.ts";
import { makeNode, MODULE, nodeName } from "../../support/fake-components.ts";

process.env.TINYHOST_LOG_LEVEL ??= "silent";

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

  test("requests inside one window are one write; a failing write does not stop the writer", async () => {
    let calls = 0;
    const w = new StatusWriter(5, async () => {
      calls++;
      throw new Error("apiserver down");
    });
    for (let i = 0; i < 100; i++) w.request();
    await Bun.sleep(20);
    expect(calls).toBe(1);
    w.request();
    await Bun.sleep(20);
    expect(calls).toBe(2);
  });

  test("flush waits for the running write and runs a pending one; stop drops what is pending", async () => {
    const g = gatedWrites();
    const w = new StatusWriter(1_000, g.write);
    w.request();
    const flushed = w.flush(); // runs now, not after the window
    await Bun.sleep(1);
    expect(g.stats().started).toBe(1);
    w.request();
    g.releaseAll();
    await Bun.sleep(1);
    g.releaseAll();
    await flushed;
    expect(g.stats().started).toBe(1); // flush ran what was pending when it was called
    const again = w.flush(); // the request made during write 1 runs now, not after its window
    await Bun.sleep(1);
    expect(g.stats().started).toBe(2);
    g.releaseAll();
    await again;
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
    await kept.state!.set("count", "0");
    await Bun.sleep(20);
    expect(patches).toBe(1); // blocked in the apiserver
    for (let i = 1; i <= 10_000; i++) await kept.state!.set("count", String(i));
    await Bun.sleep(30);
    expect(patches).toBe(1);
    expect(runner.pendingWrites).toMatchObject({ dirty: true, inFlight: true, updaters: 0, stateKeys: 1 });
    gates.splice(0).forEach((g) => g());
    await Bun.sleep(20);
    expect(patches).toBe(2);
    gates.splice(0).forEach((g) => g());
    await Bun.sleep(5);
    expect(Buffer.from(live.status!.metadata!["_state/count"]!, "base64").toString()).toBe("10000");
    expect(runner.pendingWrites).toMatchObject({ dirty: false, inFlight: false, stateKeys: 0 });
    await s.stopAll();
  });

  test("a failed write puts its state entries back; a later set of the same key wins", async () => {
    const { def, kept } = stateful();
    const live: TinyNode = makeNode("s", "stateful");
    let fail = true;
    const sink: StatusSink = {
      async patchStatus(_name, mutate) {
        if (fail) throw new Error("conflict retries exhausted");
        mutate(live);
      },
    };
    const s = new Scheduler({ module: MODULE, debounceMs: 5, statusSink: sink });
    s.install(def);
    await s.update(makeNode("s", "stateful"));
    const runner = s.runner(nodeName("s"))!;
    await kept.state!.set("a", "1");
    await kept.state!.set("b", "1");
    await Bun.sleep(20);
    expect(runner.pendingWrites.stateKeys).toBe(2); // restored after the failure
    fail = false;
    await kept.state!.set("b", "2");
    await Bun.sleep(20);
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
