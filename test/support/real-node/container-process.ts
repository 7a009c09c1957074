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
function cgroupDir(controller: string, slot: number, containerId: string): string {
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
