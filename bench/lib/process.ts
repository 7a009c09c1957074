/**
 * What the benchmarks read from a running module process: resident memory from
 * `/proc/<pid>/status` (Linux `proc(5)`, field `VmRSS`), Prometheus text from /metrics, and the
 * time until an HTTP probe answers 200.
 */
import { readdirSync, readFileSync } from "node:fs";

/** Resident set size of `pid` in bytes (`VmRSS`), or NaN when the process is gone. */
export function rssBytes(pid: number): number {
  try {
    const m = /^VmRSS:\s+(\d+)\s+kB/m.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
    return m ? Number(m[1]) * 1024 : Number.NaN;
  } catch {
    return Number.NaN;
  }
}

/**
 * `/proc/<pid>/status` `RssAnon` in bytes (NaN when unreadable): the resident memory that is not
 * file-backed. The executable's mapped code (`RssFile`, ~25–35 MiB of a 115 MiB binary) is clean
 * page cache the kernel reclaims under a cgroup limit before it kills anything; `RssAnon` is what
 * the limit cannot take back.
 */
export function rssAnonBytes(pid: number): number {
  try {
    const m = /^RssAnon:\s+(\d+)\s+kB/m.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
    return m ? Number(m[1]) * 1024 : Number.NaN;
  } catch {
    return Number.NaN;
  }
}

/** One Prometheus sample: series name, labels, value. */
export interface MetricSample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/** Parses Prometheus text format 0.0.4 (no escapes inside label values beyond `\"`). */
export function parseMetrics(text: string): MetricSample[] {
  const out: MetricSample[] = [];
  for (const line of text.split("\n")) {
    if (line === "" || line.startsWith("#")) continue;
    const m = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})?\s+(\S+)/.exec(line);
    if (!m) continue;
    const labels: Record<string, string> = {};
    for (const l of (m[2] ?? "").matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)) labels[l[1]!] = l[2]!;
    out.push({ name: m[1]!, labels, value: Number(m[3]) });
  }
  return out;
}

/** GET `${base}/metrics` and parse it; empty when the process does not answer. */
export async function scrapeMetrics(base: string): Promise<MetricSample[]> {
  try {
    const r = await fetch(`${base}/metrics`, { signal: AbortSignal.timeout(5000) });
    return r.ok ? parseMetrics(await r.text()) : [];
  } catch {
    return [];
  }
}

/** Sum of the samples named `name` whose labels include `match`. */
export function metricSum(samples: readonly MetricSample[], name: string, match: Record<string, string> = {}): number {
  let sum = 0;
  for (const s of samples) {
    if (s.name !== name) continue;
    if (Object.entries(match).every(([k, v]) => s.labels[k] === v)) sum += s.value;
  }
  return sum;
}

/**
 * Polls `url` until it answers 200, every `intervalMs`.
 * @returns ms from `since` (a `performance.now()` reading) to the first 200.
 * @throws Error when `timeoutMs` passes, or `alive()` turns false.
 */
export async function until200(url: string, since: number, timeoutMs: number, intervalMs = 2, alive: () => boolean = () => true): Promise<number> {
  const deadline = since + timeoutMs;
  for (;;) {
    try {
      const r = await fetch(url, { signal: AbortSignal.timeout(1000) });
      await r.arrayBuffer();
      if (r.status === 200) return performance.now() - since;
    } catch {
      // not listening yet
    }
    if (!alive()) throw new Error(`${url}: the process exited before answering 200`);
    if (performance.now() > deadline) throw new Error(`${url}: no 200 within ${timeoutMs} ms`);
    await Bun.sleep(intervalMs);
  }
}

/**
 * Pids of the processes whose command line contains `needle` (read from `/proc/<pid>/cmdline`),
 * e.g. a control plane's run directory, which its kube-apiserver and etcd are started with.
 */
export function pidsWithArg(needle: string): number[] {
  const out: number[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readFileSync(`/proc/${entry}/cmdline`, "utf8").includes(needle)) out.push(Number(entry));
    } catch {
      // gone meanwhile
    }
  }
  return out;
}
