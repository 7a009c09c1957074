/**
 * A soft memory limit for the module process (the role `GOMEMLIMIT` plays for a Go module).
 *
 * Why: Bun's collector knows nothing of the container's memory limit — it collects when the JS
 * heap has grown by a factor since the last collection, and mimalloc keeps freed pages for a while.
 * Under steady traffic the garbage between collections is what pushes RSS over the chart's 128Mi
 * (measured with bench/memory.ts, 1,000 nodes, ~4,000 req/s: JS heap 30–60 MiB live, RSS in a
 * 175–250 MiB sawtooth). So once a second the governor reads RSS and, above the soft limit, runs a
 * full collection (`Bun.gc(true)`: JavaScriptCore, then mimalloc returns free pages), at most one
 * per `minGapMs` so a process whose LIVE memory is above the limit does not collect in a loop.
 *
 * The limit: `TINYHOST_MEMORY_SOFT_LIMIT` (bytes, or a Kubernetes quantity such as `96Mi`; `0` or
 * `off` disables), else 75 % of the cgroup's memory limit (v2 `memory.max`, v1
 * `memory.limit_in_bytes`), else none (no container limit: nothing to stay under).
 */
import { readFileSync } from "node:fs";
import { sleepUnlessAborted } from "../sdk/abortable-sleep.ts";
import { TinyError } from "../sdk/errors.ts";

/** Share of the cgroup limit used as the soft limit when the env does not set one. */
export const CGROUP_SHARE = 0.75;
/** How often RSS is read, ms. */
export const CHECK_PERIOD_MS = 1_000;
/** Least time between two collections, ms. */
export const MIN_GAP_MS = 2_000;

const UNITS: Record<string, number> = { "": 1, Ki: 1024, Mi: 1024 ** 2, Gi: 1024 ** 3, K: 1e3, M: 1e6, G: 1e9 };

/** `TINYHOST_MEMORY_SOFT_LIMIT` is not a byte count or quantity. code `"BAD_MEMORY_LIMIT"`. */
export class MemoryLimitError extends TinyError {
  constructor(value: string) {
    super("BAD_MEMORY_LIMIT", `TINYHOST_MEMORY_SOFT_LIMIT=${JSON.stringify(value)}: expected bytes or a quantity like 96Mi (Ki, Mi, Gi, K, M, G), or "off"`);
  }
}

/** Parses bytes or a Kubernetes memory quantity (`96Mi`, `128M`). @throws MemoryLimitError. */
export function parseMemoryQuantity(value: string): number {
  const m = /^(\d+(?:\.\d+)?)(Ki|Mi|Gi|K|M|G)?$/.exec(value.trim());
  if (!m) throw new MemoryLimitError(value);
  return Math.floor(Number(m[1]) * UNITS[m[2] ?? ""]!);
}

/** The cgroup memory limit in bytes, or undefined when there is none (`max`, absent, or v1's "unlimited" sentinel). */
export function cgroupMemoryLimit(read: (path: string) => string = (p) => readFileSync(p, "utf8")): number | undefined {
  for (const path of ["/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes"]) {
    let text: string;
    try {
      text = read(path).trim();
    } catch {
      continue;
    }
    if (text === "max") return undefined;
    const n = Number(text);
    if (Number.isFinite(n) && n > 0 && n < 2 ** 60) return n; // v1 reports ~2^63 for no limit
  }
  return undefined;
}

/**
 * The soft limit in bytes, or undefined (governor off): env first, then {@link CGROUP_SHARE} of the cgroup limit.
 * @throws MemoryLimitError for an unreadable `TINYHOST_MEMORY_SOFT_LIMIT`.
 */
export function softMemoryLimit(env: Record<string, string | undefined>, cgroup: () => number | undefined = cgroupMemoryLimit): number | undefined {
  const v = env.TINYHOST_MEMORY_SOFT_LIMIT?.trim();
  if (v === "off" || v === "0") return undefined;
  if (v) return parseMemoryQuantity(v);
  const limit = cgroup();
  return limit === undefined ? undefined : Math.floor(limit * CGROUP_SHARE);
}

/** What the governor needs; all injectable for tests. */
export interface MemoryGovernorOptions {
  /** Soft limit, bytes. */
  limitBytes: number;
  /** Current RSS, bytes. Default `process.memoryUsage.rss()`. */
  rss?: () => number;
  /** A full collection. Default `Bun.gc(true)`. */
  collect?: () => void;
  /** Monotonic clock, ms. Default `performance.now()`. */
  now?: () => number;
  /** Default {@link MIN_GAP_MS}. */
  minGapMs?: number;
}

/** Collects when RSS is over the soft limit (see the file comment). */
export class MemoryGovernor {
  /** Collections run so far (`/metrics` `tinyhost_memory_governor_collections_total`). */
  collections = 0;
  #last = -Infinity;
  readonly #o: Required<MemoryGovernorOptions>;

  constructor(o: MemoryGovernorOptions) {
    this.#o = {
      rss: () => process.memoryUsage.rss(),
      collect: () => Bun.gc(true),
      now: () => performance.now(),
      minGapMs: MIN_GAP_MS,
      ...o,
    };
  }

  /** One check: collects and returns true when RSS is over the limit and the last collection is `minGapMs` old. */
  check(): boolean {
    const t = this.#o.now();
    if (t - this.#last < this.#o.minGapMs || this.#o.rss() <= this.#o.limitBytes) return false;
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
