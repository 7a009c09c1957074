/**
 * Memory of one module against the chart's 128Mi limit (issues 15, 19): the compiled binary in
 * variants (below), each with 1,000 TinyNodes of the bundled components (bench/lib/cluster.ts's
 * 8-node flows) on the real control plane and the NATS core wire:
 * - RSS and JS heap (`/proc/<pid>/status` VmRSS; `/metrics` `tinyhost_js_heap_bytes`) once every
 *   node is ready and 5 s have passed (idle);
 * - then steady traffic for `--seconds` (default 30): a closed loop of `--concurrency` (default
 *   16) request/replies into router nodes' `input` (router → transform → counter → debug: four
 *   in-process hops and a counter state write per request), RSS sampled every second (max, last)
 *   and the heap at the end; throughput = replies/s. RssAnon (VmRSS without file-backed pages)
 *   idle and at its max; the median RSS of the last 10 s of traffic (issue 19's "≤ 100 MiB").
 * The variant rows name the options; compare throughput between variants of the same run only.
 *   ./node_modules/.bin/bun bench/memory.ts [--seconds N] [--concurrency N] [--nodes N] [--stateless]
 *     [--baked-only] [--smol] [--env K=V,…] [--try K=V,… …]
 * Variants: "soft limit 96Mi" (the governor as in a pod under the chart's 128Mi), "governor off"
 * (unless --baked-only), and with --smol the `--smol` build.
 * Not run by bench/run.ts (minutes, and the traffic rows are a baseline for issue 19).
 */
process.env.TINYHOST_LOG_LEVEL ??= "silent";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { createKubeClient } from "../src/k8s/client/index.ts";
import type { TinyNode } from "../src/k8s/api/index.ts";
import { tinyNodes } from "../src/k8s/controllers/types.ts";
import { headers as natsHeaders } from "@nats-io/transport-node";
import { connectNats } from "../src/transport/nats/index.ts";
import { H_FROM, H_TO } from "../src/transport/nats/wire.ts";
import { startControlPlane } from "../test/support/control-plane.ts";
import { startNats } from "../test/support/nats.ts";
import { EXEC_ARGV, staticRequirePlugin } from "../scripts/build.ts";
import { ensureBinary, ROOT } from "./lib/binary.ts";
import { benchNodes, forEachBounded, moduleLaunch, startBenchModule, waitAllReady, warmUpApiserver } from "./lib/cluster.ts";
import { metricSum, rssAnonBytes, rssBytes, scrapeMetrics, until200 } from "./lib/process.ts";
import { emit, progress, row, type BenchRow } from "./lib/result.ts";

const arg = (name: string, fallback: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? Number(process.argv[i + 1]) : fallback;
};
const SECONDS = arg("seconds", 30);
const CONCURRENCY = arg("concurrency", 16);
const NODES = arg("nodes", 1_000);
/** `--stateless`: send to the router's default port (delay → transform → debug), no counter state write. */
const STATELESS = process.argv.includes("--stateless");
const MODULE = "bench";
const MiB = 1024 * 1024;
const log = (line: string) => progress("memory", line);

/** `--smol` toggled relative to the build's options. */
const ALT_ARGV = EXEC_ARGV.includes("--smol") ? EXEC_ARGV.filter((a) => a !== "--smol") : [...EXEC_ARGV, "--smol"];

/** The same entry point compiled with {@link ALT_ARGV}. */
async function altBinary(dir: string): Promise<string> {
  const outfile = join(dir, "tinyhost-alt");
  const r = await Bun.build({
    entrypoints: [resolve(ROOT, "src/cli/main.ts")],
    compile: { outfile, execArgv: [...ALT_ARGV] },
    minify: true,
    bytecode: true,
    format: "esm",
    target: "bun",
    allowUnresolved: ["file://*"],
    plugins: [staticRequirePlugin],
  });
  if (!r.success) throw new Error(`building the ${ALT_ARGV.join(" ") || "option-free"} binary failed: ${r.logs.join("\n")}`);
  return outfile;
}

const work = mkdtempSync(join(tmpdir(), "tinyhost-memory-"));
/** `--env K=V,K=V` adds environment to every variant (e.g. allocator or JSC options under test). */
const extraEnv = (() => {
  const i = process.argv.indexOf("--env");
  return i < 0 ? {} : envList(process.argv[i + 1]!);
})();
/** `K=V,K=V` → an environment record. */
function envList(text: string): Record<string, string> {
  return Object.fromEntries(text.split(",").map((kv) => kv.split("=") as [string, string]));
}
/**
 * The shipped binary with the soft memory limit a pod under the chart's 128Mi gets (75 % of the
 * cgroup limit = 96Mi; this machine has no cgroup limit, so the env sets it), the same binary with
 * the governor off (what the collections cost in throughput), and (`--smol`) the `--smol` build.
 */
const shipped = ensureBinary(log).path;
const variants: { label: string; binary: string; env?: Record<string, string> }[] = [
  { label: "soft limit 96Mi", binary: shipped, env: { TINYHOST_MEMORY_SOFT_LIMIT: "96Mi" } },
  ...(process.argv.includes("--baked-only") ? [] : [{ label: "governor off", binary: shipped, env: { TINYHOST_MEMORY_SOFT_LIMIT: "off" } }]),
  // `--try K=V,K=V` (repeatable): the shipped binary, soft limit 96Mi unless the list sets
  // TINYHOST_MEMORY_SOFT_LIMIT, plus that environment (allocator / JSC options under test), so
  // variants run against the same control plane, interleaved. Labelled by the list alone.
  ...process.argv.flatMap((a, i) => (a === "--try" ? [{ label: process.argv[i + 1]!, binary: shipped, env: { TINYHOST_MEMORY_SOFT_LIMIT: "96Mi", ...envList(process.argv[i + 1]!) } }] : [])),
  ...(process.argv.includes("--smol") ? [{ label: `${ALT_ARGV.join(" ") || "no options"}, governor off`, binary: await altBinary(work), env: { TINYHOST_MEMORY_SOFT_LIMIT: "off" } }] : []),
];
const cp = await startControlPlane();
const nats = await startNats();
const kube = await createKubeClient({ kubeconfig: cp.tokenKubeconfig, env: {} });
const rows: BenchRow[] = [];

try {
  for (const v of variants) {
    const ns = await cp.newNamespace("memory");
    await warmUpApiserver(kube, ns);
    const nodes = benchNodes(MODULE, ns, NODES);
    const created: TinyNode[] = [];
    await forEachBounded(nodes, 32, async (n) => created.push(await kube.create(tinyNodes, n, { namespace: ns })));
    const routers = created.filter((n) => n.spec?.component === "router").map((n) => n.metadata.name!);
    const m = startBenchModule({ launch: moduleLaunch(v.binary), hostname: `memory-${rows.length}`, module: MODULE, namespace: ns, kubeconfig: cp.tokenKubeconfig, logDir: work, env: { TINY_NATS_URL: nats.url, TINYHOST_LOG_LEVEL: "warn", ...v.env, ...extraEnv } });
    try {
      await until200(`${m.healthUrl}/readyz`, m.spawnedAt, 60_000, 20);
      const readyMs = await waitAllReady(kube, ns, MODULE, nodes.length, m.spawnedAt, 120_000);
      await Bun.sleep(5_000);
      const idleRss = rssBytes(m.pid);
      const idleAnon = rssAnonBytes(m.pid);
      const idleHeap = metricSum(await scrapeMetrics(m.healthUrl), "tinyhost_js_heap_bytes");
      log(`${v.label}: ${nodes.length} nodes ready in ${Math.round(readyMs)} ms; idle RSS ${(idleRss / MiB).toFixed(1)} MiB, heap ${(idleHeap / MiB).toFixed(1)} MiB`);

      const requestsBefore = metricSum(await scrapeMetrics(m.healthUrl), "tinyhost_apiserver_requests_total");
      const nc = await connectNats(nats.url, { name: "memory-bench" });
      let ok = 0;
      let failed = 0;
      let maxRss = idleRss;
      let maxAnon = idleAnon;
      const minuteRss: number[] = [];
      const trail: string[] = [];
      // Every 5 s: the JS heap and external memory from /metrics (what the RSS is made of).
      const heapTrail: string[] = [];
      let tick = 0;
      const sampler = setInterval(() => {
        if (tick++ % 5 === 4)
          void scrapeMetrics(m.healthUrl).then((x) => {
            heapTrail.push(`${(metricSum(x, "tinyhost_js_heap_bytes") / MiB).toFixed(0)}/${(metricSum(x, "tinyhost_js_external_bytes") / MiB).toFixed(1)}`);
          });
        const rss = rssBytes(m.pid);
        maxRss = Math.max(maxRss, rss);
        maxAnon = Math.max(maxAnon, rssAnonBytes(m.pid));
        if (performance.now() > deadline - 10_000) minuteRss.push(rss); // the last 10 s of the traffic
        trail.push((rss / MiB).toFixed(0));
      }, 1_000);
      const deadline = performance.now() + SECONDS * 1_000;
      const t0 = performance.now();
      await Promise.all(
        Array.from({ length: CONCURRENCY }, async (_, w) => {
          for (let i = w; performance.now() < deadline; i += CONCURRENCY) {
            const h = natsHeaders();
            h.set(H_TO, `${routers[i % routers.length]}:input`);
            h.set(H_FROM, "signal");
            const body = JSON.stringify({ context: { flow: i }, conditions: STATELESS ? [] : [{ route: "A", condition: true }] });
            try {
              await nc.request(`tinymodule.${MODULE}.msg`, new TextEncoder().encode(body), { headers: h, timeout: 10_000 });
              ok++;
            } catch {
              failed++;
            }
          }
        }),
      );
      const elapsed = (performance.now() - t0) / 1_000;
      clearInterval(sampler);
      await nc.close();
      const endRss = rssBytes(m.pid);
      maxRss = Math.max(maxRss, endRss);
      const after = await scrapeMetrics(m.healthUrl);
      const endHeap = metricSum(after, "tinyhost_js_heap_bytes");
      const apiserverRequests = metricSum(after, "tinyhost_apiserver_requests_total") - requestsBefore;
      log(`${v.label}: ${apiserverRequests} apiserver requests during the traffic`);
      log(`${v.label}: RSS each second (MiB): ${trail.join(" ")}`);
      log(`${v.label}: every 5 s, JS heap/external (MiB): ${heapTrail.join(" ")}`);
      log(`${v.label}: traffic ${(ok / elapsed).toFixed(0)} req/s (${failed} failed); RSS max ${(maxRss / MiB).toFixed(1)} MiB, end ${(endRss / MiB).toFixed(1)} MiB, heap ${(endHeap / MiB).toFixed(1)} MiB`);
      const note = `${nodes.length} nodes, ${v.label}`;
      rows.push(
        row({ name: `memory_rss_idle[${v.label}]`, value: idleRss / MiB, unit: "MiB", max: 128, digits: 1, note: `${note}, 5 s after all ready` }),
        row({ name: `memory_rss_anon_idle[${v.label}]`, value: idleAnon / MiB, unit: "MiB", digits: 1, note: `${note}: RssAnon (VmRSS without the mapped binary and files)` }),
        row({ name: `memory_rss_traffic_last10s[${v.label}]`, value: median(minuteRss) / MiB, unit: "MiB", max: 100, digits: 1, note: `${note}: median VmRSS over the last 10 s of ${SECONDS} s of traffic (issue 19: ≤ 100 MiB)` }),
        row({ name: `memory_rss_anon_traffic_max[${v.label}]`, value: maxAnon / MiB, unit: "MiB", max: 128, digits: 1, note: `${note}: max RssAnon during the traffic` }),
        row({ name: `memory_heap_idle[${v.label}]`, value: idleHeap / MiB, unit: "MiB", digits: 1, note }),
        row({ name: `memory_rss_traffic_max[${v.label}]`, value: maxRss / MiB, unit: "MiB", max: 128, digits: 1, note: `${note}, ${CONCURRENCY} in flight for ${SECONDS} s` }),
        row({ name: `memory_heap_traffic_end[${v.label}]`, value: endHeap / MiB, unit: "MiB", digits: 1, note }),
        row({ name: `memory_throughput[${v.label}]`, value: ok / elapsed, unit: "req/s", digits: 0, note: `${note}; 4 hops + a state write per request; ${failed} failed` }),
      );
    } finally {
      await m.stop(10_000);
    }
  }
} finally {
  await nats.dispose();
  await cp.stop();
  rmSync(work, { recursive: true, force: true });
}
emit(rows);

function median(xs: number[]): number {
  if (!xs.length) return Number.NaN;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}
