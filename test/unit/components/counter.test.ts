import { afterEach, describe, expect, test } from "bun:test";
import { fail, ok } from "tinyhost";
import counter from "../../../components/counter.ts";
import debug from "../../../components/debug.ts";
import ticker from "../../../components/ticker.ts";
import { Scheduler } from "../../../src/runtime/scheduler/scheduler.ts";
import { FakeCluster, waitFor } from "./leader-pods.ts";

const clusters: FakeCluster[] = [];
function cluster(settings?: unknown): FakeCluster {
  const c = new FakeCluster(counter, settings);
  clusters.push(c);
  return c;
}
afterEach(async () => {
  await Promise.all(clusters.splice(0).map((c) => c.shutdown()));
});

const b64 = (text: string) => Buffer.from(text, "utf8").toString("base64");

describe("counter ports", () => {
  test("declares _settings, in, out and _control as components.md §4.1 specifies", () => {
    expect(counter.ports().map((p) => [p.name, p.label, p.source, p.position, p.configuration])).toEqual([
      ["_settings", "Settings", false, "top", { step: 1, initial: 0 }],
      ["in", "In", false, "left", { context: null, by: 0 }],
      ["out", "Out", true, "right", { context: null, count: 0 }],
      ["_control", "Control", true, "top", { count: 0, reset: true }],
    ]);
  });

  test("in takes a configurable context and an optional integer by", () => {
    const schema = JSON.parse(JSON.stringify(counter.ports().find((p) => p.name === "in")!.schema));
    expect(schema.required ?? []).toEqual([]);
    expect(schema.properties.context.configurable).toBe(true);
    expect(schema.properties.by.type).toBe("integer");
  });

  test("the control's count is read-only and reset is a button", () => {
    const schema = JSON.parse(JSON.stringify(counter.ports().find((p) => p.name === "_control")!.schema));
    expect(schema.properties.count).toMatchObject({ type: "integer", readonly: true });
    expect(schema.properties.reset).toMatchObject({ type: "boolean", format: "button" });
  });
});

describe("counter", () => {
  test("adds step per message, emits {context, count} and returns the downstream result", async () => {
    const pod = cluster({ step: 2, initial: 10 }).newPod({ leader: true });
    await pod.reconcile();
    pod.respond("out", (d) => ok({ seen: d }));
    const first = await pod.send("in", { context: "a" });
    await pod.send("in", { context: "b" });
    expect(pod.on("out")).toEqual([
      { context: "a", count: 12 },
      { context: "b", count: 14 },
    ]);
    expect(first).toEqual({ kind: "ok", value: { seen: { context: "a", count: 12 } } });
  });

  test("a non-zero by overrides step; zero falls back to step", async () => {
    const pod = cluster({ step: 1, initial: 0 }).newPod({ leader: true });
    await pod.reconcile();
    await pod.send("in", { context: null, by: 5 });
    await pod.send("in", { context: null, by: 0 });
    expect(pod.on("out").map((d) => (d as { count: number }).count)).toEqual([5, 6]);
  });

  test("a failing downstream fails the hop, and the count stays incremented", async () => {
    const pod = cluster().newPod({ leader: true });
    await pod.reconcile();
    pod.respond("out", () => fail(new Error("sink down")));
    const r = await pod.send("in", { context: 1 });
    expect(r.kind === "fail" && r.error.message).toBe("sink down");
    await pod.send("in", { context: 2 });
    expect(pod.on("out").map((d) => (d as { count: number }).count)).toEqual([1, 2]);
  });

  test("persists the count as base64 decimal text in status.metadata[_state/count]", async () => {
    const c = cluster();
    const pod = c.newPod({ leader: true });
    await pod.reconcile();
    for (let i = 0; i < 3; i++) await pod.send("in", { context: i });
    await waitFor("state patch", () => c.metadata["_state/count"] === b64("3"));
    expect(c.metadata["_state/count"]).toBe("Mw==");
    expect(pod.portValue("_control")).toEqual({ count: 3, reset: true });
  });

  test("concurrent messages are counted one at a time: every count is distinct", async () => {
    const pod = cluster().newPod({ leader: true });
    await pod.reconcile();
    await Promise.all(Array.from({ length: 20 }, (_, i) => pod.send("in", { context: i })));
    const counts = pod.on("out").map((d) => (d as { count: number }).count);
    expect(counts.toSorted((a, b) => a - b)).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
  });

  test("a restarted pod continues from the persisted count and shows it on _control", async () => {
    const c = cluster();
    const pod1 = c.newPod({ leader: true });
    await pod1.reconcile();
    for (let i = 0; i < 3; i++) await pod1.send("in", { context: i });
    await pod1.shutdown(); // flushes the pending status patch, as a graceful stop does
    expect(c.metadata["_state/count"]).toBe(b64("3"));
    const pod2 = c.newPod({ leader: false });
    await pod2.reconcile();
    expect(pod2.portValue("_control")).toEqual({ count: 3, reset: true });
    await pod2.send("in", { context: "after" });
    expect(pod2.on("out")).toEqual([{ context: "after", count: 4 }]);
  });

  test("reset on the leader deletes the stored count; the next message starts again from initial", async () => {
    const c = cluster({ step: 1, initial: 100 });
    const pod = c.newPod({ leader: true });
    await pod.reconcile();
    await pod.send("in", { context: 1 });
    await waitFor("state patch", () => "_state/count" in c.metadata);
    await pod.send("_control", { reset: true });
    await waitFor("state deleted", () => !("_state/count" in c.metadata));
    expect(pod.portValue("_control")).toEqual({ count: 100, reset: true });
    await pod.send("in", { context: 2 });
    expect(pod.on("out").at(-1)).toEqual({ context: 2, count: 101 });
  });

  test("reset on a pod that is not the leader is ignored", async () => {
    const c = cluster();
    const pod = c.newPod({ leader: false });
    await pod.reconcile();
    await pod.send("in", { context: 1 });
    await pod.send("_control", { reset: true });
    await pod.send("in", { context: 2 });
    expect(pod.on("out").map((d) => (d as { count: number }).count)).toEqual([1, 2]);
  });

  test("a stored count that is not an integer fails the hop naming the key and value", async () => {
    const c = cluster();
    c.metadata["_state/count"] = b64("many");
    const pod = c.newPod({ leader: true });
    const status = await pod.reconcile();
    expect(status.error).toBe(true);
    const r = await pod.send("in", { context: 1 });
    expect(r.kind === "fail" && r.error.message).toBe('counter: state key "count" holds "many", not an integer');
  });
});

describe("counter in Flow B (components.md §5): ticker → counter → debug", () => {
  test("ticks are counted into _state/count and the debug node shows the mapped {count, source, line}", async () => {
    const json64 = (v: unknown) => Buffer.from(JSON.stringify(v), "utf8").toString("base64");
    const quiet = { debug() {}, info() {}, warn() {}, error() {}, child: () => quiet };
    const s = new Scheduler({ module: "m", debounceMs: 5, log: quiet });
    s.isLeader = true;
    for (const d of [ticker, counter, debug]) s.install(d);
    const [K, C, D] = ["f.m.ticker-1", "f.m.counter-1", "f.m.debug-1"];
    await s.update({
      metadata: { name: D },
      spec: {
        module: "m",
        component: "debug",
        ports: [{ from: `${C}:out`, port: "in", configuration: json64({ count: "{{$.count}}", source: "{{$.context.source}}", line: "tick #{{$.count}}" }) }],
      },
    });
    await s.update({
      metadata: { name: C },
      spec: {
        module: "m",
        component: "counter",
        edges: [{ id: "c-d", port: "out", to: `${D}:in` }],
        ports: [
          { port: "_settings", configuration: json64({ step: 1, initial: 0 }) },
          { from: `${K}:out`, port: "in", configuration: json64({ context: "{{$}}" }) },
        ],
      },
    });
    await s.update({
      metadata: { name: K },
      spec: {
        module: "m",
        component: "ticker",
        edges: [{ id: "k-c", port: "out", to: `${C}:in` }],
        ports: [{ port: "_settings", configuration: json64({ context: { source: "ticker" }, delay: 2 }) }],
      },
    });
    try {
      await s.handle({ edgeId: "", from: "signal", to: `${K}:_control`, data: { start: true, context: { source: "ticker" } }, depth: 0 });
      const stored = () => s.runner(C)!.node.status?.metadata?.["_state/count"];
      await waitFor("three counted ticks", () => Number(Buffer.from(stored() ?? "", "base64").toString()) >= 3);
      // Quiesce without cancelling a tick mid-chain: a pod that is no longer leader finishes the
      // tick in flight, then its loop ends.
      s.isLeader = false;
      const tickerStatus = () => JSON.parse(Buffer.from(s.readStatus(K)!.ports!.find((p) => p.name === "_control")!.configuration, "base64").toString()).status;
      await waitFor("ticker loop ended", () => tickerStatus() === "Not running");
      await s.runner(C)!.stop(false); // flush the counter's pending state patch
      const n = Number(Buffer.from(stored()!, "base64").toString());
      const control = s.readStatus(D)!.ports!.find((p) => p.name === "_control")!;
      expect(JSON.parse(Buffer.from(control.configuration, "base64").toString())).toEqual({ context: { count: n, source: "ticker", line: `tick #${n}` } });
    } finally {
      await s.stopAll();
    }
  });
});
