import { describe, expect, test } from "bun:test";
import { healthApp, parseBindAddress, BindAddressError } from "../../../src/server/index.ts";
import { MetricsRegistry } from "../../../src/telemetry/metrics.ts";

describe("health app", () => {
  test("/healthz answers 200 ok", async () => {
    const res = await healthApp({}).request("/healthz");
    expect(res.status).toBe(200);
    expect(await res.text()).toBe("ok");
  });

  test("/readyz is 200 when every check passes", async () => {
    const res = await healthApp({ readiness: { "node-cache": () => true, leader: () => true } }).request("/readyz");
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ status: "ok", checks: { "node-cache": "ok", leader: "ok" } });
  });

  test("/readyz is 503 with a JSON body naming each failing check and why", async () => {
    let synced = false;
    const app = healthApp({
      readiness: {
        "node-cache": () => (synced ? true : "TinyNode cache not synced yet"),
        transport: () => true,
        leader: () => {
          throw new Error("boom");
        },
      },
    });
    const res = await app.request("/readyz");
    expect(res.status).toBe(503);
    expect(await res.json()).toEqual({
      status: "not ready",
      checks: { "node-cache": "TinyNode cache not synced yet", transport: "ok", leader: "check threw: boom" },
    });
    synced = true;
    const again = await app.request("/readyz");
    expect(((await again.json()) as { checks: Record<string, string> }).checks["node-cache"]).toBe("ok");
  });

  test("/metrics serves the registry in Prometheus text format 0.0.4", async () => {
    const m = new MetricsRegistry();
    m.counter("tinyhost_test_total", "A test counter.").inc({ controller: "tinynode" }, 2);
    const res = await healthApp({ metrics: m }).request("/metrics");
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("text/plain; version=0.0.4; charset=utf-8");
    expect(await res.text()).toBe(
      '# HELP tinyhost_test_total A test counter.\n# TYPE tinyhost_test_total counter\ntinyhost_test_total{controller="tinynode"} 2\n',
    );
  });

  test("a metrics-only app has no probes", async () => {
    const res = await healthApp({ metrics: new MetricsRegistry(), probes: false }).request("/healthz");
    expect(res.status).toBe(404);
  });
});

describe("bind addresses", () => {
  test('Go-style addresses parse; an empty host means all interfaces; "0" disables', () => {
    expect(parseBindAddress(":8081")).toEqual({ hostname: "0.0.0.0", port: 8081 });
    expect(parseBindAddress("127.0.0.1:8080")).toEqual({ hostname: "127.0.0.1", port: 8080 });
    expect(parseBindAddress("[::1]:9000")).toEqual({ hostname: "::1", port: 9000 });
    expect(parseBindAddress("0")).toBeUndefined();
  });

  test("a malformed address is refused naming the flag and the value", () => {
    expect(() => parseBindAddress("8081", "--health-probe-bind-address")).toThrow(BindAddressError);
    expect(() => parseBindAddress(":70000", "--health-probe-bind-address")).toThrow('--health-probe-bind-address = ":70000"');
  });
});
