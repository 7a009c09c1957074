/**
 * A soft memory limit for the module process (the role `GOMEMLIMIT` plays for a Go module).
 *
 * Why: Bun's collector knows nothing of the container's memory limit — it collects when the JS
 * heap has grown by a factor since the last collection, and mimalloc keeps freed pages for a while.
 * Under steady traffic the garbage between collections is what pushes memory over the chart's
 * 128Mi (bench/RESULTS.md "Memory governor"). So once a second the governor
 * reads the process's memory and, above the soft limit, runs a full collection (`Bun.gc(true)`:
 * JavaScriptCore, then mimalloc returns free pages), at most one per `minGapMs` so a process whose
 * LIVE memory is above the limit does not collect in a loop.
 *
 * What it reads (`TINYHOST_MEMORY_GAUGE`): `anon` (default) — resident anonymous memory,
 * `/proc/self/status` `RssAnon`: what a collection can shrink and what a cgroup limit cannot take
 * back (no swap in a pod), so what an OOM kill counts. `rss` — VmRSS, which also counts the mapped
 * binary's file pages (~37 MiB of the compiled binary under the image's env, ~46 MiB with JSC's
 * optimizing JIT tiers on); under a cgroup limit the kernel reclaims
 * those before it kills anything, and a collection cannot shrink them, so a VmRSS gauge collects
 * every `minGapMs` under traffic for nothing (docs/operations.md §8 has the measurement). Where
 * `/proc` is missing (macOS, local mode) both read `process.memoryUsage.rss()`.
 *
 * What it does not do: keep a pod out of page-cache thrash. A pod slows to a crawl, with no OOM
 * kill, once anon leaves too little room under the limit for the binary's ~35–40 MiB of pages in use.
 * Under 128Mi that happens at ~85 MiB of anon, below the 96Mi soft limit, and collections run
 * late there. JavaScriptCore's own cadence (`BUN_JSC_forceRAMSize`) is what keeps anon low enough
 * (docs/operations.md §8, "In a pod").
 *
 * The limit: `TINYHOST_MEMORY_SOFT_LIMIT` (bytes, or a Kubernetes quantity such as `96Mi`; `0` or
 * `off` disables), else 75 % of the process's own cgroup memory limit (v2 `memory.max`, v1
 * `memory.limit_in_bytes`; the least of its cgroup and their ancestors, found through
 * `/proc/self/cgroup`), else none (no container limit: nothing to stay under).
 */
import { readFileSync } from "node:fs";
import { sleepUnlessAborted } from "../core/abortable-sleep.ts";
import { TinyError } from "../core/errors.ts";

/** Share of the cgroup limit used as the soft limit when the env does not set one. */
export const CGROUP_SHARE = 0.75;
/** How often memory is read, ms. */
export const CHECK_PERIOD_MS = 1_000;
/** Least time between two collections, ms. */
export const MIN_GAP_MS = 2_000;
/** Where the cgroup hierarchies are mounted (v2: the unified tree; v1: one directory per controller, `memory/`). */
export const CGROUP_ROOT = "/sys/fs/cgroup";

const UNITS: Record<string, number> = { "": 1, Ki: 1024, Mi: 1024 ** 2, Gi: 1024 ** 3, K: 1e3, M: 1e6, G: 1e9 };

/** Reads a file as text; throws when it is missing. Injected by tests. */
export type ReadText = (path: string) => string;
const readText: ReadText = (p) => readFileSync(p, "utf8");

/** `TINYHOST_MEMORY_SOFT_LIMIT` is not a byte count or quantity. code `"BAD_MEMORY_LIMIT"`. */
export class MemoryLimitError extends TinyError {
  constructor(value: string) {
    super("BAD_MEMORY_LIMIT", `TINYHOST_MEMORY_SOFT_LIMIT=${JSON.stringify(value)}: expected bytes or a quantity like 96Mi (Ki, Mi, Gi, K, M, G), or "off"`);
  }
}

/** `TINYHOST_MEMORY_GAUGE` is neither `anon` nor `rss`. code `"BAD_MEMORY_GAUGE"`. */
export class MemoryGaugeError extends TinyError {
  constructor(value: string) {
    super("BAD_MEMORY_GAUGE", `TINYHOST_MEMORY_GAUGE=${JSON.stringify(value)}: expected "anon" (resident anonymous memory, the default) or "rss" (VmRSS)`);
  }
}

/** Parses bytes or a Kubernetes memory quantity (`96Mi`, `128M`). @throws MemoryLimitError. */
export function parseMemoryQuantity(value: string): number {
  const m = /^(\d+(?:\.\d+)?)(Ki|Mi|Gi|K|M|G)?$/.exec(value.trim());
  if (!m) throw new MemoryLimitError(value);
  return Math.floor(Number(m[1]) * UNITS[m[2] ?? ""]!);
}

/** One limit file's value in bytes, or undefined (missing, `max`, or v1's ~2^63 "unlimited" sentinel). */
function limitFile(read: ReadText, path: string): number | undefined {
  let text: string;
  try {
    text = read(path).trim();
  } catch {
    return undefined;
  }
  const n = Number(text);
  return Number.isFinite(n) && n > 0 && n < 2 ** 60 ? n : undefined;
}

/**
 * The process's own cgroup paths from `/proc/self/cgroup` (cgroups(7): `id:controllers:path`):
 * `v2` from the `0::path` line, `v1` from the line whose controllers include `memory`.
 */
export function ownCgroupPaths(text: string): { v1?: string; v2?: string } {
  const out: { v1?: string; v2?: string } = {};
  for (const line of text.split("\n")) {
    const m = /^(\d+):([^:]*):(.*)$/.exec(line.trim());
    if (!m) continue;
    if (m[1] === "0" && m[2] === "") out.v2 = m[3]!;
    else if (m[2]!.split(",").includes("memory")) out.v1 = m[3]!;
  }
  return out;
}

/** `dir` and its ancestors up to `mount` (inclusive), deepest first. */
function selfAndAncestors(mount: string, path: string): string[] {
  const parts = path.split("/").filter((p) => p !== "" && p !== "." && p !== "..");
  const dirs: string[] = [];
  for (let n = parts.length; n >= 0; n--) dirs.push([mount, ...parts.slice(0, n)].join("/"));
  return dirs;
}

/**
 * The least limit in `file` over the process's cgroup and its ancestors under `mount`. Inside a
 * cgroup namespace (a pod on cgroup v2) the process's path is `/` and the mount root is its own
 * cgroup; without one (cgroup v1 nodes, Docker without `--cgroupns=private`) the mount root is
 * the host's root — unlimited — and the limit is in the directory `/proc/self/cgroup` names. A
 * container runtime that mounts its own cgroup at the root while `/proc/self/cgroup` shows the
 * host path has no such directory: the root's file, which is then the container's, decides.
 */
function leastLimit(read: ReadText, mount: string, path: string | undefined, file: string): number | undefined {
  let least: number | undefined;
  for (const dir of selfAndAncestors(mount, path ?? "/")) {
    const n = limitFile(read, `${dir}/${file}`);
    if (n !== undefined && (least === undefined || n < least)) least = n;
  }
  return least;
}

/**
 * The memory limit of the process's cgroup in bytes, or undefined when there is none: cgroup v2
 * (`<root>/<own path>/memory.max` and its ancestors') first, then v1
 * (`<root>/memory/<own path>/memory.limit_in_bytes` and its ancestors'), the least value found.
 * Reading only `<root>/memory/memory.limit_in_bytes` would read the host's root cgroup on a v1
 * node without cgroup namespaces — no limit, governor off.
 */
export function cgroupMemoryLimit(read: ReadText = readText, root = CGROUP_ROOT): number | undefined {
  let own: { v1?: string; v2?: string } = {};
  try {
    own = ownCgroupPaths(read("/proc/self/cgroup"));
  } catch {
    // no /proc (not Linux): only the mount roots
  }
  return leastLimit(read, root, own.v2, "memory.max") ?? leastLimit(read, `${root}/memory`, own.v1, "memory.limit_in_bytes");
}

/**
 * The soft limit in bytes, or undefined (governor off): env first, then {@link CGROUP_SHARE} of the cgroup limit.
 * @throws MemoryLimitError for an unreadable `TINYHOST_MEMORY_SOFT_LIMIT`.
 */
export function softMemoryLimit(env: Record<string, string | undefined>, cgroup: () => number | undefined = cgroupMemoryLimit): number | undefined {
  if (softLimitSource(env) === "env") {
    const v = env.TINYHOST_MEMORY_SOFT_LIMIT!.trim();
    return v === "off" || v === "0" ? undefined : parseMemoryQuantity(v);
  }
  const limit = cgroup();
  return limit === undefined ? undefined : Math.floor(limit * CGROUP_SHARE);
}

/**
 * Which rule {@link softMemoryLimit} follows: `env` when `TINYHOST_MEMORY_SOFT_LIMIT` is set (to a
 * quantity, `off` or `0`), else `cgroup` (75 % of the cgroup's limit, or none). Logged at start-up,
 * since the same bytes from either look alike.
 */
export function softLimitSource(env: Record<string, string | undefined>): "env" | "cgroup" {
  return env.TINYHOST_MEMORY_SOFT_LIMIT?.trim() ? "env" : "cgroup";
}

/** What the governor compares with the soft limit (see the file comment). */
export type MemoryGauge = "anon" | "rss";

/** `TINYHOST_MEMORY_GAUGE`: `anon` (default) or `rss`. @throws MemoryGaugeError for anything else. */
export function memoryGauge(env: Record<string, string | undefined>): MemoryGauge {
  const v = env.TINYHOST_MEMORY_GAUGE?.trim() || "anon";
  if (v !== "anon" && v !== "rss") throw new MemoryGaugeError(v);
  return v;
}

/**
 * Resident anonymous memory of this process in bytes: `RssAnon` of `/proc/self/status` (proc(5),
 * kB), or `process.memoryUsage.rss()` where it cannot be read (no `/proc`).
 */
export function anonResidentBytes(read: ReadText = readText): number {
  try {
    const m = /^RssAnon:\s+(\d+)\s+kB/m.exec(read("/proc/self/status"));
    if (m) return Number(m[1]) * 1024;
  } catch {
    // not Linux
  }
  return process.memoryUsage.rss();
}

/** The reader of a {@link MemoryGauge}, bytes. */
export function gaugeReader(gauge: MemoryGauge): () => number {
  return gauge === "anon" ? () => anonResidentBytes() : () => process.memoryUsage.rss();
}

/** What the governor needs; all injectable for tests. */
export interface MemoryGovernorOptions {
  /** Soft limit, bytes. */
  limitBytes: number;
  /** The memory compared with the limit, bytes. Default {@link anonResidentBytes} (`RssAnon`). */
  gauge?: () => number;
  /** A full collection. Default `Bun.gc(true)`. */
  collect?: () => void;
  /** Monotonic clock, ms. Default `performance.now()`. */
  now?: () => number;
  /** Default {@link MIN_GAP_MS}. */
  minGapMs?: number;
}

/** Collects when the gauge is over the soft limit (see the file comment). */
export class MemoryGovernor {
  /** Collections run so far (`/metrics` `tinyhost_memory_governor_collections_total`). */
  collections = 0;
  #last = -Infinity;
  readonly #o: Required<MemoryGovernorOptions>;

  constructor(o: MemoryGovernorOptions) {
    this.#o = {
      gauge: () => anonResidentBytes(),
      collect: () => Bun.gc(true),
      now: () => performance.now(),
      minGapMs: MIN_GAP_MS,
      ...o,
    };
  }

  /** The soft limit, bytes (`/metrics` `tinyhost_memory_soft_limit_bytes`). */
  get limitBytes(): number {
    return this.#o.limitBytes;
  }

  /** One check: collects and returns true when the gauge is over the limit and the last collection is `minGapMs` old. */
  check(): boolean {
    const t = this.#o.now();
    if (t - this.#last < this.#o.minGapMs || this.#o.gauge() <= this.#o.limitBytes) return false;
    this.#last = t;
    this.#o.collect();
    this.collections++;
    return true;
  }

  /** Checks every `periodMs` until `signal` aborts. */
  async run(signal: AbortSignal, periodMs = CHECK_PERIOD_MS): Promise<void> {
    while (await sleepUnlessAborted(periodMs, signal)) this.check();
  }
}
