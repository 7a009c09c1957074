/**
 * Memory profile of N nodes in one Scheduler (no apiserver): heap and RSS per node after
 * `scheduler.update` of the scale benchmark's node mix, plus the heap's object types that grew
 * (bun:jsc heapStats). Not run by bench/run.ts (leading underscore).
 *   ./node_modules/.bin/bun bench/_mem-profile.ts [nodes]
 */
process.env.TINYHOST_LOG_LEVEL ??= "silent";
import { heapStats } from "bun:jsc";
const { Scheduler } = await import("../src/runtime/scheduler/index.ts");
const { discoverComponents } = await import("../src/loader/discover.ts");
const { benchNodes } = await import("./lib/cluster.ts");
const { logger } = await import("../src/telemetry/log.ts");

const N = Number(process.argv[2] ?? 1000);
const registry = await discoverComponents(new URL("../components", import.meta.url).pathname);
const s = new Scheduler({ module: "bench", log: logger.child({ component: "scheduler" }) });
for (const d of registry.list()) s.install(d);
const nodes = benchNodes("bench", "ns", N).map((n) => ({ ...n, metadata: { ...n.metadata, generation: 1 } }));
// One warm-up node of each kind, so module-level caches do not count per node.
for (const n of benchNodes("bench", "warm", 8)) await s.update(n as never);
Bun.gc(true);
const before = heapStats();
const mem0 = process.memoryUsage();
const t0 = performance.now();
for (const n of nodes) await s.update(n as never);
const ms = performance.now() - t0;
Bun.gc(true);
const after = heapStats();
const mem1 = process.memoryUsage();
console.log(
  `${N} nodes: update ${ms.toFixed(0)} ms (${((ms * 1000) / N).toFixed(0)} µs/node); heap +${((after.heapSize - before.heapSize) / N / 1024).toFixed(1)} KiB/node, rss +${((mem1.rss - mem0.rss) / N / 1024).toFixed(1)} KiB/node, objects +${((after.objectCount - before.objectCount) / N).toFixed(0)}/node`,
);
const grew = Object.entries(after.objectTypeCounts)
  .map(([k, v]) => [k, (v - (before.objectTypeCounts[k] ?? 0)) / N] as const)
  .filter(([, d]) => d >= 1)
  .sort((a, b) => b[1] - a[1])
  .slice(0, 25);
for (const [k, d] of grew) console.log(`  ${k.padEnd(32)} +${d.toFixed(1)}/node`);
await s.stopAll();
