/**
 * promql_query against a real Prometheus-compatible server, logql_query against a recorded Loki
 * API fixture.
 *
 * - promql_query: VictoriaMetrics single-node (built from the Go module proxy by
 *   scripts/build-go-tools.sh, cached), which serves the Prometheus query API. Samples are imported
 *   with timestamps in the last minutes, then instant and range queries, a query that does not
 *   parse (400 → permanent, on the error port), an unreachable server (retryable) run through the
 *   component in the real runner.
 * - logql_query: no Loki-compatible query server can be built here (test/fixtures/loki-api/README.md),
 *   so a local Bun server replays the documented `query_range` responses of that fixture and
 *   records each request, to check what the component sends (path, parameters, auth, tenant).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { isRetryable, testComponent, type ComponentHarness } from "tinyhost";
import logql from "../../components/logql_query.ts";
import promql from "../../components/promql_query.ts";
import { goTool } from "../support/go-tools.ts";
import { freePort, startProcess, waitUntil, type ManagedProcess } from "../support/process.ts";

process.env.TINYHOST_LOG_LEVEL ??= "silent";

let vm: ManagedProcess | undefined;
let vmUrl = "";
let dataDir = "";
const nowS = Math.floor(Date.now() / 1000);

beforeAll(async () => {
  const bin = await goTool("victoria-metrics");
  dataDir = mkdtempSync(join(tmpdir(), "tinyhost-vm-"));
  const port = freePort();
  vmUrl = `http://127.0.0.1:${port}`;
  vm = startProcess({
    name: "victoria-metrics",
    // latencyOffset 0: samples just written are queryable "now" (the default hides the last 30 s)
    cmd: [bin, `-httpListenAddr=127.0.0.1:${port}`, `-storageDataPath=${dataDir}`, "-search.latencyOffset=0s", "-loggerLevel=ERROR"],
    logFile: join(dataDir, "vm.log"),
  });
  await waitUntil("victoria-metrics /health", async () => (await fetch(`${vmUrl}/health`)).ok, 30_000);
  // Five samples a minute apart for two pods, the newest 20 s ago (Prometheus exposition format, ms).
  const lines: string[] = [];
  for (let i = 0; i < 5; i++) {
    const t = (nowS - 260 + i * 60) * 1000;
    lines.push(`http_requests_total{job="api",pod="api-1"} ${i * 10} ${t}`, `http_requests_total{job="api",pod="api-2"} ${i * 5} ${t}`);
  }
  const imported = await fetch(`${vmUrl}/api/v1/import/prometheus`, { method: "POST", body: lines.join("\n") });
  expect(imported.status).toBe(204);
  await fetch(`${vmUrl}/internal/force_flush`);
  await waitUntil(
    "imported samples to be searchable",
    async () => {
      const r = (await (await fetch(`${vmUrl}/api/v1/query?query=http_requests_total`)).json()) as { data: { result: unknown[] } };
      return r.data.result.length === 2;
    },
    30_000,
  );
}, 600_000);

afterAll(async () => {
  await vm?.stop();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

async function promqlNode(settings: Record<string, unknown>): Promise<ComponentHarness> {
  return testComponent(promql, { settings: { timeoutSeconds: 10, ...settings } });
}

type Series = { labels: Record<string, string>; value: number | null; points?: { at: string; value: number | null }[] };

describe("promql_query against VictoriaMetrics (Prometheus query API)", () => {
  test("an instant query returns each series with its labels and latest value", async () => {
    const h = await promqlNode({ baseURL: vmUrl });
    const r = await h.send("request", { context: { ask: "load" }, query: 'http_requests_total{job="api"}' });
    expect(r.kind).not.toBe("fail");
    const out = h.emitted[0]!.data as { context: unknown; series: Series[]; count: number; truncated: boolean };
    expect(out.context).toEqual({ ask: "load" });
    expect(out.count).toBe(2);
    expect(out.truncated).toBe(false);
    const byPod = Object.fromEntries(out.series.map((s) => [s.labels.pod, s]));
    expect(byPod["api-1"]).toEqual({ labels: { __name__: "http_requests_total", job: "api", pod: "api-1" }, value: 40 });
    expect(byPod["api-2"]!.value).toBe(20);
    await h.stop();
  });

  test("an aggregation and arithmetic reach the server intact (form-encoded POST)", async () => {
    const h = await promqlNode({ baseURL: `${vmUrl}/` });
    await h.send("request", { query: "sum(http_requests_total) by (job) + 1" });
    expect((h.emitted[0]!.data as { series: Series[] }).series).toEqual([{ labels: { job: "api" }, value: 61 }]);
    await h.stop();
  });

  test("a range query returns the points oldest first and the newest as value", async () => {
    const h = await promqlNode({ baseURL: vmUrl });
    await h.send("request", { query: 'http_requests_total{pod="api-1"}', rangeMinutes: 10, stepSeconds: 60 });
    const [s] = (h.emitted[0]!.data as { series: Series[] }).series;
    expect(s!.points!.length).toBeGreaterThanOrEqual(5);
    const values = s!.points!.map((p) => p.value);
    expect(values.at(-1)).toBe(40);
    expect(s!.value).toBe(40);
    expect([...values].sort((a, b) => a! - b!)).toEqual(values); // a counter only grows
    for (const p of s!.points!) expect(p.at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    await h.stop();
  });

  test("a query that does not parse is the server's 400: permanent, on the error port with the context", async () => {
    const h = await promqlNode({ baseURL: vmUrl, enableErrorPort: true });
    await h.send("request", { context: "c1", query: "sum(" });
    const e = h.emitted[0]!;
    expect(e.port).toBe("error");
    expect(e.data).toMatchObject({ context: "c1", retryable: false });
    expect((e.data as { error: string }).error).toMatch(/^metrics API 400: \{"status":"error"/);
    await h.stop();
  });

  test("without the error port the failure fails the hop; an unreachable server is retryable", async () => {
    const h = await promqlNode({ baseURL: `http://127.0.0.1:${freePort()}` });
    const r = await h.send("request", { query: "up" });
    expect(r.kind).toBe("fail");
    if (r.kind === "fail") {
      expect(r.error.message).toContain("query http://127.0.0.1:");
      expect(isRetryable(r.error)).toBe(true);
    }
    await h.stop();
  });
});

// ---- logql_query over the recorded Loki API fixture ---------------------------------------------

const FIXTURE = resolve(import.meta.dir, "../fixtures/loki-api");
const seen: { url: string; method: string; headers: Headers }[] = [];
let loki: ReturnType<typeof Bun.serve> | undefined;

beforeAll(() => {
  loki = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(req) {
      seen.push({ url: req.url, method: req.method, headers: req.headers });
      const q = new URL(req.url).searchParams.get("query") ?? "";
      if (q.startsWith("count_over_time")) return new Response(Bun.file(join(FIXTURE, "matrix.json")), { headers: { "content-type": "application/json" } });
      if (!q.startsWith("{"))
        return new Response(Bun.file(join(FIXTURE, "parse-error.txt")), { status: 400, headers: { "content-type": "text/plain; charset=utf-8" } });
      return new Response(Bun.file(join(FIXTURE, "streams.json")), { headers: { "content-type": "application/json" } });
    },
  });
});

afterAll(() => loki?.stop(true));

describe("logql_query against the recorded Loki query_range responses", () => {
  test("sends Loki's query_range request and merges the streams' lines newest first", async () => {
    const h = await testComponent(logql, {
      settings: { baseURL: `http://127.0.0.1:${loki!.port}/`, orgID: "tenant-1", timeoutSeconds: 5, headers: [{ key: "X-Extra", value: "1" }] },
    });
    seen.length = 0;
    const before = BigInt(Date.now()) * 1_000_000n;
    await h.send("request", {
      context: { why: "errors" },
      query: '{namespace="prod"} |= "error"',
      rangeMinutes: 15,
      limit: 100,
      token: "t0k",
      username: "12345",
    });
    const req = seen[0]!;
    const url = new URL(req.url);
    expect(req.method).toBe("GET");
    expect(url.pathname).toBe("/loki/api/v1/query_range");
    expect([...url.searchParams.keys()]).toEqual(["direction", "end", "limit", "query", "start"]);
    expect(url.searchParams.get("direction")).toBe("backward");
    expect(url.searchParams.get("limit")).toBe("100");
    expect(url.searchParams.get("query")).toBe('{namespace="prod"} |= "error"');
    const end = BigInt(url.searchParams.get("end")!);
    expect(end >= before).toBe(true);
    expect(end - BigInt(url.searchParams.get("start")!)).toBe(15n * 60n * 1_000_000_000n);
    expect(req.headers.get("authorization")).toBe("Basic " + Buffer.from("12345:t0k").toString("base64"));
    expect(req.headers.get("x-scope-orgid")).toBe("tenant-1");
    expect(req.headers.get("x-extra")).toBe("1");
    const out = h.emitted[0]!.data as {
      context: unknown;
      entries: { at: string; line: string; labels: Record<string, string> }[];
      count: number;
      truncated: boolean;
    };
    expect(out.context).toEqual({ why: "errors" });
    expect(out.entries.map((e) => [e.at, e.labels.pod])).toEqual([
      ["2026-07-25T17:20:30Z", "api-1"],
      ["2026-07-25T17:20:20Z", "api-2"],
      ["2026-07-25T17:20:10Z", "api-1"],
      ["2026-07-25T17:20:00Z", "api-2"],
    ]);
    expect(out.entries[0]).toMatchObject({
      line: 'level=error msg="upstream timeout" route=/orders',
      labels: { namespace: "prod", pod: "api-1", container: "api" },
    });
    expect(out.count).toBe(4);
    expect(out.truncated).toBe(false);
    await h.stop();
  });

  test("a token alone is sent as Bearer; the limit defaults to 500 and 60 minutes; reaching the limit is truncated", async () => {
    const h = await testComponent(logql, { settings: { baseURL: `http://127.0.0.1:${loki!.port}`, timeoutSeconds: 5 } });
    seen.length = 0;
    await h.send("request", { query: '{job="x"}', token: "abc", limit: 9999 });
    const url = new URL(seen[0]!.url);
    expect(seen[0]!.headers.get("authorization")).toBe("Bearer abc");
    expect(url.searchParams.get("limit")).toBe("500");
    expect(BigInt(url.searchParams.get("end")!) - BigInt(url.searchParams.get("start")!)).toBe(60n * 60n * 1_000_000_000n);
    seen.length = 0;
    await h.send("request", { query: '{job="x"}', limit: 4 });
    expect((h.emitted.at(-1)!.data as { truncated: boolean }).truncated).toBe(true);
    await h.stop();
  });

  test("Loki's 400 for a query that does not parse is permanent, with its text", async () => {
    const h = await testComponent(logql, { settings: { baseURL: `http://127.0.0.1:${loki!.port}`, timeoutSeconds: 5, enableErrorPort: true } });
    await h.send("request", { context: 7, query: "not a selector" });
    expect(h.emitted[0]).toEqual({
      port: "error",
      data: { context: 7, error: "loki 400: parse error at line 1, col 1: syntax error: unexpected IDENTIFIER", retryable: false },
    });
    await h.stop();
  });

  test("a metric query's matrix answer fails saying so, instead of an empty or garbled result", async () => {
    const h = await testComponent(logql, { settings: { baseURL: `http://127.0.0.1:${loki!.port}`, timeoutSeconds: 5 } });
    const r = await h.send("request", { query: 'count_over_time({job="x"}[1m])' });
    expect(r.kind === "fail" && r.error.message).toContain("loki returned a matrix result: this is a metric query");
    await h.stop();
  });
});
