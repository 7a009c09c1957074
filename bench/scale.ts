/**
 * Scale benchmark on the real control plane (kube-apiserver + etcd of the test bed): N TinyNodes
 * (1,000, 5,000 and 10,000; `--quick`: 1,000 only; `--sizes a,b`) in one namespace, a realistic mix of the bundled
 * components (8-node flows: ticker (not started), router, transforms, counter, debugs, delay) with
 * edges and base64 configurations, created with bounded parallelism; then one `tinyhost run` module
 * process (the compiled dist/tinyhost; `--dev` runs `bun src/cli/main.ts`) with HOSTNAME set, and:
 * - time from the spawn until every node's status is written by the leader (status.module set,
 *   observedGeneration == generation, no error), seen through a watch;
 * - apiserver requests the module made (`tinyhost_apiserver_requests_total{verb}` from /metrics);
 * - its write rate vs a plain client loop doing the same writes (finalizer merge patch + status
 *   merge patch, resourceVersion-guarded, same parallelism as the module's reconcile workers, the
 *   status bodies the module's reconciler sends, computed in-process beforehand, and the same
 *   readiness watch open) on an identical node set, in the same run; every measurement (idle, each
 *   plain loop, each module run) gets a fresh kube-apiserver + etcd, so none pays for another's objects;
 * - RSS (`/proc/<pid>/status` VmRSS) idle after start (empty namespace) and after all ready;
 * - CPU (`/proc/<pid>/stat` utime + stime): the module's from spawn to all-ready, per node, and
 *   kube-apiserver + etcd's per write while the module ran vs during the plain loop — on 2 cores
 *   the control plane's CPU per write is what bounds the time (issue 19).
 * Targets: 1,000 ready ≤ 10 s, 5,000 ≤ 45 s, 10,000 ≤ 60 s (issue 19); RSS ≤ 120 MB + 20 KB per node.
 *
 * Prints JSON rows on its last stdout line (bench/run.ts contract).
 *   ./node_modules/.bin/bun bench/scale.ts [--quick] [--dev] [--sizes 1000,10000]
 */
process.env.TINYHOST_LOG_LEVEL ??= "silent";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createKubeClient, type KubeClient } from "../src/k8s/client/index.ts";
import { NODE_FINALIZER, type TinyNode } from "../src/core/api/index.ts";
import { tinyNodes } from "../src/k8s/controllers/types.ts";
import { nodeStatusPatch, ownedNodeStatus, type NodeStatusPatch } from "../src/k8s/controllers/node-status.ts";
import { loadStaticRegistry } from "../src/loader/static.ts";
import { Scheduler } from "../src/runtime/scheduler/index.ts";
import { SDK_VERSION } from "../src/core/version.ts";
import { DEFAULT_NODE_WORKERS } from "../src/k8s/controllers/tinynode-controller.ts";
import { startControlPlane, type OwnedControlPlane } from "../test/support/control-plane.ts";
import { ensureBinary } from "./lib/binary.ts";
import { benchNodes, forEachBounded, warmUpApiserver, moduleLaunch, startBenchModule, waitAllReady, type BenchModule } from "./lib/cluster.ts";
import { metricSum, pidsWithArg, rssBytes, scrapeMetrics, until200 } from "./lib/process.ts";
import { cpuMs } from "./lib/peer.ts";
import { emit, progress, quick, row, type BenchRow } from "./lib/result.ts";

const MODULE = "bench";
/** Parallel creates / plain-loop writes. The plain loop uses the module's TinyNode worker count. */
const CREATE_PARALLEL = 32;
const WRITE_PARALLEL = Number(process.env.TINYHOST_NODE_WORKERS ?? DEFAULT_NODE_WORKERS);
/** `--sizes 1000,10000` picks the node counts; default 1,000, 5,000 and 10,000 (`--quick`: 1,000). */
const sizesArg = process.argv.indexOf("--sizes");
const sizes = sizesArg >= 0 ? process.argv[sizesArg + 1]!.split(",").map(Number) : quick ? [1_000] : [1_000, 5_000, 10_000];
const targetMs: Record<number, number> = { 1_000: 10_000, 5_000: 45_000, 10_000: 60_000 };
const MiB = 1024 * 1024;
const log = (line: string) => progress("scale", line);

const launch = moduleLaunch(process.argv.includes("--dev") ? undefined : ensureBinary(log).path);
log(`module: ${launch.label}`);
const logDir = mkdtempSync(join(tmpdir(), "tinyhost-scale-"));
const rows: BenchRow[] = [];
const modules: BenchModule[] = [];

/** A fresh control plane for one measurement, with its client and CPU counter. */
interface Bed {
  cp: OwnedControlPlane;
  kube: KubeClient;
  /** kube-apiserver + etcd utime + stime so far, ms. */
  cpuMs: () => number;
}

/**
 * Runs `fn` on a control plane of its own (kube-apiserver + etcd, warmed up), stopped after.
 * Every measurement gets one: measured on one shared control plane, whichever of the module and
 * the plain loop ran second paid ≈ 0.7 ms more apiserver + etcd CPU per write (10,000 nodes:
 * 3.70 → 4.54 ms/write), and the 10,000-node run after the 1,000 and 5,000 ones carried their
 * 12,000 objects too — a bias of the bench, not of either client.
 */
async function onFreshControlPlane<R>(fn: (bed: Bed) => Promise<R>): Promise<R> {
  const t0 = performance.now();
  const cp = await startControlPlane();
  try {
    log(`control plane up in ${Math.round(performance.now() - t0)} ms`);
    const kube = await createKubeClient({ kubeconfig: cp.tokenKubeconfig, env: {} });
    // kube-apiserver and etcd: both are started with arguments inside the run directory.
    const pids = pidsWithArg(cp.dir).filter((pid) => pid !== process.pid);
    await warmUpApiserver(kube, await cp.newNamespace("scale-warm"));
    return await fn({ cp, kube, cpuMs: () => pids.reduce((sum, pid) => sum + cpuMs(pid), 0) });
  } finally {
    for (const m of modules.splice(0)) await m.kill().catch(() => {});
    await cp.stop();
  }
}

/**
 * The status patch the module's reconciler sends for each node (same components, same code:
 * Scheduler.update → ownedNodeStatus → nodeStatusPatch), computed before the plain loop's clock
 * starts, so the baseline's writes carry the same port schemas as the module's, not an empty list.
 */
async function moduleStatuses(nodes: readonly TinyNode[]): Promise<Map<string, NodeStatusPatch>> {
  const scheduler = new Scheduler({ module: MODULE });
  for (const def of loadStaticRegistry().list()) scheduler.install(def);
  const out = new Map<string, NodeStatusPatch>();
  const at = new Date();
  for (const node of nodes) {
    const reported = await scheduler.update(structuredClone(node));
    out.set(node.metadata.name!, nodeStatusPatch(ownedNodeStatus(node, { name: MODULE, version: "1.0.0", sdkVersion: SDK_VERSION }, reported, undefined), at));
  }
  await scheduler.stopAll();
  return out;
}

/** The plain client loop's figures for one size. */
interface PlainRun {
  /** Start of the writes → every node ready on the watch, ms. */
  readyMs: number;
  /** Writes/s over the loop. */
  writeRate: number;
  /** apiserver + etcd CPU per write, ms. */
  cpPerWrite: number;
}

/** Baseline: the module's writes (finalizer, then status) from a plain client loop, on the same node set. */
async function plainRun(n: number, { cp, kube, cpuMs: cpCpuMs }: Bed): Promise<PlainRun> {
  const ns = await cp.newNamespace(`scale-base-${n}`);
  const created: TinyNode[] = [];
  await forEachBounded(benchNodes(MODULE, ns, n), CREATE_PARALLEL, async (node) => created.push(await kube.create(tinyNodes, node, { namespace: ns })));
  const statuses = await moduleStatuses(created);
  // The same instrument as the module's run: a watch that sees every node become ready.
  const watch = waitAllReady(kube, ns, MODULE, n, performance.now(), 600_000);
  const cp0 = cpCpuMs();
  const ms = await forEachBounded(created, WRITE_PARALLEL, async (node) => {
    const name = node.metadata.name!;
    const withFinalizer = await kube.mergePatch(
      tinyNodes,
      name,
      { metadata: { resourceVersion: node.metadata.resourceVersion!, finalizers: [NODE_FINALIZER] } },
      { namespace: ns },
    );
    await kube.mergePatch(
      tinyNodes,
      name,
      { metadata: { resourceVersion: withFinalizer.metadata.resourceVersion! }, status: statuses.get(name)! },
      { namespace: ns, subresource: "status" },
    );
  });
  const readyMs = await watch;
  const run = { readyMs, writeRate: (2 * n) / (ms / 1000), cpPerWrite: (cpCpuMs() - cp0) / (2 * n) };
  log(
    `${n}: plain client loop: ${2 * n} writes in ${Math.round(ms)} ms = ${Math.round(run.writeRate)} writes/s (${WRITE_PARALLEL} in flight), all ready in ${Math.round(readyMs)} ms, apiserver + etcd ${run.cpPerWrite.toFixed(2)} ms/write`,
  );
  return run;
}

/** The module's run for one size: create the nodes, spawn the module, watch every status land. */
async function moduleRun(n: number, rssIdle: number, base: PlainRun, { cp, kube, cpuMs: cpCpuMs }: Bed): Promise<void> {
  const ns = await cp.newNamespace(`scale-${n}`);
  const createMs = await forEachBounded(benchNodes(MODULE, ns, n), CREATE_PARALLEL, (node) => kube.create(tinyNodes, node, { namespace: ns }));
  const createRate = n / (createMs / 1000);
  log(`${n}: created in ${Math.round(createMs)} ms (${Math.round(createRate)} creates/s, ${CREATE_PARALLEL} in flight)`);

  const m = startBenchModule({ launch, hostname: `scale-${n}-0`, module: MODULE, namespace: ns, kubeconfig: cp.tokenKubeconfig, logDir });
  modules.push(m);
  const cp0 = cpCpuMs();
  const readyzP = until200(`${m.healthUrl}/readyz`, m.spawnedAt, 60_000, 5);
  const readyMs = await waitAllReady(kube, ns, MODULE, n, m.spawnedAt, Math.max(120_000, (targetMs[n] ?? n * 10) * 3));
  const readyzMs = await readyzP;
  const moduleCpu = cpuMs(m.pid);
  const cpCpu = cpCpuMs() - cp0;
  const rssAfter = rssBytes(m.pid);
  const metrics = await scrapeMetrics(m.healthUrl);
  const req = (verb: string) => metricSum(metrics, "tinyhost_apiserver_requests_total", { verb });
  const totalReq = metricSum(metrics, "tinyhost_apiserver_requests_total");
  const writes = req("patch") + req("update") + req("create");
  const listS = metricSum(metrics, "tinyhost_watch_list_duration_seconds", { resource: "tinynode" });
  const statusWrites = metricSum(metrics, "tinyhost_status_writes_total", { controller: "tinynode" });
  const reconciles = metricSum(metrics, "controller_runtime_reconcile_total", { controller: "tinynode" });
  // Writes happen between the cache sync (≈ /readyz) and the last status; that window is the module's write rate.
  const writeWindowS = Math.max(0.001, (readyMs - readyzMs) / 1000);
  const moduleRate = writes / writeWindowS;
  log(
    `${n}: all ready ${Math.round(readyMs)} ms after spawn (${(readyMs / base.readyMs).toFixed(2)}× the plain client loop's ${Math.round(base.readyMs)} ms; /readyz ${Math.round(readyzMs)} ms, list ${(listS * 1000).toFixed(0)} ms); ` +
      `requests ${totalReq} (get ${req("get")}, list ${req("list")}, watch ${req("watch")}, patch ${req("patch")}, update ${req("update")}, create ${req("create")}); ` +
      `reconciles ${reconciles}, status writes ${statusWrites}; RSS ${(rssAfter / MiB).toFixed(1)} MiB; ` +
      `CPU: module ${Math.round(moduleCpu)} ms, apiserver + etcd ${Math.round(cpCpu)} ms (${(cpCpu / writes).toFixed(2)} ms/write, plain loop ${base.cpPerWrite.toFixed(2)})`,
  );
  const rssTarget = 120 + (n * 20) / 1024;
  rows.push(
    row({
      name: `scale_${n}_nodes_ready`,
      value: readyMs,
      unit: "ms",
      baseline: base.readyMs,
      ...(targetMs[n] ? { max: targetMs[n] } : {}),
      note: `${launch.label} spawn → every status written (watch); baseline: the plain client loop's same writes → every node ready on the same watch (no process start, no list); each on a fresh control plane`,
    }),
    row({ name: `scale_${n}_readyz`, value: readyzMs, unit: "ms", note: "spawn → /readyz 200 (cache synced, leader known)" }),
    row({
      name: `scale_${n}_initial_list`,
      value: listS * 1000,
      unit: "ms",
      digits: 0,
      note: "the TinyNode list, all pages (tinyhost_watch_list_duration_seconds)",
    }),
    row({
      name: `scale_${n}_rss_after`,
      value: rssAfter / MiB,
      unit: "MiB",
      max: Math.round(rssTarget * 10) / 10,
      digits: 1,
      note: "VmRSS once every node is ready; target 120 MB + 20 KB/node",
    }),
    row({
      name: `scale_${n}_rss_per_node`,
      value: (rssAfter - rssIdle) / n / 1024,
      unit: "KiB/node",
      digits: 1,
      note: "(RSS after − idle RSS) / nodes: the slope behind the 20 KB/node budget",
    }),
    row({
      name: `scale_${n}_apiserver_requests`,
      value: totalReq,
      unit: "requests",
      note: `get ${req("get")}, list ${req("list")}, watch ${req("watch")}, patch ${req("patch")}, update ${req("update")}, create ${req("create")}; ${(totalReq / n).toFixed(2)}/node`,
    }),
    row({
      name: `scale_${n}_module_write_rate`,
      value: moduleRate,
      unit: "writes/s",
      baseline: base.writeRate,
      note: `module writes between /readyz and all-ready vs a plain client loop (${WRITE_PARALLEL} in flight) doing the same 2 writes per node`,
    }),
    row({
      name: `scale_${n}_module_cpu_per_node`,
      value: moduleCpu / n,
      unit: "CPU ms/node",
      digits: 2,
      note: "module process utime + stime (/proc/<pid>/stat) from spawn to all-ready, per node: on 2 shared cores it is taken from the apiserver",
    }),
    row({
      name: `scale_${n}_controlplane_cpu_per_write`,
      value: cpCpu / writes,
      unit: "CPU ms/write",
      baseline: base.cpPerWrite,
      digits: 2,
      note: "kube-apiserver + etcd utime + stime while the module ran, per module write, vs the same during the plain client loop (the same finalizer and status bodies)",
    }),
    row({
      name: `scale_${n}_create_rate`,
      value: createRate,
      unit: "creates/s",
      note: `bench client, ${CREATE_PARALLEL} in flight (the apiserver's write ceiling here)`,
    }),
  );
  await m.stop(10_000);
}

try {
  // Idle RSS: a module in an empty namespace, after /readyz and a short settle.
  const rssIdle = await onFreshControlPlane(async ({ cp, kube }) => {
    const ns = await cp.newNamespace("scale-idle");
    await warmUpApiserver(kube, ns);
    const idle = startBenchModule({ launch, hostname: "scale-idle-0", module: MODULE, namespace: ns, kubeconfig: cp.tokenKubeconfig, logDir });
    modules.push(idle);
    const idleReadyz = await until200(`${idle.healthUrl}/readyz`, idle.spawnedAt, 30_000, 5);
    await Bun.sleep(1_000);
    const rss = rssBytes(idle.pid);
    log(`idle module: /readyz after ${Math.round(idleReadyz)} ms, RSS ${(rss / MiB).toFixed(1)} MiB`);
    await idle.stop(10_000);
    return rss;
  });
  rows.push(row({ name: "scale_rss_idle", value: rssIdle / MiB, unit: "MiB", max: 120, digits: 1, note: "module in an empty namespace, 1 s after /readyz" }));
  for (const n of sizes) {
    const base = await onFreshControlPlane((bed) => plainRun(n, bed));
    await onFreshControlPlane((bed) => moduleRun(n, rssIdle, base, bed));
  }
} finally {
  // Modules are killed with their control plane (onFreshControlPlane).
  if (process.env.TINYHOST_BENCH_KEEP) log(`logs kept in ${logDir}`);
  else rmSync(logDir, { recursive: true, force: true });
}
emit(rows);
