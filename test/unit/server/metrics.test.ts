import { describe, expect, test } from "bun:test";
import { MetricNameError, MetricsRegistry } from "../../../src/telemetry/metrics.ts";

describe("metrics registry", () => {
  test("counters and gauges render HELP, TYPE and one line per label set, in registration order", () => {
    const m = new MetricsRegistry();
    const c = m.counter("a_total", "Counts a.");
    c.inc({ k: "x" });
    c.inc({ k: "x" }, 2);
    c.inc({ k: "y" });
    const g = m.gauge("b", "Gauge b.");
    g.set({}, 5);
    g.dec({}, 2);
    expect(m.render()).toBe(
      ["# HELP a_total Counts a.", "# TYPE a_total counter", 'a_total{k="x"} 3', 'a_total{k="y"} 1', "# HELP b Gauge b.", "# TYPE b gauge", "b 3", ""].join(
        "\n",
      ),
    );
    expect(c.get({ k: "x" })).toBe(3);
  });

  test("label values and help text are escaped", () => {
    const m = new MetricsRegistry();
    m.counter("c_total", "Help with \\ and\nnewline").inc({ v: 'a"b\\c\nd' });
    expect(m.render()).toContain("# HELP c_total Help with \\\\ and\\nnewline");
    expect(m.render()).toContain('c_total{v="a\\"b\\\\c\\nd"} 1');
  });

  test("collectors are read at every scrape; one that throws contributes nothing", () => {
    const m = new MetricsRegistry();
    let depth = 1;
    m.collect("q_depth", "Depth.", "gauge", () => [{ labels: { name: "n" }, value: depth }]);
    m.collect("broken", "Broken.", "gauge", () => {
      throw new Error("x");
    });
    expect(m.render()).toContain('q_depth{name="n"} 1');
    depth = 7;
    expect(m.render()).toContain('q_depth{name="n"} 7');
    expect(m.render()).toContain("# TYPE broken gauge\n");
  });

  test("invalid names and negative counter increments are refused", () => {
    const m = new MetricsRegistry();
    expect(() => m.counter("bad-name", "x")).toThrow(MetricNameError);
    expect(() => m.counter("ok_total", "x").inc({ "bad-label": "v" })).toThrow(MetricNameError);
    expect(() => m.counter("ok2_total", "x").inc({}, -1)).toThrow(RangeError);
    m.gauge("dup", "x");
    expect(() => m.counter("dup", "x")).toThrow(MetricNameError);
  });
});
