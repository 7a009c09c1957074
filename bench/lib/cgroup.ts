/**
 * A memory cgroup for one module process, so a benchmark runs it the way a pod runs it: the
 * kernel enforces the limit exactly as the kubelet's cgroup does (reclaims page cache, counts
 * anonymous memory, OOM-kills above the limit). cgroup v1 (`memory.limit_in_bytes`) or v2
 * (`memory.max`), whichever carries the memory controller here (cgroups(7); the kernel's
 * Documentation/admin-guide/cgroup-v1/memory.rst and cgroup-v2.rst name the files read below).
 *
 * Where: v1 — a child of this process's own memory cgroup (`/proc/self/cgroup`), so the module
 * stays inside whatever accounts for this process; v2 — a sibling of it (v2 forbids processes in a
 * cgroup whose controllers are delegated to children), or a child of the root when this process is
 * in the root. The child is put in the cgroup before it execs ({@link MemoryCgroup.wrap}), so
 * every page it touches from its first instruction is charged there.
 */
import { existsSync, mkdirSync, readFileSync, rmdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";

/** Where the hierarchies are mounted on a systemd-style layout (hybrid v1 or unified v2). */
const ROOT = "/sys/fs/cgroup";

/** What a cgroup counted, bytes unless named otherwise; NaN where the kernel has no such file. */
export interface CgroupStats {
  /** Now: v1 `memory.usage_in_bytes`, v2 `memory.current`. */
  usage: number;
  /** High-water mark: v1 `memory.max_usage_in_bytes`, v2 `memory.peak` (kernel ≥ 5.19). */
  peak: number;
  /** Anonymous memory: `memory.stat` v1 `rss`, v2 `anon`. */
  anon: number;
  /** Page cache: `memory.stat` v1 `cache`, v2 `file`. */
  file: number;
  /** Page cache mapped into a process (the binary's code among it): `memory.stat` v1 `mapped_file`, v2 `file_mapped`. */
  mappedFile: number;
  /** Shared memory and tmpfs pages (counted as page cache, but not reclaimable without swap): `memory.stat` `shmem`. */
  shmem: number;
  /** Times the usage hit the limit: v1 `memory.failcnt`, v2 `memory.events` `max`. */
  limitHits: number;
  /** Processes the kernel killed for this cgroup: v1 `memory.oom_control` `oom_kill`, v2 `memory.events` `oom_kill`. */
  oomKills: number;
}

/** One created cgroup. */
export interface MemoryCgroup {
  readonly version: 1 | 2;
  /** Its directory. */
  readonly dir: string;
  readonly limitBytes: number;
  /** argv that joins the cgroup, then execs `argv` (same pid: the spawned process is the module). */
  wrap(argv: readonly string[]): string[];
  /** Current usage only (cheap: one file). */
  usage(): number;
  stats(): CgroupStats;
  /** Removes the directory; retries while the last process is still leaving. Never throws. */
  remove(): Promise<void>;
}

/** Where a memory cgroup can be made, or why not. */
export type CgroupSupport = { version: 1 | 2; parent: string } | { reason: string };

const read = (p: string) => readFileSync(p, "utf8");
const num = (p: string) => {
  try {
    return Number(read(p).trim());
  } catch {
    return Number.NaN;
  }
};
/** `key value` lines (memory.stat, memory.events, memory.oom_control) → a record. */
function keyed(p: string): Record<string, number> {
  try {
    return Object.fromEntries(
      read(p)
        .trim()
        .split("\n")
        .map((l) => {
          const [k, v] = l.split(/\s+/);
          return [k!, Number(v)];
        }),
    );
  } catch {
    return {};
  }
}

/** Probes whether this process may create a memory cgroup (root, writable mount, controller present). */
export function cgroupSupport(): CgroupSupport {
  let self: string;
  try {
    self = read("/proc/self/cgroup");
  } catch {
    return { reason: "no /proc/self/cgroup (not Linux)" };
  }
  const v1 = /^\d+:(?:[^:]*,)?memory(?:,[^:]*)?:(.*)$/m.exec(self)?.[1];
  const v2 = /^0::(.*)$/m.exec(self)?.[1];
  let parent: string | undefined;
  let version: 1 | 2 | undefined;
  if (v1 !== undefined && existsSync(join(ROOT, "memory", v1, "memory.limit_in_bytes"))) {
    [version, parent] = [1, join(ROOT, "memory", v1)];
  } else if (v2 !== undefined && existsSync(join(ROOT, "cgroup.controllers"))) {
    const at = v2 === "/" ? ROOT : join(ROOT, dirname(v2));
    let delegated = "";
    try {
      delegated = at === ROOT ? read(join(ROOT, "cgroup.controllers")) : read(join(at, "cgroup.subtree_control"));
    } catch {
      // unreadable: not delegated
    }
    if (!delegated.split(/\s+/).includes("memory")) return { reason: `cgroup v2 at ${at} does not delegate the memory controller` };
    [version, parent] = [2, at];
  } else return { reason: "no cgroup memory controller mounted under /sys/fs/cgroup" };
  // Writable: make and remove a probe directory (root inside a container may still see a read-only mount).
  const probe = join(parent, `tinyhost-probe-${process.pid}`);
  try {
    mkdirSync(probe);
    rmdirSync(probe);
  } catch (err) {
    return { reason: `cannot create a cgroup under ${parent}: ${(err as Error).message}` };
  }
  return { version, parent };
}

/** Directories made and not yet removed: removed at exit if a failure skipped {@link MemoryCgroup.remove}. */
const live = new Set<string>();
process.on("exit", () => {
  for (const d of live) {
    try {
      rmdirSync(d);
    } catch {
      // a process still inside: nothing more can be done synchronously
    }
  }
});

/**
 * Creates `<parent>/<name>` with memory limit `limitBytes` (swap, if any, left as the parent's).
 * @throws Error naming the file when the kernel refuses a write.
 */
export function createMemoryCgroup(s: { version: 1 | 2; parent: string }, name: string, limitBytes: number): MemoryCgroup {
  const dir = join(s.parent, name);
  mkdirSync(dir);
  live.add(dir);
  const v1 = s.version === 1;
  const f = (file: string) => join(dir, file);
  try {
    writeFileSync(f(v1 ? "memory.limit_in_bytes" : "memory.max"), String(limitBytes));
  } catch (err) {
    rmdirSync(dir);
    live.delete(dir);
    throw new Error(`writing ${f(v1 ? "memory.limit_in_bytes" : "memory.max")}=${limitBytes}: ${(err as Error).message}`);
  }
  return {
    version: s.version,
    dir,
    limitBytes,
    wrap: (argv) => ["sh", "-c", 'echo $$ > "$0/cgroup.procs" && exec "$@"', dir, ...argv],
    usage: () => num(f(v1 ? "memory.usage_in_bytes" : "memory.current")),
    stats(): CgroupStats {
      const stat = keyed(f("memory.stat"));
      const events = v1 ? {} : keyed(f("memory.events"));
      return {
        usage: num(f(v1 ? "memory.usage_in_bytes" : "memory.current")),
        peak: num(f(v1 ? "memory.max_usage_in_bytes" : "memory.peak")),
        anon: (v1 ? stat.rss : stat.anon) ?? Number.NaN,
        file: (v1 ? stat.cache : stat.file) ?? Number.NaN,
        mappedFile: (v1 ? stat.mapped_file : stat.file_mapped) ?? Number.NaN,
        shmem: stat.shmem ?? Number.NaN,
        limitHits: v1 ? num(f("memory.failcnt")) : (events.max ?? Number.NaN),
        oomKills: (v1 ? keyed(f("memory.oom_control")).oom_kill : events.oom_kill) ?? Number.NaN,
      };
    },
    async remove() {
      for (let i = 0; i < 50; i++) {
        try {
          rmdirSync(dir);
          live.delete(dir);
          return;
        } catch (err) {
          if ((err as NodeJS.ErrnoException).code === "ENOENT") return void live.delete(dir);
          await Bun.sleep(100);
        }
      }
      console.error(`[cgroup] could not remove ${dir} (a process still inside?)`);
    },
  };
}

/**
 * Drops `file`'s pages from the page cache (`dd iflag=nocache count=0`: POSIX_FADV_DONTNEED over
 * the whole file; pages a running process maps stay). A page already cached was charged to the
 * cgroup that read it first, so without this the module's binary would be free in its cgroup.
 * @returns the file's resident bytes after the drop per `fincore`, or NaN without fincore.
 */
export function dropPageCache(file: string): number {
  const dd = Bun.spawnSync(["dd", `if=${file}`, "iflag=nocache", "count=0", "status=none"], { stderr: "pipe" });
  if (dd.exitCode !== 0) throw new Error(`dd iflag=nocache on ${file} failed: ${dd.stderr.toString().trim()}`);
  try {
    const r = Bun.spawnSync(["fincore", "--bytes", "--noheadings", "--output", "RES", file], { stdout: "pipe", stderr: "pipe" });
    return r.exitCode === 0 ? Number(r.stdout.toString().trim()) : Number.NaN;
  } catch {
    return Number.NaN;
  }
}
