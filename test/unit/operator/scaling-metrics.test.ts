/**
 * The /metrics series for scaling and for people (issue 36 item 4): the registry's histogram in the
 * Prometheus text format, and the module's per-component hops in flight and handler durations,
 * durable runs active, process start → first hop handled, and the JetStream business consumer's
 * backlog and redeliveries as the module sees them (src/operator/hop-meter.ts, src/operator/metrics.ts).
 */
import { describe, expect, test } from "bun:test";
import { MetricsRegistry } from "../../../src/telemetry/metrics.ts";
import { HopMeter, UNKNOWN_COMPONENT } from "../../../src/operator/hop-meter.ts";
import { moduleMetrics } from "../../../src/operator/metrics.ts";
import { empty, fail } from "../../../src/core/result.ts";
import type { Msg } from "../../../src/core/hop.ts";

const hop = (to: string, runId?: string): Msg => ({ edgeId: "e", from: "f.m.src-1:out", to, data: {}, depth: 1, ...(runId ? { runId } : {}) });

describe("histogram", () => {
  test("renders cumulative buckets with le, +Inf, _sum and _count per label set", () => {
    const r = new MetricsRegistry();
    const h = r.histogram("x_seconds", "X.", [0.1, 1]);
    h.observe({ c: "a" }, 0.05);
    h.observe({ c: "a" }, 0.5);
    h.observe({ c: "a" }, 7);
    expect(h.count({ c: "a" })).toBe(3);
    expect(r.render().split("\n")).toEqual([
      "# HELP x_seconds X.",
      "# TYPE x_seconds histogram",
      'x_seconds_bucket{c="a",le="0.1"} 1',
      'x_seconds_bucket{c="a",le="1"} 2',
      'x_seconds_bucket{c="a",le="+Inf"} 3',
      'x_seconds_sum{c="a"} 7.55',
      'x_seconds_count{c="a"} 3',
      "",
    ]);
    expect(() => r.histogram("y", "Y.", [1, 1])).toThrow("bucket bounds must ascend");
  });
});

describe("HopMeter", () => {
  test("counts in flight per component and durable runs while hops run; first hop time once one ended", async () => {
    let clock = 0;
    const meter = new HopMeter({ componentOf: (n) => (n === "f.m.transform-1" ? "transform" : undefined), now: () => clock, uptime: () => 4.25 });
    const seen: [string, number][] = [];
    meter.onDuration = (c, s) => seen.push([c, s]);
    const gates: (() => void)[] = [];
    const handler = meter.handler(() => new Promise((resolve) => gates.push(() => resolve(empty))));
    expect(meter.readings.firstHopSeconds).toBeUndefined();
    const a = handler(hop("f.m.transform-1:in", "run-1"));
    const b = handler(hop("f.m.transform-1:in", "run-1"));
    const c = handler(hop("f.m.gone-1:in"));
    expect(meter.readings.inFlight.get("transform")).toBe(2);
    expect(meter.readings.inFlight.get(UNKNOWN_COMPONENT)).toBe(1);
    expect(meter.readings.durableRunsActive).toBe(1);
    clock = 250;
    gates[0]!();
    await a;
    expect(meter.readings.durableRunsActive).toBe(1); // the run's other step still runs
    expect(meter.readings.firstHopSeconds).toBe(4.25);
    gates[1]!();
    gates[2]!();
    await Promise.all([b, c]);
    expect(meter.readings.durableRunsActive).toBe(0);
    expect(meter.readings.inFlight.get("transform")).toBe(0);
    expect(seen[0]).toEqual(["transform", 0.25]);
  });

  test("a handler that throws is a failed hop, still measured", async () => {
    const meter = new HopMeter({ componentOf: () => "x" });
    const r = await meter.handler(() => Promise.reject(new Error("boom")))(hop("f.m.x-1:in"));
    expect(r.kind).toBe("fail");
    expect(meter.readings.inFlight.get("x")).toBe(0);
    expect((await meter.handler(async () => fail(new Error("no")))(hop("bad address"))).kind).toBe("fail");
  });
});

describe("module /metrics", () => {
  test("exposes the per-component, run, cold-start and JetStream backlog series", async () => {
    const meter = new HopMeter({ componentOf: () => "transform", uptime: () => 1.5 });
    const r = moduleMetrics({
      controllers: [],
      isLeader: () => false,
      runners: () => 0,
      hopMeter: meter,
      jetstream: () => ({ consumers: [{ module: "shop", pending: 12, ackPending: 3 }], redeliveries: 2 }),
    });
    await meter.handler(async () => empty)(hop("f.shop.transform-1:in"));
    const text = r.render();
    expect(text).toContain('tinyhost_component_hops_in_flight{component="transform"} 0');
    expect(text).toContain('tinyhost_hop_duration_seconds_count{component="transform"} 1');
    expect(text).toContain("tinyhost_durable_runs_active 0");
    expect(text).toContain("tinyhost_first_hop_seconds 1.5");
    expect(text).toContain('tinyhost_consumer_pending{consumer="shop"} 12');
    expect(text).toContain('tinyhost_consumer_ack_pending{consumer="shop"} 3');
    expect(text).toContain("tinyhost_redeliveries_total 2");
  });
});
