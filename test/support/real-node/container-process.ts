/**
 * The kernel's view of a container on the real node (test/support/real-node/node.ts): its first
 * process, found through the cgroup the kubelet made for the container under the slot's
 * `tinyhost-node-<slot>` hierarchy (cgroup v1), with what /proc says of it and its memory cgroup.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";

/** A container's first process as the kernel sees it. */
export interface ContainerProcess {
  pid: number;
  /** /proc/<pid>/status, key → value (`Uid`, `CapEff`, `NoNewPrivs`, `Seccomp`, `VmRSS`, …). */
  status: Map<string, string>;
  /** The root filesystem is mounted read-only. */
  rootReadOnly: boolean;
  /** The memory cgroup's limit in bytes (undefined when the cgroup is not found). */
  memoryLimitBytes?: number;
  /** The memory cgroup's current usage in bytes (page cache included). */
  memoryUsageBytes?: number;
}

/** The cgroup directory named `containerId` under `/sys/fs/cgroup/<controller>/tinyhost-node-<slot>`, or "". */
export function cgroupDir(controller: string, slot: number, containerId: string): string {
  const find = Bun.spawnSync(["find", `/sys/fs/cgroup/${controller}/tinyhost-node-${slot}`, "-type", "d", "-name", containerId], {
    stdout: "pipe",
    stderr: "ignore",
  });
  return find.stdout.toString().trim().split("\n")[0] ?? "";
}

/**
 * The first process of container `containerId` (without its `containerd://` prefix) on slot `slot`.
 * @throws Error when the container has no pids cgroup (not running on this node).
 */
export function containerProcess(slot: number, containerId: string): ContainerProcess {
  const dir = cgroupDir("pids", slot, containerId);
  if (!dir || !existsSync(join(dir, "cgroup.procs"))) throw new Error(`no cgroup for container ${containerId}`);
  const pid = Number(readFileSync(join(dir, "cgroup.procs"), "utf8").trim().split("\n")[0]);
  const status = new Map<string, string>();
  for (const line of readFileSync(`/proc/${pid}/status`, "utf8").split("\n")) {
    const i = line.indexOf(":");
    if (i > 0) status.set(line.slice(0, i), line.slice(i + 1).trim());
  }
  const root = readFileSync(`/proc/${pid}/mountinfo`, "utf8")
    .split("\n")
    .find((l) => l.split(" ")[4] === "/");
  const memory = cgroupDir("memory", slot, containerId);
  const read = (file: string) => (memory && existsSync(join(memory, file)) ? Number(readFileSync(join(memory, file), "utf8").trim()) : undefined);
  return {
    pid,
    status,
    rootReadOnly: (root?.split(" ")[5] ?? "").split(",").includes("ro"),
    memoryLimitBytes: read("memory.limit_in_bytes"),
    memoryUsageBytes: read("memory.usage_in_bytes"),
  };
}

/** A container's CPU accounting and limit, from its cgroup v1 `cpuacct` and `cpu` directories (separate or co-mounted). */
export interface ContainerCpu {
  /** CPU time every process of the container used so far, ns (`cpuacct.usage`). */
  usageNs: number;
  /** CFS quota per period, µs (`cpu.cfs_quota_us`; -1 = no limit). A 500m limit is 50,000 of 100,000. */
  quotaUs: number;
  /** CFS period, µs (`cpu.cfs_period_us`). */
  periodUs: number;
  /** Periods in which the container ran out of quota (`cpu.stat` `nr_throttled`). */
  throttledPeriods: number;
  /** Time the container waited for the next period, ns (`cpu.stat` `throttled_time`). */
  throttledNs: number;
}

/**
 * Reads container `containerId`'s CPU cgroups on slot `slot` (the kernel's
 * Documentation/admin-guide/cgroup-v1/cpuacct.rst and scheduler/sched-bwc.rst name the files).
 * @returns a reader (cheap: a few small files per call).
 * @throws Error when the container has no `cpu,cpuacct` cgroup on this node.
 */
export function containerCpu(slot: number, containerId: string): () => ContainerCpu {
  const acct = cgroupDir("cpuacct", slot, containerId) || cgroupDir("cpu,cpuacct", slot, containerId);
  const cpu = cgroupDir("cpu", slot, containerId) || acct;
  if (!acct || !existsSync(join(acct, "cpuacct.usage"))) throw new Error(`no cpuacct cgroup for container ${containerId}`);
  if (!cpu || !existsSync(join(cpu, "cpu.cfs_quota_us"))) throw new Error(`no cpu cgroup for container ${containerId}`);
  const num = (dir: string, file: string) => Number(readFileSync(join(dir, file), "utf8").trim());
  return () => {
    const stat = new Map(
      readFileSync(join(cpu, "cpu.stat"), "utf8")
        .trim()
        .split("\n")
        .map((l) => l.split(" ") as [string, string]),
    );
    return {
      usageNs: num(acct, "cpuacct.usage"),
      quotaUs: num(cpu, "cpu.cfs_quota_us"),
      periodUs: num(cpu, "cpu.cfs_period_us"),
      throttledPeriods: Number(stat.get("nr_throttled") ?? Number.NaN),
      throttledNs: Number(stat.get("throttled_time") ?? Number.NaN),
    };
  };
}
