/**
 * flow_telemetry against the platform's real trace collector (github.com/tiny-systems/otel-collector,
 * built from the Go module proxy as the test/go tool `otel-collector`): tinyhost's own tracing
 * exports a flow's hop spans to it over OTLP/gRPC (`OTLP_DSN`, as in a cluster), then the component
 * lists the flow's runs through the collector's StatisticsService, finds the failed one with
 * `errorsOnly`, and reads that run's hops with `traceId`.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { isRetryable, testComponent, type ComponentHarness } from "tinyhost";
import telemetry, { type TelemetrySelf } from "../../components/flow_telemetry.ts";
import { Scheduler } from "../../src/runtime/scheduler/index.ts";
import { setupTracing, type TracingHandle } from "../../src/telemetry/tracing.ts";
import { flaky, makeNode, MODULE, nodeName, relay } from "../support/fake-components.ts";
import { goTool } from "../support/go-tools.ts";
import { freePort, startProcess, waitUntil, type ManagedProcess } from "../support/process.ts";

process.env.TINYHOST_LOG_LEVEL ??= "silent";

const PROJECT = "telemetry-proj";
const FLOW = "telemetry-flow";
let collector: ManagedProcess | undefined;
let dir = "";
let address = "";
let tracing: TracingHandle | undefined;
let scheduler: Scheduler | undefined;

beforeAll(async () => {
  const bin = await goTool("otel-collector");
  dir = mkdtempSync(join(tmpdir(), "tinyhost-otelcol-"));
  const port = freePort();
  address = `127.0.0.1:${port}`;
  // The collector reads ./config.yaml (viper); memory kept small for a test.
  writeFileSync(
    join(dir, "config.yaml"),
    `debug: false\ngrpc_listen_address: ${address}\nmetrics_storage_max_memory_mb: 16\ntraces_storage_max_memory_mb: 16\npoints_per_metric: 60\n`,
  );
  collector = startProcess({ name: "otel-collector", cmd: [bin, "run"], cwd: dir, logFile: join(dir, "collector.log") });
  await waitUntil(
    "the collector to listen",
    async () => {
      const s = await Bun.connect({ hostname: "127.0.0.1", port, socket: { data() {} } });
      s.end();
      return true;
    },
    30_000,
  );

  tracing = await setupTracing({ serviceName: "tinyhost-telemetry-test", env: { OTLP_DSN: `http://token@${address}` } });
  // A flow of this project: a → b (relay) and a → c (flaky, fails once with a permanent error).
  scheduler = new Scheduler({ module: MODULE, debounceMs: 5, readyTimeoutMs: 100 });
  for (const d of [relay, flaky]) scheduler.install(d);
  const labels = { "tinysystems.io/flow-name": FLOW, "tinysystems.io/project-name": PROJECT };
  await scheduler.update(makeNode("a", "relay", { labels, edges: [{ port: "out", to: "b:in", id: "e-ab" }] }));
  await scheduler.update(makeNode("b", "relay", { labels, ports: [{ from: "a:out", port: "in", config: { context: "{{$.context}}" } }] }));
  await scheduler.update(makeNode("c", "flaky", { labels }));
  const send = (to: string, data: unknown) => scheduler!.handle({ edgeId: "", from: "signal", to, data, depth: 0 });
  expect((await send(`${nodeName("a")}:in`, { context: { ok: 1 } })).kind).not.toBe("fail");
  expect((await send(`${nodeName("c")}:in`, { kind: "permanent", failTimes: 1 })).kind).toBe("fail");
  await tracing.flush();
}, 600_000);

afterAll(async () => {
  await scheduler?.stopAll();
  await tracing?.shutdown();
  await collector?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

async function node(settings: Record<string, unknown> = {}): Promise<ComponentHarness> {
  const h = await testComponent(telemetry, { settings: { otelService: "tinysystems-otel-collector", otelPort: 2345, ...settings } });
  // In a cluster the address is <service>.<namespace>.svc.cluster.local:<port>; here, the local collector.
  (h.self as TelemetrySelf).address = () => address;
  return h;
}

type Listed = {
  traces: { id: string; spans: number; errors: number; durationMs: number; startedAt: string }[];
  total: number;
  errorTraces: number;
  scanned: number;
  truncated: boolean;
};

describe("flow_telemetry against the platform's otel-collector", () => {
  test("lists the project's runs, and errorsOnly finds the failed one", async () => {
    const h = await node();
    let listed: Listed | undefined;
    await waitUntil(
      "both runs in the collector",
      async () => {
        h.emitted.length = 0;
        const r = await h.send("request", { context: "q", project: PROJECT, flow: FLOW });
        if (r.kind === "fail") throw r.error;
        listed = h.emitted[0]!.data as Listed;
        return listed.traces.length >= 2;
      },
      30_000,
      250,
    );
    expect(listed!).toMatchObject({ total: 2, scanned: 2, errorTraces: 1, truncated: false });
    for (const t of listed!.traces) {
      expect(t.id).toMatch(/^[0-9a-f]{32}$/);
      expect(t.startedAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
      expect(Math.abs(Date.parse(t.startedAt) - Date.now())).toBeLessThan(10 * 60_000);
    }
    h.emitted.length = 0;
    await h.send("request", { project: PROJECT, flow: FLOW, errorsOnly: true });
    const failed = h.emitted[0]!.data as Listed;
    expect(failed.traces).toHaveLength(1);
    expect(failed.traces[0]!.errors).toBeGreaterThan(0);
    expect(failed.errorTraces).toBe(1);
    h.emitted.length = 0;
    await h.send("request", { project: "some-other-project", flow: FLOW });
    expect(h.emitted[0]!.data).toMatchObject({ traces: [], total: 0, scanned: 0 });
    // This collector version (v0.5.1, the one the Go module proxy serves) wants a flow; its refusal
    // reaches the flow as Go's component passes it on (retryable, as every collector error).
    const all = await h.send("request", { project: PROJECT });
    expect(all.kind === "fail" && all.error.message).toBe("list traces: GetTraces: no flow id provided");
    await h.stop();
  }, 60_000);

  test("with a traceId, returns that run's hops with the port each came from and went to", async () => {
    const h = await node();
    await h.send("request", { project: PROJECT, flow: FLOW, errorsOnly: false });
    const ok = (h.emitted[0]!.data as Listed).traces.find((t) => t.errors === 0)!;
    h.emitted.length = 0;
    await h.send("request", { context: { run: 1 }, project: PROJECT, traceId: ok.id });
    const out = h.emitted[0]!.data as {
      context: unknown;
      traces: unknown[];
      spans: { id: string; name: string; from?: string; to?: string; durationMs: number }[];
    };
    expect(out.context).toEqual({ run: 1 });
    expect(out.traces).toEqual([]);
    expect(out.spans.length).toBeGreaterThanOrEqual(2);
    for (const s of out.spans) expect(s.id).toMatch(/^[0-9a-f]{16}$/);
    expect(out.spans.map((s) => s.to).filter(Boolean)).toContain(`${nodeName("b")}:in`);
    expect(out.spans.some((s) => s.from === `${nodeName("a")}:out` && s.to === `${nodeName("b")}:in`)).toBe(true);
    await h.stop();
  }, 60_000);

  test("an unreachable collector is a retryable failure; on the error port with the context", async () => {
    const h = await node({ enableErrorPort: true });
    (h.self as TelemetrySelf).address = () => `127.0.0.1:${freePort()}`;
    await h.send("request", { context: "c", project: PROJECT, flow: FLOW });
    expect(h.emitted[0]).toMatchObject({ port: "error", data: { context: "c", retryable: true } });
    expect((h.emitted[0]!.data as { error: string }).error).toStartWith("list traces: GetTraces:");
    await h.stop();
    const plain = await node();
    (plain.self as TelemetrySelf).address = () => `127.0.0.1:${freePort()}`;
    const r = await plain.send("request", { project: PROJECT });
    expect(r.kind === "fail" && isRetryable(r.error)).toBe(true);
    await plain.stop();
  }, 60_000);
});
