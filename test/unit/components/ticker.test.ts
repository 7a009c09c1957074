import { afterEach, describe, expect, test } from "bun:test";
import { ok, type AnyPort } from "tinyhost";
import ticker from "../../../components/ticker.ts";
import { FakeCluster, waitFor } from "./leader-pods.ts";

const clusters: FakeCluster[] = [];
function cluster(settings?: unknown): FakeCluster {
  const c = new FakeCluster(ticker, settings);
  clusters.push(c);
  return c;
}
afterEach(async () => {
  await Promise.all(clusters.splice(0).map((c) => c.shutdown()));
});

const FAST = { context: { source: "ticker" }, delay: 2 };

function shape(p: AnyPort) {
  return { name: p.name, label: p.label, source: p.source, position: p.position };
}

describe("ticker ports", () => {
  test("declares _settings, _reconcile, out and a stopped _control with Go's names, labels and positions", () => {
    expect(ticker.ports().map(shape)).toEqual([
      { name: "_settings", label: "Settings", source: false, position: "top" },
      { name: "_reconcile", label: "Reconcile", source: false, position: "top" },
      { name: "out", label: "Out", source: true, position: "right" },
      { name: "_control", label: "Control", source: true, position: "top" },
    ]);
  });

  test("settings default to a 1000 ms delay with a configurable context and a required delay ≥ 0", () => {
    const settings = ticker.ports().find((p) => p.name === "_settings")!;
    expect(settings.configuration).toEqual({ context: null, delay: 1000 }); // Go: `json:"context"`, no omitempty
    const schema = JSON.parse(JSON.stringify(settings.schema));
    expect(schema.required).toEqual(["delay"]);
    expect(schema.properties.delay).toMatchObject({ type: "integer", minimum: 0, default: 1000 });
    expect(schema.properties.context.configurable).toBe(true);
  });

  test("the stopped control offers Start with status Not running", () => {
    const control = ticker.ports().find((p) => p.name === "_control")!;
    expect(control.configuration).toEqual({ context: null, status: "Not running", start: true });
    expect(Object.keys(JSON.parse(JSON.stringify(control.schema)).properties)).toEqual(["context", "status", "start"]);
  });
});

describe("ticker on the leader", () => {
  test("start from _control emits the context at the root of out, repeatedly, and persists its intent", async () => {
    const c = cluster(FAST);
    const pod = c.newPod({ leader: true });
    await pod.reconcile();
    await pod.send("_control", { start: true, context: { source: "dashboard" } });
    await waitFor("three ticks", () => pod.on("out").length >= 3);
    expect(pod.on("out").slice(0, 3)).toEqual([{ source: "dashboard" }, { source: "dashboard" }, { source: "dashboard" }]);
    await waitFor("metadata patch", () => c.metadata["ticker-running"] === "true");
    expect(c.metadata["ticker-config"]).toBe('{"context":{"source":"dashboard"},"delay":2}');
    expect(pod.portValue("_control")).toEqual({ context: { source: "dashboard" }, status: "Running", stop: true });
  });

  test("ticker-config of settings without a context carries context null, as Go's settings struct marshals", async () => {
    const c = cluster({ delay: 2 });
    const pod = c.newPod({ leader: true });
    await pod.reconcile();
    await pod.send("_control", { start: true });
    await waitFor("metadata patch", () => c.metadata["ticker-running"] === "true");
    expect(c.metadata["ticker-config"]).toBe('{"context":null,"delay":2}');
  });

  test("each tick waits for the downstream to finish before the next one", async () => {
    const c = cluster(FAST);
    const pod = c.newPod({ leader: true });
    await pod.reconcile();
    const release = Promise.withResolvers<void>();
    let inFlight = 0;
    let maxInFlight = 0;
    pod.respond("out", async () => {
      inFlight++;
      maxInFlight = Math.max(maxInFlight, inFlight);
      if (pod.on("out").length === 1) await release.promise;
      inFlight--;
      return ok("done");
    });
    await pod.send("_control", { start: true, context: 1 });
    await waitFor("first tick", () => pod.on("out").length === 1);
    await Bun.sleep(20); // several delays' worth: no second tick while the first is blocked
    expect(pod.on("out").length).toBe(1);
    release.resolve();
    await waitFor("ticks after release", () => pod.on("out").length >= 3);
    expect(maxInFlight).toBe(1);
  });

  test("stop from _control ends the loop and removes both metadata keys", async () => {
    const c = cluster(FAST);
    const pod = c.newPod({ leader: true });
    await pod.reconcile();
    await pod.send("_control", { start: true });
    await waitFor("running metadata", () => c.metadata["ticker-running"] === "true");
    await pod.send("_control", { stop: true });
    await waitFor("metadata cleared", () => !("ticker-running" in c.metadata) && !("ticker-config" in c.metadata));
    const count = pod.on("out").length;
    await Bun.sleep(20);
    expect(pod.on("out").length).toBe(count);
    expect(pod.portValue("_control")).toEqual({ context: { source: "ticker" }, status: "Not running", start: true });
  });

  test("settings changed while running are re-persisted and used by the next ticks", async () => {
    const c = cluster(FAST);
    const pod = c.newPod({ leader: true });
    await pod.reconcile();
    await pod.send("_control", { start: true, context: "old" });
    await waitFor("first tick", () => pod.on("out").length >= 1);
    c.setSettings({ context: "new", delay: 3 });
    await pod.reconcile();
    await waitFor("config re-persisted", () => c.metadata["ticker-config"] === '{"context":"new","delay":3}');
    const seen = pod.on("out").length;
    await waitFor("a tick with the new context", () => pod.on("out").slice(seen).includes("new"));
  });

  test("a shorter delay set during a long pause applies to that pause, not after it", async () => {
    const c = cluster({ context: "slow", delay: 60_000 });
    const pod = c.newPod({ leader: true });
    await pod.reconcile();
    await pod.send("_control", { start: true, context: "slow" });
    await waitFor("first tick", () => pod.on("out").length >= 1);
    await Bun.sleep(50); // now inside the 60 s pause
    const changedAt = Date.now();
    c.setSettings({ context: "fast", delay: 20 });
    await pod.reconcile();
    await waitFor("a second tick well before the old 60 s delay", () => pod.on("out").length >= 2, 5_000);
    expect(Date.now() - changedAt).toBeLessThan(5_000);
    expect(pod.on("out")[1]).toBe("fast");
  });
});

describe("ticker leadership", () => {
  test("a control start on a non-leader pod does nothing", async () => {
    const c = cluster(FAST);
    const pod = c.newPod({ leader: false });
    await pod.reconcile();
    const r = await pod.send("_control", { start: true });
    expect(r.kind).toBe("empty");
    await Bun.sleep(20);
    expect(pod.on("out")).toEqual([]);
    expect(c.metadata).toEqual({});
  });

  test("the loop stops when this pod loses the lease, and the metadata stays for the next leader", async () => {
    const c = cluster(FAST);
    const pod = c.newPod({ leader: true });
    await pod.reconcile();
    await pod.send("_control", { start: true });
    await waitFor("running metadata", () => c.metadata["ticker-running"] === "true");
    pod.leader = false;
    await waitFor("loop ended", () => (pod.portValue("_control") as { status: string }).status === "Not running");
    const count = pod.on("out").length;
    await Bun.sleep(20);
    expect(pod.on("out").length).toBe(count);
    expect(c.metadata["ticker-running"]).toBe("true");
  });

  test("a reconcile telling a follower pod it is not the leader stops its loop", async () => {
    const c = cluster({ context: "x", delay: 10_000 }); // long pause: only the reconcile can stop it promptly
    const pod = c.newPod({ leader: true });
    await pod.reconcile();
    await pod.send("_control", { start: true });
    await waitFor("first tick", () => pod.on("out").length === 1);
    pod.leader = false;
    await pod.reconcile();
    expect((pod.portValue("_control") as { status: string }).status).toBe("Not running");
  });

  test("a pod that becomes leader resumes the ticker from metadata on its reconcile", async () => {
    const c = cluster(FAST);
    const first = c.newPod({ leader: true });
    const second = c.newPod({ leader: false });
    await first.reconcile();
    await second.reconcile();
    await first.send("_control", { start: true, context: { source: "dashboard" } });
    await waitFor("running metadata", () => c.metadata["ticker-running"] === "true");
    await second.reconcile(); // sees the metadata but is not the leader
    expect(second.on("out")).toEqual([]);
    first.leader = false;
    second.leader = true;
    await first.reconcile();
    await second.reconcile(); // Go requeues every node when a pod gains the lease
    await waitFor("ticks on the new leader", () => second.on("out").length >= 2);
    expect(second.on("out")[0]).toEqual({ source: "ticker" }); // node settings win over restored metadata once delivered
  });
});

describe("ticker restart", () => {
  test("a restarted leader pod resumes ticking from ticker-config", async () => {
    const c = cluster(); // no node settings: the restored config stays in force
    const pod1 = c.newPod({ leader: true });
    await pod1.reconcile();
    await pod1.send("_control", { start: true, context: { env: "prod" } });
    await waitFor("running metadata", () => c.metadata["ticker-running"] === "true");
    await pod1.shutdown();
    c.metadata["ticker-config"] = '{"context":{"env":"prod"},"delay":2}'; // a short pause for the test
    const pod2 = c.newPod({ leader: true });
    await pod2.reconcile();
    await waitFor("ticks after restart", () => pod2.on("out").length >= 2);
    expect(pod2.on("out").slice(0, 2)).toEqual([{ env: "prod" }, { env: "prod" }]);
    expect(pod2.portValue("_control")).toEqual({ context: { env: "prod" }, status: "Running", stop: true });
  });

  test("a restarted pod that is not the leader does not resume", async () => {
    const c = cluster(FAST);
    const pod1 = c.newPod({ leader: true });
    await pod1.reconcile();
    await pod1.send("_control", { start: true });
    await waitFor("running metadata", () => c.metadata["ticker-running"] === "true");
    await pod1.shutdown();
    const pod2 = c.newPod({ leader: false });
    await pod2.reconcile();
    await Bun.sleep(20);
    expect(pod2.on("out")).toEqual([]);
    expect((pod2.portValue("_control") as { status: string }).status).toBe("Not running");
  });

  test("deleting the node stops the loop", async () => {
    const c = cluster(FAST);
    const pod = c.newPod({ leader: true });
    await pod.reconcile();
    await pod.send("_control", { start: true });
    await waitFor("ticks", () => pod.on("out").length >= 1);
    await pod.destroy();
    const count = pod.on("out").length;
    await Bun.sleep(20);
    expect(pod.on("out").length).toBe(count);
  });
});
