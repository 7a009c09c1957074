import { describe, expect, test } from "bun:test";
import { cgroupMemoryLimit, MemoryGovernor, parseMemoryQuantity, softMemoryLimit } from "../../../src/operator/memory-governor.ts";

const Mi = 1024 * 1024;

describe("memory governor", () => {
  test("collects only above the soft limit, at most once per gap", () => {
    let rss = 50 * Mi;
    let t = 0;
    let collected = 0;
    const g = new MemoryGovernor({ limitBytes: 96 * Mi, rss: () => rss, now: () => t, collect: () => void collected++, minGapMs: 2_000 });
    expect(g.check()).toBe(false);
    rss = 120 * Mi;
    expect(g.check()).toBe(true);
    t = 1_000;
    expect(g.check()).toBe(false); // live memory over the limit must not collect in a loop
    t = 2_000;
    expect(g.check()).toBe(true);
    rss = 90 * Mi;
    t = 10_000;
    expect(g.check()).toBe(false);
    expect(collected).toBe(2);
    expect(g.collections).toBe(2);
  });

  test("the soft limit: env quantity, off, else 75 % of the cgroup limit, else none", () => {
    expect(softMemoryLimit({ TINYHOST_MEMORY_SOFT_LIMIT: "96Mi" }, () => 1)).toBe(96 * Mi);
    expect(softMemoryLimit({ TINYHOST_MEMORY_SOFT_LIMIT: "100000000" }, () => 1)).toBe(100_000_000);
    expect(softMemoryLimit({ TINYHOST_MEMORY_SOFT_LIMIT: "off" }, () => 128 * Mi)).toBeUndefined();
    expect(softMemoryLimit({}, () => 128 * Mi)).toBe(96 * Mi);
    expect(softMemoryLimit({}, () => undefined)).toBeUndefined();
    expect(() => softMemoryLimit({ TINYHOST_MEMORY_SOFT_LIMIT: "lots" })).toThrow(/TINYHOST_MEMORY_SOFT_LIMIT="lots"/);
    expect(parseMemoryQuantity("1.5Gi")).toBe(1.5 * 1024 * Mi);
  });

  test("cgroup v2 max and v1's unlimited sentinel are no limit; a number is", () => {
    const files = (m: Record<string, string>) => (p: string) => {
      if (!(p in m)) throw new Error("ENOENT");
      return m[p]!;
    };
    expect(cgroupMemoryLimit(files({ "/sys/fs/cgroup/memory.max": "134217728\n" }))).toBe(128 * Mi);
    expect(cgroupMemoryLimit(files({ "/sys/fs/cgroup/memory.max": "max\n" }))).toBeUndefined();
    expect(cgroupMemoryLimit(files({ "/sys/fs/cgroup/memory/memory.limit_in_bytes": "9223372036854771712" }))).toBeUndefined();
    expect(cgroupMemoryLimit(files({ "/sys/fs/cgroup/memory/memory.limit_in_bytes": "268435456" }))).toBe(256 * Mi);
    expect(cgroupMemoryLimit(files({}))).toBeUndefined();
  });
});
