// inject: the cases of Go's common-module components/inject/inject_test.go (basic flow, message
// before config, pod restarts, stale reconcile, updates, configRequired), plus Go's stored bytes,
// replicas and the state budget.
import { describe, expect, test } from "bun:test";
import { ok } from "tinyhost";
import inject from "../../../components/inject.ts";
import { clusterFactory, runningPod, waitFor, type FakeCluster, type Pod } from "./leader-pods.ts";

process.env.TINYHOST_LOG_LEVEL ??= "silent";

const cluster = clusterFactory(inject, { capture: ["error"] });

const stored = (c: FakeCluster) => {
  const v = c.metadata["_state/config"];
  return v === undefined ? undefined : Buffer.from(v, "base64").toString("utf8");
};

describe("inject ports", () => {
  test("Go's names, labels and positions: config enters at the top; error only with configRequired", async () => {
    expect(inject.info).toMatchObject({ name: "inject", description: "Inject", tags: ["Data", "Config", "Enrich"] });
    expect(
      inject
        .ports()
        .filter((p) => p.name !== "_reconcile")
        .map((p) => [p.name, p.label, p.source, p.position, p.configuration]),
    ).toEqual([
      ["_settings", "Settings", false, "top", { configRequired: false }],
      ["config", "Config", false, "top", { data: null }],
      ["message", "Message", false, "left", { context: null }],
      ["output", "Output", true, "right", { context: null, config: null }],
    ]);
    const c = cluster({ configRequired: true });
    const p = await runningPod(c);
    expect(
      p.scheduler
        .runner(c.node.metadata.name)!
        .ports()
        .find((x) => x.name === "error"),
    ).toMatchObject({ label: "Error", source: true, position: "bottom" }); // TestConfigRequired_ErrorPortVisibility
  });
});

describe("inject", () => {
  test("a config sent once is attached to the next message (TestBasicFlow)", async () => {
    const p = await runningPod(cluster());
    p.respond("output", () => ok("downstream"));
    expect(await p.send("config", { data: { labelSelector: "app=nginx", namespace: "production" } })).toEqual({ kind: "empty" });
    expect(await p.send("message", { context: "tick-1" })).toEqual(ok("downstream"));
    expect(p.on("output")).toEqual([{ context: "tick-1", config: { labelSelector: "app=nginx", namespace: "production" } }]);
  });

  test("a message before any config carries config null (TestMessageBeforeConfig, TestConfigNotRequired_NilConfigPassesThrough)", async () => {
    const p = await runningPod(cluster());
    await p.send("message", { context: "early" });
    expect(p.on("output")).toEqual([{ context: "early", config: null }]);
  });

  test("the config is stored as Go's json.Marshal bytes in _state/config", async () => {
    const c = cluster();
    const p = await runningPod(c);
    await p.send("config", { data: { z: 1, a: "<b>&", list: [{ y: true, x: null }] } });
    await waitFor("config written", () => stored(c) !== undefined);
    expect(stored(c)).toBe('{"a":"\\u003cb\\u003e\\u0026","list":[{"x":null,"y":true}],"z":1}');
  });

  test("a restarted pod attaches the stored config (TestPodRestart, TestConfigSurvivesTheInstanceThatReceivedIt)", async () => {
    const c = cluster();
    const pod1 = await runningPod(c);
    await pod1.send("config", { data: { ns: "prod", label: "app=api" } });
    await waitFor("config written", () => stored(c) !== undefined);
    await pod1.shutdown();
    const pod2 = await runningPod(c);
    await pod2.send("message", { context: "from-cron" });
    expect(pod2.on("output")).toEqual([{ context: "from-cron", config: { ns: "prod", label: "app=api" } }]);
  });

  test("restarts carry the latest config across rounds (TestPodRestartMultipleRounds)", async () => {
    const c = cluster();
    const pod1 = await runningPod(c);
    await pod1.send("config", { data: { round: 1 } });
    await waitFor("round 1 written", () => stored(c) === '{"round":1}');
    await pod1.shutdown();
    const pod2 = await runningPod(c);
    await pod2.send("config", { data: { round: 2 } });
    await waitFor("round 2 written", () => stored(c) === '{"round":2}');
    await pod2.shutdown();
    const pod3 = await runningPod(c);
    await pod3.send("message", { context: "final" });
    expect(pod3.on("output")).toEqual([{ context: "final", config: { round: 2 } }]);
  });

  test("a stale reconcile does not bring back an older config (TestStaleReconcileDoesNotOverwrite)", async () => {
    const c = cluster();
    const p = await runningPod(c);
    await p.send("config", { data: { version: "v2" } });
    c.metadata["inject-config"] = '{"version":"v1"}'; // a key of an older Go version: ignored
    await p.reconcile();
    await p.send("message", { context: "test" });
    expect(p.on("output")).toEqual([{ context: "test", config: { version: "v2" } }]);
  });

  test("a new config replaces the old one for later messages (TestConfigUpdate, TestMultipleMessagesShareConfig)", async () => {
    const p = await runningPod(cluster());
    await p.send("config", { data: { v: 1 } });
    await p.send("message", { context: "a" });
    await p.send("config", { data: { v: 2 } });
    for (const i of [0, 1, 2]) await p.send("message", { context: i });
    expect(p.on("output")).toEqual([
      { context: "a", config: { v: 1 } },
      { context: 0, config: { v: 2 } },
      { context: 1, config: { v: 2 } },
      { context: 2, config: { v: 2 } },
    ]);
  });

  test("configRequired: a message before any config goes to error, after one to output (TestConfigRequired_*)", async () => {
    const p = await runningPod(cluster({ configRequired: true }));
    p.respond("error", () => ok("caught"));
    expect(await p.send("message", { context: "tick" })).toEqual(ok("caught"));
    expect(p.on("error")).toEqual([{ context: "tick", error: "config not set" }]);
    expect(p.on("output")).toEqual([]);
    await p.send("config", { data: { env: "prod" } });
    await p.send("message", { context: "tick" });
    expect(p.on("output")).toEqual([{ context: "tick", config: { env: "prod" } }]);
  });

  test("configRequired after a restart uses the stored config (TestConfigRequired_PodRestart)", async () => {
    const c = cluster({ configRequired: true });
    const pod1 = await runningPod(c);
    await pod1.send("config", { data: { label: "app=web" } });
    await waitFor("config written", () => stored(c) !== undefined);
    await pod1.shutdown();
    const pod2 = await runningPod(c);
    await pod2.send("message", { context: "cron-tick" });
    expect(pod2.on("error")).toEqual([]);
    expect(pod2.on("output")).toEqual([{ context: "cron-tick", config: { label: "app=web" } }]);
  });

  test("a config sent to one replica reaches the other once its node copy carries it (Go keeps the other's in-memory copy)", async () => {
    const c = cluster();
    const a = await runningPod(c);
    const b = await runningPod(c, false);
    await a.send("config", { data: { v: "old" } });
    await waitFor("old written", () => stored(c) === '{"v":"old"}');
    await b.reconcile();
    await b.send("message", { context: 1 });
    await a.send("config", { data: { v: "new" } });
    await waitFor("new written", () => stored(c) === '{"v":"new"}');
    await b.reconcile(); // the watch delivers the status change
    await b.send("message", { context: 2 });
    expect(b.on("output")).toEqual([
      { context: 1, config: { v: "old" } },
      { context: 2, config: { v: "new" } },
    ]);
  });

  test("a config the 900 KiB state budget cannot hold fails the hop; the previous config stays", async () => {
    const p = await runningPod(cluster());
    await p.send("config", { data: "small" });
    const r = await p.send("config", { data: "x".repeat(700 * 1024) });
    expect(r.kind === "fail" && (r.error as Error & { code?: string }).code).toBe("STATE_TOO_LARGE");
    await p.send("message", { context: 1 });
    expect(p.on("output")).toEqual([{ context: 1, config: "small" }]);
  });

  test("a config of null is stored as null: with configRequired it counts as not set", async () => {
    const p = await runningPod(cluster({ configRequired: true }));
    await p.send("config", {});
    await p.send("message", { context: 1 });
    expect(p.on("error")).toEqual([{ context: 1, error: "config not set" }]);
  });
});
