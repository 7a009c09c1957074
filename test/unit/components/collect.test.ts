// collect: the cases of Go's common-module components/collect/collect_test.go (assembly, partial
// groups in state, passive expiry, stragglers, maxGroups, validation, total mismatch, the state
// budget, pod restart, hidden error port), plus Go's stored form, replicas and the array_split pair.
import { afterEach, describe, expect, test } from "bun:test";
import { ok, testComponent, type Result } from "tinyhost";
import arraySplit from "../../../components/array_split.ts";
import collect from "../../../components/collect.ts";
import { clusterFactory, runningPod, waitFor, type FakeCluster, type Pod } from "./leader-pods.ts";

process.env.TINYHOST_LOG_LEVEL ??= "silent";

/** The clock every new instance reads; tests move it instead of sleeping (Go's `now` seam). */
let clock = Date.parse("2026-08-22T10:00:00.000Z");

const cluster = clusterFactory(collect, { capture: ["error"], prepare: (self) => void ((self as { now: () => number }).now = () => clock) });
afterEach(() => {
  clock = Date.parse("2026-08-22T10:00:00.000Z");
});

const item = (groupKey: string, index: number, total: number, payload: unknown, context?: unknown) => ({ context, groupKey, index, total, item: payload });
const errorOf = (r: Result) => (r.kind === "fail" ? (r.error as Error & { code?: string }) : undefined);
const stateKeys = (c: FakeCluster) => Object.keys(c.metadata).filter((k) => k.startsWith("_state/"));

async function mustSend(p: Pod, msg: unknown): Promise<Result> {
  const r = await p.send("item", msg);
  expect(errorOf(r)?.message).toBeUndefined();
  return r;
}

describe("collect ports", () => {
  test("Go's names, labels, positions and defaults; the error port is hidden by default (TestErrorPortHiddenByDefault)", async () => {
    expect(collect.info).toMatchObject({ name: "collect", description: "Collect", tags: ["SDK", "ARRAY"] });
    expect(
      collect
        .ports()
        .filter((p) => p.name !== "_reconcile")
        .map((p) => [p.name, p.label, p.source, p.position, p.configuration]),
    ).toEqual([
      ["_settings", "Settings", false, "top", { enableErrorPort: false, timeoutSeconds: 300, maxGroups: 100 }],
      ["item", "Item", false, "left", { groupKey: "", index: 0, total: 1, item: null }],
      ["response", "Response", true, "right", { items: [] }],
    ]);
    const p = await runningPod(cluster({ enableErrorPort: true, timeoutSeconds: 0, maxGroups: -1 }));
    expect(p.portValue("error")).toEqual({ groupKey: "", received: 0, total: 0, error: "" });
    expect(p.portValue("_settings")).toEqual({ enableErrorPort: true, timeoutSeconds: 300, maxGroups: 100 }); // 0 and below mean the defaults
  });
});

describe("collect assembly (TestAssembly)", () => {
  const cases: [string, unknown[], unknown[]][] = [
    ["in-order assembly", [item("g1", 0, 3, "a", "c0"), item("g1", 1, 3, "b", "c1"), item("g1", 2, 3, "c", "c2")], [{ context: "c2", items: ["a", "b", "c"] }]],
    [
      "out-of-order assembly ordered by index",
      [item("g1", 2, 3, "c", "c2"), item("g1", 0, 3, "a", "c0"), item("g1", 1, 3, "b", "c1")],
      [{ context: "c1", items: ["a", "b", "c"] }],
    ],
    [
      "duplicate index overwrites, does not double-count",
      [item("g1", 0, 2, "a", "c0"), item("g1", 0, 2, "a-newer", "c0b"), item("g1", 1, 2, "b", "c1")],
      [{ context: "c1", items: ["a-newer", "b"] }],
    ],
    [
      "two interleaved groups",
      [item("g1", 0, 2, "1a", "x0"), item("g2", 0, 2, "2a", "y0"), item("g1", 1, 2, "1b", "x1"), item("g2", 1, 2, "2b", "y1")],
      [
        { context: "x1", items: ["1a", "1b"] },
        { context: "y1", items: ["2a", "2b"] },
      ],
    ],
    ["total 1 completes immediately", [item("solo", 0, 1, "only", "c")], [{ context: "c", items: ["only"] }]],
    ["a null context of the last item is left out (Go omitempty)", [item("g", 0, 2, "a", "c0"), item("g", 1, 2, { b: [1] })], [{ items: ["a", { b: [1] }] }]],
  ];
  for (const [name, sends, want] of cases) {
    test(name, async () => {
      const c = cluster();
      const p = await runningPod(c);
      for (const m of sends) await mustSend(p, m);
      expect(p.on("response")).toEqual(want);
      await waitFor("buffers removed", () => stateKeys(c).length === 0); // completed groups must not leak state
    });
  }

  test("the completing item returns the response's downstream result; the others return nothing", async () => {
    const p = await runningPod(cluster());
    p.respond("response", () => ok("reduced"));
    expect(await p.send("item", item("g", 0, 2, "a"))).toEqual({ kind: "empty" });
    expect(await p.send("item", item("g", 1, 2, "b"))).toEqual(ok("reduced"));
  });
});

describe("collect", () => {
  test("a partial group is buffered in _state/<groupKey> as Go's JSON (TestPartialGroupPersistsInState)", async () => {
    const c = cluster();
    const p = await runningPod(c);
    await mustSend(p, item("g1", 0, 3, { z: 1, a: "<x>" }, { runId: "r1" }));
    expect(p.on("response")).toEqual([]);
    await waitFor("buffered", () => stateKeys(c).length === 1);
    expect(Buffer.from(c.metadata["_state/g1"]!, "base64").toString()).toBe(
      '{"firstSeen":"2026-08-22T10:00:00Z","total":3,"context":{"runId":"r1"},"items":{"0":{"a":"\\u003cx\\u003e","z":1}}}',
    );
  });

  test("a group buffered by Go (nanosecond firstSeen, index keys in string order) completes here", async () => {
    const c = cluster();
    c.metadata["_state/go-group"] = Buffer.from(
      '{"firstSeen":"2026-08-22T09:59:59.123456789Z","total":12,"context":null,"items":{"0":"a","10":"k","2":"c"}}',
    ).toString("base64");
    const p = await runningPod(c);
    for (const i of [1, 3, 4, 5, 6, 7, 8, 9, 11]) await mustSend(p, item("go-group", i, 12, String.fromCharCode(97 + i)));
    expect(p.on("response")).toEqual([{ items: "abcdefghijkl".split("") }]);
  });

  test("traffic on another group sweeps an expired group onto the error port (TestTimeoutExpiryOnTraffic)", async () => {
    const c = cluster({ enableErrorPort: true, timeoutSeconds: 10, maxGroups: 100 });
    const p = await runningPod(c);
    await mustSend(p, item("late", 0, 3, "a", "run-a"));
    await mustSend(p, item("late", 1, 3, "b", "run-b"));
    clock += 11_000;
    await mustSend(p, item("fresh", 0, 1, "only", "fresh-ctx"));
    expect(p.on("error")).toEqual([{ context: "run-b", groupKey: "late", received: 2, total: 3, error: "collect timeout: got 2 of 3" }]);
    expect(p.on("response")).toEqual([{ context: "fresh-ctx", items: ["only"] }]);
    await waitFor("expired group deleted", () => stateKeys(c).length === 0);
  });

  test("without the error port an expired group is dropped (logged), not emitted", async () => {
    const c = cluster({ timeoutSeconds: 10 });
    const p = await runningPod(c);
    await mustSend(p, item("late", 0, 2, "a"));
    clock += 11_000;
    await mustSend(p, item("other", 0, 2, "x"));
    expect(p.on("error")).toEqual([]);
    await waitFor("only the new group left", () => stateKeys(c).join() === "_state/other");
  });

  test("a straggler completing an expired group is a success (TestStragglerCompletesExpiredGroup)", async () => {
    const p = await runningPod(cluster({ enableErrorPort: true, timeoutSeconds: 10, maxGroups: 100 }));
    await mustSend(p, item("g", 0, 2, "a", "c0"));
    clock += 11_000;
    await mustSend(p, item("g", 1, 2, "b", "c1"));
    expect(p.on("error")).toEqual([]);
    expect(p.on("response")).toEqual([{ context: "c1", items: ["a", "b"] }]);
  });

  test("a straggler that cannot save its group fails it now, counting itself (TestStragglerCannotSaveGroupFailsImmediately)", async () => {
    const c = cluster({ enableErrorPort: true, timeoutSeconds: 10, maxGroups: 100 });
    const p = await runningPod(c);
    p.respond("error", () => ok("handled"));
    await mustSend(p, item("g", 0, 3, "a", "c0"));
    clock += 11_000;
    expect(await p.send("item", item("g", 1, 3, "b", "c1"))).toEqual(ok("handled"));
    expect(p.on("error")).toEqual([{ context: "c1", groupKey: "g", received: 2, total: 3, error: "collect timeout: got 2 of 3" }]);
    await waitFor("group deleted", () => stateKeys(c).length === 0);
  });

  test("without the error port that straggler fails the hop (TestTimeoutWithoutErrorPortFailsTheMessage)", async () => {
    const p = await runningPod(cluster({ timeoutSeconds: 10, maxGroups: 100 }));
    await mustSend(p, item("g", 0, 3, "a", "c0"));
    clock += 11_000;
    expect(errorOf(await p.send("item", item("g", 1, 3, "b", "c1")))?.message).toBe("collect timeout: got 2 of 3");
  });

  test("maxGroups refuses a new group but not an item of an existing one (TestMaxGroupsGuard)", async () => {
    const p = await runningPod(cluster({ timeoutSeconds: 300, maxGroups: 2 }));
    await mustSend(p, item("g1", 0, 2, "a"));
    await mustSend(p, item("g2", 0, 2, "a"));
    expect(errorOf(await p.send("item", item("g3", 0, 2, "a")))?.message).toBe(
      "too many in-flight groups: 2 (max 2); raise maxGroups or check that groups complete or time out",
    );
    await mustSend(p, item("g1", 1, 2, "b"));
    expect(p.on("response").length).toBe(1);
  });

  test("expired groups free their maxGroups slots (TestExpiredGroupsFreeMaxGroupsSlots)", async () => {
    const p = await runningPod(cluster({ enableErrorPort: true, timeoutSeconds: 10, maxGroups: 1 }));
    await mustSend(p, item("old", 0, 2, "a"));
    clock += 11_000;
    await mustSend(p, item("new", 0, 2, "a"));
    expect((p.on("error") as { groupKey: string }[]).map((e) => e.groupKey)).toEqual(["old"]);
  });

  test("items are validated before anything is stored (TestValidation)", async () => {
    const c = cluster();
    const p = await runningPod(c);
    const cases: [unknown, string][] = [
      [item("", 0, 2, "a"), "groupKey is required: map something unique per fan-out (e.g. $.context.runId)"],
      [item("g", 0, 0, "a"), "total must be >= 1, got 0: map array_split's total"],
      [item("g", -1, 2, "a"), "index -1 out of range [0, 2): map array_split's index"],
      [item("g", 2, 2, "a"), "index 2 out of range [0, 2): map array_split's index"],
      [{ groupKey: "g" }, "total must be >= 1, got 0: map array_split's total"],
    ];
    for (const [msg, message] of cases)
      expect([errorOf(await p.send("item", msg))?.code, errorOf(await p.send("item", msg))?.message]).toEqual(["COLLECT", message]);
    expect(stateKeys(c)).toEqual([]);
  });

  test("items of one group must carry the same total (TestTotalMismatchFails)", async () => {
    const p = await runningPod(cluster());
    await mustSend(p, item("g", 0, 2, "a"));
    expect(errorOf(await p.send("item", item("g", 1, 3, "b")))?.message).toBe(
      'total mismatch for group "g": got 3, group started with 2 — every item of a group must carry the same total',
    );
  });

  test("an item its buffer cannot hold within the 900 KiB budget fails naming it (TestStateTooLargeMessage)", async () => {
    const p = await runningPod(cluster());
    const err = errorOf(await p.send("item", item("g", 0, 2, "x".repeat(900 * 1024))));
    expect(err?.message).toStartWith(
      'state budget exhausted: the node\'s total state is capped at ~900KB and group "g" no longer fits; collect smaller items (carry IDs, not payloads) or lower maxGroups: ',
    );
    expect(err?.message).toContain("900KB");
  });

  test("a restarted pod completes a group the previous one started (TestPodRestartKeepsPartialGroup)", async () => {
    const c = cluster();
    const pod1 = await runningPod(c);
    await mustSend(pod1, item("g", 0, 2, "a", "c0"));
    await waitFor("buffered", () => stateKeys(c).length === 1);
    await pod1.shutdown();
    const pod2 = await runningPod(c);
    await mustSend(pod2, item("g", 1, 2, "b", "c1"));
    expect(pod2.on("response")).toEqual([{ context: "c1", items: ["a", "b"] }]);
  });

  test("items handled by two replicas assemble once the node carries the first one's buffer", async () => {
    const c = cluster();
    const a = await runningPod(c);
    const b = await runningPod(c, false);
    await mustSend(a, item("g", 0, 2, "from-a"));
    await waitFor("buffered", () => stateKeys(c).length === 1);
    await b.reconcile(); // the watch delivers the status change
    await mustSend(b, item("g", 1, 2, "from-b"));
    expect(b.on("response")).toEqual([{ items: ["from-a", "from-b"] }]);
  });

  test("concurrent items of one group are all kept (one read-modify-write at a time)", async () => {
    const p = await runningPod(cluster());
    await Promise.all(Array.from({ length: 20 }, (_, i) => p.send("item", item("g", i, 20, i))));
    expect(p.on("response")).toEqual([{ items: Array.from({ length: 20 }, (_, i) => i) }]);
  });

  test("an unreadable buffer is started over for its own group and dropped by the sweep", async () => {
    const c = cluster();
    c.metadata["_state/broken"] = Buffer.from("not json").toString("base64");
    c.metadata["_state/mine"] = Buffer.from('{"firstSeen":"2026-08-22T10:00:00Z","total":2,"items":null}').toString("base64");
    const p = await runningPod(c);
    await mustSend(p, item("mine", 1, 2, "b")); // items null in a Go buffer: treated as empty (Go would panic)
    await mustSend(p, item("mine", 0, 2, "a"));
    expect(p.on("response")).toEqual([{ items: ["a", "b"] }]);
    await waitFor("broken buffer dropped", () => stateKeys(c).length === 0);
  });
});

describe("collect with array_split (map-reduce)", () => {
  test("split items, transformed one by one, reassemble in order", async () => {
    const split = await testComponent(arraySplit);
    const c = await testComponent(collect);
    // The per-item work doubles each number; the edge maps array_split's out into collect's item.
    split.respond("out", async (data) => {
      const d = data as { context: { runId: string }; item: number; index: number; total: number };
      return c.send("item", { context: d.context, groupKey: d.context.runId, index: d.index, total: d.total, item: d.item * 2 });
    });
    await split.send("in", { context: { runId: "run-1" }, array: [3, 1, 2] });
    expect(c.emitted).toEqual([{ port: "response", data: { context: { runId: "run-1" }, items: [6, 2, 4] } }]);
    await split.stop();
    await c.stop();
  });
});
