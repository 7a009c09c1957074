// kv: the cases of Go's common-module components/kv/kv_test.go (store/query/delete, metadata form,
// pod restarts, stale reconcile, max records, size limits, ack port, reset), plus replicas, Go's
// error texts and settings validation.
import { describe, expect, test } from "bun:test";
import { ok } from "tinyhost";
import kv from "../../../components/kv.ts";
import { clusterFactory, runningPod, waitFor, type FakeCluster, type Pod } from "./leader-pods.ts";

process.env.TINYHOST_LOG_LEVEL ??= "silent";

const cluster = clusterFactory(kv, { capture: ["store_ack"] });

const store = (p: Pod, document: unknown, extra: object = {}) => p.send("store", { operation: "store", document, ...extra });

async function queryAll(p: Pod, query = "", context?: unknown) {
  const before = p.on("query_result").length;
  const r = await p.send("query", context === undefined ? { query } : { query, context });
  expect(r.kind).not.toBe("fail");
  return p.on("query_result")[before] as { context?: unknown; results: { key: string; document: Record<string, unknown> }[]; count: number; query: string };
}

const errorOf = (r: { kind: string; error?: Error }) => (r.kind === "fail" ? (r.error as Error & { code?: string }) : undefined);
const records = (p: Pod) => (p.portValue("_control") as { records: number }).records;
const decoded = (c: FakeCluster, key: string) => {
  const v = c.metadata[`_state/${key}`];
  return v === undefined ? undefined : Buffer.from(v, "base64").toString("utf8");
};

describe("kv ports", () => {
  test("Go's names, labels, positions and defaults; store_ack only when enabled", async () => {
    expect(kv.info).toMatchObject({ name: "kv", description: "Key-Value Store", tags: ["KV", "Storage", "Data"] });
    expect(
      kv
        .ports()
        .filter((p) => p.name !== "_reconcile")
        .map((p) => [p.name, p.label, p.source, p.position, p.configuration]),
    ).toEqual([
      ["_settings", "Settings", false, "top", { document: { id: "ID" }, primaryKey: "id", maxRecords: 100, enableStoreAckPort: false }],
      ["_control", "Control", true, "top", { records: 0, reset: false }],
      ["store", "Store", false, "left", { operation: "store", document: { id: "ID" } }],
      ["query", "Query", false, "left", { query: "$.status == 'DOWN'" }],
      ["query_result", "Query Result", true, "right", { results: [{ key: "", document: { id: "ID" } }], count: 0, query: "" }],
    ]); // TestStoreAckPortHiddenByDefault
    const p = await runningPod(cluster({ document: { id: "" }, primaryKey: "id", enableStoreAckPort: true }));
    expect(p.portValue("store_ack")).toEqual({ request: { operation: "", document: { id: "" } } });
  });

  test("the Document schema is Go's: an object requiring a string id, string values", () => {
    const settings = kv.ports().find((p) => p.name === "_settings")!;
    const doc = (settings.rawSchema as { $defs: Record<string, unknown> }).$defs.Document;
    expect(doc).toMatchObject({
      type: "object",
      required: ["id"],
      properties: { id: { title: "ID", type: "string" } },
      additionalProperties: { type: "string" },
      configurable: true,
    });
  });

  test("a settings document whose members differ in type publishes no value schema (Go types it after one random member)", async () => {
    const c = cluster({ document: { id: "", count: 0, tags: [] }, primaryKey: "id" });
    const pod = await runningPod(c);
    const settings = pod.scheduler.readStatus(c.node.metadata.name)!.ports!.find((p) => p.name === "_settings")!;
    const doc = JSON.parse(Buffer.from(settings.schema, "base64").toString()).$defs.Document;
    expect(doc.properties).toEqual({ id: { title: "ID", type: "string" } });
    expect(doc.additionalProperties).toBeUndefined();
  });
});

describe("kv", () => {
  test("store then query all (TestStoreAndQueryAll)", async () => {
    const p = await runningPod(cluster());
    expect(await store(p, { id: "ep1", url: "https://example.com", status: "UP" })).toEqual({ kind: "empty" });
    const qr = await queryAll(p);
    expect(qr).toEqual({ results: [{ key: "ep1", document: { id: "ep1", url: "https://example.com", status: "UP" } }], count: 1, query: "" });
  });

  test("a JSONPath query keeps the records it answers true for (TestQueryByJSONPath)", async () => {
    const p = await runningPod(cluster());
    await store(p, { id: "ep1", status: "UP" });
    await store(p, { id: "ep2", status: "DOWN" });
    await store(p, { id: "ep3" }); // no status: the predicate answers false
    const qr = await queryAll(p, "$.status == 'DOWN'");
    expect(qr.results.map((r) => r.key)).toEqual(["ep2"]);
    expect(qr).toMatchObject({ count: 1, query: "$.status == 'DOWN'" });
  });

  test("a query answering anything but true, or that does not parse, matches nothing", async () => {
    const p = await runningPod(cluster());
    await store(p, { id: "a", status: "UP" });
    expect((await queryAll(p, "$.status")).count).toBe(0);
    expect((await queryAll(p, "$.status ==")).count).toBe(0);
    expect((await queryAll(p, "$.id + 1 > 0")).count).toBe(0); // string + number fails for this record
  });

  test("delete removes the record and its metadata key (TestDelete, TestDeleteRemovesMetadata)", async () => {
    const c = cluster();
    const p = await runningPod(c);
    await store(p, { id: "ep1", status: "UP" });
    await waitFor("stored", () => decoded(c, "ep1") !== undefined);
    expect(await p.send("store", { operation: "delete", document: { id: "ep1" } })).toEqual({ kind: "empty" });
    expect((await queryAll(p)).count).toBe(0);
    await waitFor("key removed", () => !("_state/ep1" in c.metadata));
  });

  test("a record is stored under _state/<primary key> as Go's json.Marshal bytes (TestMetadataPersistence)", async () => {
    const c = cluster();
    const p = await runningPod(c);
    await store(p, { status: "UP", id: "ep1", note: "<ok> & fine" });
    await waitFor("stored", () => decoded(c, "ep1") !== undefined);
    expect(decoded(c, "ep1")).toBe('{"id":"ep1","note":"\\u003cok\\u003e \\u0026 fine","status":"UP"}');
  });

  test("a restarted pod sees every record (TestPodRestart, TestPodRestartMultipleKeys)", async () => {
    const c = cluster();
    const pod1 = await runningPod(c);
    await store(pod1, { id: "ep1", status: "UP" });
    await store(pod1, { id: "ep2", status: "DOWN" });
    await store(pod1, { id: "ep3", status: "UP" });
    await waitFor("stored", () => decoded(c, "ep3") !== undefined);
    await pod1.shutdown();
    const pod2 = await runningPod(c);
    expect(records(pod2)).toBe(3);
    const qr = await queryAll(pod2);
    expect(qr.results.map((r) => [r.key, r.document.status])).toEqual([
      ["ep1", "UP"],
      ["ep2", "DOWN"],
      ["ep3", "UP"],
    ]);
  });

  test("metadata keys that are not State keys are not records (TestStaleReconcileDoesNotOverwrite)", async () => {
    const c = cluster();
    const p = await runningPod(c);
    await store(p, { id: "ep1", status: "UP" });
    c.metadata["kv-ep1"] = '{"id":"ep1","status":"STALE"}';
    await p.reconcile();
    const qr = await queryAll(p);
    expect(qr.results).toEqual([{ key: "ep1", document: { id: "ep1", status: "UP" } }]);
  });

  test("maxRecords refuses a new key but not an update (TestMaxRecords)", async () => {
    const p = await runningPod(cluster({ document: { id: "" }, primaryKey: "id", maxRecords: 2 }));
    await store(p, { id: "a" });
    await store(p, { id: "b" });
    const err = errorOf(await store(p, { id: "c" }));
    expect([err?.code, err?.message]).toEqual(["KV_STORE", "store full: 2 records (max 2)"]);
    expect(await store(p, { id: "a", updated: "yes" })).toEqual({ kind: "empty" });
  });

  test("concurrent stores of new keys never pass maxRecords", async () => {
    const p = await runningPod(cluster({ document: { id: "" }, primaryKey: "id", maxRecords: 3 }));
    const results = await Promise.all(["a", "b", "c", "d", "e"].map((id) => store(p, { id })));
    expect(results.filter((r) => r.kind === "fail").length).toBe(2);
    expect((await queryAll(p)).count).toBe(3);
  });

  test("a document over 32 KiB of JSON is refused (TestDocumentTooLarge)", async () => {
    const p = await runningPod(cluster());
    const err = errorOf(await store(p, { id: "big", data: "x".repeat(33 * 1024) }));
    expect(err?.message).toBe(`document too large: ${33 * 1024 + '{"data":"","id":"big"}'.length} bytes (max 32768)`);
  });

  test("records that fit 32 KiB each but not the node's 900 KiB budget are refused naming the budget", async () => {
    const p = await runningPod(cluster());
    let refused: Error | undefined;
    for (let i = 0; i < 40 && !refused; i++) refused = errorOf(await store(p, { id: `r${i}`, data: "x".repeat(30 * 1024) }));
    expect(refused?.message).toStartWith("state budget exhausted: the node's total state is capped at ~900KB; store smaller records or lower maxRecords: ");
  });

  test("the primary key must be present, a string and not empty (TestEmptyPrimaryKey, TestMissingPrimaryKey)", async () => {
    const p = await runningPod(cluster());
    expect(errorOf(await store(p, { id: "" }))?.message).toBe("primary key cannot be empty");
    expect(errorOf(await store(p, { name: "no-pk" }))?.message).toBe('primary key "id" not found in document');
    expect(errorOf(await store(p, { ID: "x" }))?.message).toBe('primary key "id" not found in document'); // map keys are exact
    expect(errorOf(await p.send("store", { operation: "store" }))?.message).toBe('primary key "id" not found in document');
    expect(errorOf(await store(p, { id: 7 }))?.message).toBe("primary key must be a string, got float64");
  });

  test("an operation other than store or delete fails, as in Go (an empty one too)", async () => {
    const p = await runningPod(cluster());
    expect(errorOf(await p.send("store", { operation: "upsert", document: { id: "a" } }))?.message).toBe("unknown operation: upsert");
    expect(errorOf(await p.send("store", { document: { id: "a" } }))?.message).toBe("unknown operation: ");
  });

  test("storing an existing key replaces it (TestUpdateExistingKey)", async () => {
    const p = await runningPod(cluster());
    await store(p, { id: "ep1", status: "UP" });
    await store(p, { id: "ep1", status: "DOWN" });
    expect((await queryAll(p)).results).toEqual([{ key: "ep1", document: { id: "ep1", status: "DOWN" } }]);
  });

  test("an empty store answers an empty list (TestQueryEmptyStore)", async () => {
    expect(await queryAll(await runningPod(cluster()))).toEqual({ results: [], count: 0, query: "" });
  });

  test("store_ack echoes the request with its context and returns the ack's result (TestStoreAckPort)", async () => {
    const p = await runningPod(cluster({ document: { id: "" }, primaryKey: "id", maxRecords: 100, enableStoreAckPort: true }));
    p.respond("store_ack", () => ok("acked"));
    expect(await store(p, { id: "ep1", status: "UP" }, { context: "c1" })).toEqual(ok("acked"));
    await p.send("store", { operation: "delete", document: { id: "ep1" } });
    expect(p.on("store_ack")).toEqual([
      { context: "c1", request: { context: "c1", operation: "store", document: { id: "ep1", status: "UP" } } },
      { request: { operation: "delete", document: { id: "ep1" } } },
    ]);
  });

  test("the query's own context comes back on query_result (TestContextPassthrough)", async () => {
    const p = await runningPod(cluster());
    await store(p, { id: "ep1" }, { context: "my-ctx" });
    expect((await queryAll(p, "", "query-ctx")).context).toBe("query-ctx");
  });

  test("_control shows the record count; Reset deletes every record, and a stale reconcile brings none back (TestResetThenReconcileDoesNotRestore)", async () => {
    const c = cluster();
    const p = await runningPod(c);
    await store(p, { id: "ep1", status: "UP" });
    await store(p, { id: "ep2", status: "DOWN" });
    expect(records(p)).toBe(2);
    await waitFor("stored", () => decoded(c, "ep2") !== undefined);
    await p.send("_control", { reset: true });
    expect((await queryAll(p)).count).toBe(0);
    expect(records(p)).toBe(0);
    c.metadata["kv-ep1"] = '{"id":"ep1","status":"UP"}';
    await p.reconcile();
    expect((await queryAll(p)).count).toBe(0);
    await waitFor("keys removed", () => Object.keys(c.metadata).every((k) => !k.startsWith("_state/")));
  });

  test("a record stored on one replica is queried on another once its node copy carries it", async () => {
    const c = cluster();
    const a = await runningPod(c);
    const b = await runningPod(c, false);
    await store(a, { id: "ep1", status: "DOWN" });
    await waitFor("stored", () => decoded(c, "ep1") !== undefined);
    await b.reconcile(); // the watch delivers the status change
    expect((await queryAll(b, "$.status == 'DOWN'")).results).toEqual([{ key: "ep1", document: { id: "ep1", status: "DOWN" } }]);
    expect(records(b)).toBe(1);
  });

  test("settings are validated with Go's texts; refused settings keep the previous ones", async () => {
    const c = cluster({ document: { url: "" }, primaryKey: "url" });
    const p = await runningPod(c);
    expect((p.portValue("_settings") as { primaryKey: string }).primaryKey).toBe("url");
    for (const [bad, message] of [
      [{ document: {}, primaryKey: "id" }, "document must have at least one field"],
      [{ document: { id: "" }, primaryKey: "" }, "primary key cannot be empty"],
      [{ document: { id: "" }, primaryKey: "name" }, 'primary key "name" not found in document'],
    ] as const) {
      c.setSettings(bad);
      const status = await p.reconcile();
      expect(status.status).toContain(message);
      expect((p.portValue("_settings") as { primaryKey: string }).primaryKey).toBe("url");
    }
  });
});
