import { describe, expect, test } from "bun:test";
import {
  anonResidentBytes,
  cgroupMemoryLimit,
  memoryGauge,
  MemoryGovernor,
  ownCgroupPaths,
  parseMemoryQuantity,
  softLimitSource,
  softMemoryLimit,
} from "../../../src/operator/memory-governor.ts";
import { moduleMetrics } from "../../../src/operator/metrics.ts";

const Mi = 1024 * 1024;
/** A reader over a fixed set of files; any other path throws as a missing file does. */
const files = (m: Record<string, string>) => (p: string) => {
  if (!(p in m)) throw new Error(`ENOENT ${p}`);
  return m[p]!;
};
const UNLIMITED_V1 = "9223372036854771712\n";

describe("memory governor", () => {
  test("collects only above the soft limit, at most once per gap", () => {
    let used = 50 * Mi;
    let t = 0;
    let collected = 0;
    const g = new MemoryGovernor({ limitBytes: 96 * Mi, gauge: () => used, now: () => t, collect: () => void collected++, minGapMs: 2_000 });
    expect(g.check()).toBe(false);
    used = 120 * Mi;
    expect(g.check()).toBe(true);
    t = 1_000;
    expect(g.check()).toBe(false); // live memory over the limit must not collect in a loop
    t = 2_000;
    expect(g.check()).toBe(true);
    used = 90 * Mi;
    t = 10_000;
    expect(g.check()).toBe(false);
    expect(collected).toBe(2);
    expect(g.collections).toBe(2);
    expect(g.limitBytes).toBe(96 * Mi);
  });

  test("the soft limit: env quantity, off, else 75 % of the cgroup limit, else none", () => {
    expect(softMemoryLimit({ TINYHOST_MEMORY_SOFT_LIMIT: "96Mi" }, () => 1)).toBe(96 * Mi);
    expect(softMemoryLimit({ TINYHOST_MEMORY_SOFT_LIMIT: "100000000" }, () => 1)).toBe(100_000_000);
    expect(softMemoryLimit({ TINYHOST_MEMORY_SOFT_LIMIT: "off" }, () => 128 * Mi)).toBeUndefined();
    expect(softMemoryLimit({}, () => 128 * Mi)).toBe(96 * Mi);
    expect(softMemoryLimit({}, () => undefined)).toBeUndefined();
    expect(() => softMemoryLimit({ TINYHOST_MEMORY_SOFT_LIMIT: "lots" })).toThrow(/TINYHOST_MEMORY_SOFT_LIMIT="lots"/);
    expect(
      [{ TINYHOST_MEMORY_SOFT_LIMIT: "96Mi" }, { TINYHOST_MEMORY_SOFT_LIMIT: "off" }, { TINYHOST_MEMORY_SOFT_LIMIT: " " }, {}].map(softLimitSource),
    ).toEqual(["env", "env", "cgroup", "cgroup"]);
    expect(parseMemoryQuantity("1.5Gi")).toBe(1.5 * 1024 * Mi);
  });

  test("cgroup v2 max and v1's unlimited sentinel are no limit; a number is (namespaced: own path /)", () => {
    const ns = { "/proc/self/cgroup": "0::/\n" };
    expect(cgroupMemoryLimit(files({ ...ns, "/sys/fs/cgroup/memory.max": "134217728\n" }))).toBe(128 * Mi);
    expect(cgroupMemoryLimit(files({ ...ns, "/sys/fs/cgroup/memory.max": "max\n" }))).toBeUndefined();
    expect(cgroupMemoryLimit(files({ "/sys/fs/cgroup/memory/memory.limit_in_bytes": UNLIMITED_V1 }))).toBeUndefined();
    expect(cgroupMemoryLimit(files({ "/sys/fs/cgroup/memory/memory.limit_in_bytes": "268435456" }))).toBe(256 * Mi);
    expect(cgroupMemoryLimit(files({}))).toBeUndefined();
  });

  test("cgroup v1 without a cgroup namespace: the limit of the process's own cgroup, not the host root's", () => {
    // What a v1 node without cgroup namespaces shows a container (and this bench's machine): the
    // mount is the host's tree, its root unlimited; /proc/self/cgroup names the process's cgroup.
    const own = "/kubepods/burstable/pod1234/abcd";
    const read = files({
      "/proc/self/cgroup": `12:pids:${own}\n4:memory:${own}\n3:cpu,cpuacct:${own}\n0::/\n`,
      "/sys/fs/cgroup/memory/memory.limit_in_bytes": UNLIMITED_V1,
      "/sys/fs/cgroup/memory/kubepods/memory.limit_in_bytes": UNLIMITED_V1,
      "/sys/fs/cgroup/memory/kubepods/burstable/memory.limit_in_bytes": UNLIMITED_V1,
      "/sys/fs/cgroup/memory/kubepods/burstable/pod1234/memory.limit_in_bytes": String(256 * Mi),
      [`/sys/fs/cgroup/memory${own}/memory.limit_in_bytes`]: String(128 * Mi),
    });
    expect(cgroupMemoryLimit(read)).toBe(128 * Mi);
    expect(softMemoryLimit({}, () => cgroupMemoryLimit(read))).toBe(96 * Mi);
  });

  test("an ancestor's smaller limit wins (the pod's over a container's), v1 and v2", () => {
    expect(
      cgroupMemoryLimit(
        files({
          "/proc/self/cgroup": "0::/pod/c1\n",
          "/sys/fs/cgroup/pod/c1/memory.max": "max\n",
          "/sys/fs/cgroup/pod/memory.max": String(100 * Mi),
        }),
      ),
    ).toBe(100 * Mi);
    expect(
      cgroupMemoryLimit(
        files({
          "/proc/self/cgroup": "4:memory:/pod/c1\n",
          "/sys/fs/cgroup/memory/pod/c1/memory.limit_in_bytes": String(128 * Mi),
          "/sys/fs/cgroup/memory/pod/memory.limit_in_bytes": String(100 * Mi),
          "/sys/fs/cgroup/memory/memory.limit_in_bytes": UNLIMITED_V1,
        }),
      ),
    ).toBe(100 * Mi);
  });

  test("a container whose own cgroup is mounted at the root while /proc/self/cgroup shows the host path", () => {
    // Docker on v1 without cgroupns: /sys/fs/cgroup/memory is the container's cgroup; the host path does not exist there.
    expect(
      cgroupMemoryLimit(
        files({
          "/proc/self/cgroup": "4:memory:/docker/0123abcd\n",
          "/sys/fs/cgroup/memory/memory.limit_in_bytes": String(128 * Mi),
        }),
      ),
    ).toBe(128 * Mi);
  });

  test("/proc/self/cgroup lines: v2's 0:: and v1's memory controller among others", () => {
    expect(ownCgroupPaths("9:name=systemd:/\n4:memory:/a/b\n2:cpu,cpuacct:/x\n0::/c\n")).toEqual({ v1: "/a/b", v2: "/c" });
    expect(ownCgroupPaths("0::/\n")).toEqual({ v2: "/" });
    expect(ownCgroupPaths("")).toEqual({});
  });

  test("the gauge: RssAnon by default, VmRSS on request, anything else refused by name", () => {
    expect(memoryGauge({})).toBe("anon");
    expect(memoryGauge({ TINYHOST_MEMORY_GAUGE: "rss" })).toBe("rss");
    expect(() => memoryGauge({ TINYHOST_MEMORY_GAUGE: "vmrss" })).toThrow(/TINYHOST_MEMORY_GAUGE="vmrss"/);
    const status = "Name:\ttinyhost\nVmRSS:\t  120000 kB\nRssAnon:\t   81500 kB\nRssFile:\t   38500 kB\n";
    expect(anonResidentBytes(files({ "/proc/self/status": status }))).toBe(81_500 * 1024);
    // Without /proc (macOS): the process's RSS, never 0 (which would switch the governor off silently).
    expect(anonResidentBytes(files({}))).toBeGreaterThan(0);
  });

  test("RssAnon of this process is below its VmRSS by the mapped files", () => {
    if (process.platform !== "linux") return;
    const anon = anonResidentBytes();
    expect(anon).toBeGreaterThan(0);
    expect(anon).toBeLessThan(process.memoryUsage.rss());
  });

  test("/metrics shows the soft limit and the collections when the governor is on, nothing when off", () => {
    const g = new MemoryGovernor({ limitBytes: 96 * Mi, gauge: () => 200 * Mi, now: () => 0, collect: () => {} });
    const base = { controllers: [], isLeader: () => false, runners: () => 0 };
    g.check();
    const text = moduleMetrics({ ...base, memoryGovernor: g }).render();
    expect(text).toContain(`tinyhost_memory_soft_limit_bytes ${96 * Mi}\n`);
    expect(text).toContain("tinyhost_memory_governor_collections_total 1\n");
    expect(moduleMetrics(base).render()).not.toContain("tinyhost_memory_");
  });
});
