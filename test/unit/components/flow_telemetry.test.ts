/**
 * flow_telemetry: the cases of its Go tests (flowtelemetry_test.go: the scan bounds allow paging;
 * what `truncated` means) over the list scan with fake collector pages, plus settings validation
 * and the request check. Against the real collector: test/integration/flow-telemetry.test.ts.
 */
import { describe, expect, test } from "bun:test";
import { testComponent, type TraceSummary } from "tinyhost";
import telemetry, { MAX_PAGES, MAX_SCAN, MAX_TRACES, scanTraces, type TelemetrySelf } from "../../../components/flow_telemetry.ts";

process.env.TINYHOST_LOG_LEVEL ??= "silent";

/** A collector holding `total` traces (every `errEvery`-th failed), served `pageSize` at a time. */
function collector(total: number, pageSize = 100, errEvery = 0) {
  const calls: number[] = [];
  const all: TraceSummary[] = Array.from({ length: total }, (_, i) => ({
    id: `t${i}`,
    spans: 3,
    errors: errEvery && i % errEvery === 0 ? 1 : 0,
    durationNs: 12_345_678,
    startUs: 1_785_000_000_000_000,
  }));
  return { calls, page: async (offset: number) => (calls.push(offset), { traces: all.slice(offset, offset + pageSize), total }) };
}

describe("flow_telemetry scan (Go flowtelemetry_test.go)", () => {
  test("the bounds leave room to page", () => {
    expect(MAX_SCAN).toBeGreaterThan(MAX_TRACES);
    expect(MAX_PAGES).toBeGreaterThanOrEqual(2);
  });

  test("the whole window read: not truncated", async () => {
    const c = collector(40);
    const r = await scanTraces(c.page, false);
    expect(r).toMatchObject({ total: 40, scanned: 40, truncated: false });
    expect(r.traces[0]).toEqual({ id: "t0", spans: 3, errors: 0, durationMs: 12, startedAt: "2026-07-25T17:20:00Z" });
  });

  test("stopped with results left: truncated; filled exactly at the end: not", async () => {
    expect(await scanTraces(collector(500).page, false)).toMatchObject({ scanned: 200, truncated: true });
    expect((await scanTraces(collector(500).page, false)).traces).toHaveLength(200);
    expect(await scanTraces(collector(200).page, false)).toMatchObject({ scanned: 200, truncated: false });
  });

  test("errorsOnly reads past its results over many pages and stops at the scan cap, truncated", async () => {
    const c = collector(100_000, 100, 1000);
    const r = await scanTraces(c.page, true);
    expect(r).toMatchObject({ scanned: MAX_SCAN, truncated: true, errorTraces: 5 });
    expect(r.traces.map((t) => t.id)).toEqual(["t0", "t1000", "t2000", "t3000", "t4000"]);
    expect(c.calls.length).toBe(50);
  });

  test("a collector that ignores the offset is read at most MAX_PAGES times, each trace counted once", async () => {
    const same = async () => ({ traces: [{ id: "x", spans: 1, errors: 0, durationNs: 0, startUs: 0 }], total: 0 });
    expect(await scanTraces(same, false)).toMatchObject({ scanned: 1, traces: [{ id: "x" }] });
  });
});

describe("flow_telemetry settings and requests", () => {
  test("settings without a service or with a port ≤ 0 fail the reconcile naming the field", async () => {
    for (const [settings, message] of [
      [{ otelService: " ", otelPort: 2345 }, 'collector service is required: settings field "otelService" is empty'],
      [{ otelService: "c", otelPort: 0 }, 'collector port must be positive: settings field "otelPort" is 0'],
    ] as const) {
      const h = await testComponent(telemetry, { settings });
      expect(h.status().status).toContain(message);
      await h.stop();
    }
  });

  test("a request without a project is permanent, before any call; the collector address is <service>.<namespace>.svc.cluster.local:<port>", async () => {
    const h = await testComponent(telemetry, { settings: { otelService: "col", otelPort: 9, namespace: "obs", enableErrorPort: true } });
    const self = h.self as TelemetrySelf;
    expect(self.address(self.settings, "obs")).toBe("col.obs.svc.cluster.local:9");
    await h.send("request", { context: 1, project: "" });
    expect(h.emitted).toEqual([{ port: "error", data: { context: 1, error: 'project is required: field "project" is empty', retryable: false } }]);
    await h.stop();
  });
});
