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
 *   readiness watch open) on an identical node set in another namespace, in the same run;
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
import { createKubeClient } from "../src/k8s/client/index.ts";
import { NODE_FINALIZER, type TinyNode } from "../src/k8s/api/index.ts";
import { tinyNodes } from "../src/k8s/controllers/types.ts";
import { nodeStatusPatch, ownedNodeStatus, type NodeStatusPatch } from "../src/k8s/controllers/node-status.ts";
import { loadStaticRegistry } from "../src/runtime/registry/static.ts";
import { Scheduler } from "../src/runtime/scheduler/index.ts";
import { SDK_VERSION } from "../src/cli/version.ts";
import { DEFAULT_NODE_WORKERS } from "../src/k8s/controllers/tinynode-controller.ts";
import { startControlPlane } from "../test/support/control-plane.ts";
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
const t0 = performance.now();
const cp = await startControlPlane();
log(`control plane up in ${Math.round(performance.now() - t0)} ms`);
const logDir = mkdtempSync(join(tmpdir(), "tinyhost-scale-"));
const kube = await createKubeClient({ kubeconfig: cp.tokenKubeconfig, env: {} });
const rows: BenchRow[] = [];
/** kube-apiserver and etcd: both are started with arguments inside the run directory. */
const controlPlanePids = pidsWithArg(cp.dir).filter((pid) => pid !== process.pid);
const controlPlaneCpuMs = () => controlPlanePids.reduce((sum, pid) => sum + cpuMs(pid), 0);
await warmUpApiserver(kube, await cp.newNamespace("scale-warm"));
const modules: BenchModule[] = [];

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

async function stopModule(m: BenchModule): Promise<void> {
  await m.stop(10_000);
}

try {
  // Idle RSS: a module in an empty namespace, after /readyz and a short settle.
  const nsIdle = await cp.newNamespace("scale-idle");
  await warmUpApiserver(kube, nsIdle);
  const idle = startBenchModule({ launch, hostname: "scale-idle-0", module: MODULE, namespace: nsIdle, kubeconfig: cp.tokenKubeconfig, logDir });
  modules.push(idle);
  const idleReadyz = await until200(`${idle.healthUrl}/readyz`, idle.spawnedAt, 30_000, 5);
  await Bun.sleep(1_000);
  const rssIdle = rssBytes(idle.pid);
  log(`idle module: /readyz after ${Math.round(idleReadyz)} ms, RSS ${(rssIdle / MiB).toFixed(1)} MiB`);
  await stopModule(idle);
  rows.push(row({ name: "scale_rss_idle", value: rssIdle / MiB, unit: "MiB", max: 120, digits: 1, note: "module in an empty namespace, 1 s after /readyz" }));

  for (const n of sizes) {
    // Baseline: the same writes from a plain client loop, on an identical node set elsewhere.
    const nsBase = await cp.newNamespace(`scale-base-${n}`);
    const baseNodes = benchNodes(MODULE, nsBase, n);
    const created: TinyNode[] = [];
    await forEachBounded(baseNodes, CREATE_PARALLEL, async (node) => created.push(await kube.create(tinyNodes, node, { namespace: nsBase })));
    const statuses = await moduleStatuses(created);
    // The same instrument as the module's run: a watch that sees every node become ready.
    const baseWatch = waitAllReady(kube, nsBase, MODULE, n, performance.now(), 600_000);
    const baseCp0 = controlPlaneCpuMs();
    const baseMs = await forEachBounded(created, WRITE_PARALLEL, async (node) => {
      const name = node.metadata.name!;
      const withFinalizer = await kube.mergePatch(tinyNodes, name, { metadata: { resourceVersion: node.metadata.resourceVersion!, finalizers: [NODE_FINALIZER] } }, { namespace: nsBase });
      await kube.mergePatch(tinyNodes, name, { metadata: { resourceVersion: withFinalizer.metadata.resourceVersion! }, status: statuses.get(name)! }, { namespace: nsBase, subresource: "status" });
    });
    const baseReadyMs = await baseWatch;
    const baseRate = (2 * n) / (baseMs / 1000);
    const baseCpPerWrite = (controlPlaneCpuMs() - baseCp0) / (2 * n);
    log(`${n}: plain client loop: ${2 * n} writes in ${Math.round(baseMs)} ms = ${Math.round(baseRate)} writes/s (${WRITE_PARALLEL} in flight), all ready in ${Math.round(baseReadyMs)} ms`);

    // The module's namespace.
    const ns = await cp.newNamespace(`scale-${n}`);
    const nodes = benchNodes(MODULE, ns, n);
    const createMs = await forEachBounded(nodes, CREATE_PARALLEL, (node) => kube.create(tinyNodes, node, { namespace: ns }));
    const createRate = n / (createMs / 1000);
    log(`${n}: created in ${Math.round(createMs)} ms (${Math.round(createRate)} creates/s, ${CREATE_PARALLEL} in flight)`);

    const m = startBenchModule({ launch, hostname: `scale-${n}-0`, module: MODULE, namespace: ns, kubeconfig: cp.tokenKubeconfig, logDir });
    modules.push(m);
    const cp0 = controlPlaneCpuMs();
    const readyzP = until200(`${m.healthUrl}/readyz`, m.spawnedAt, 60_000, 5);
    const readyMs = await waitAllReady(kube, ns, MODULE, n, m.spawnedAt, Math.max(120_000, (targetMs[n] ?? n * 10) * 3));
    const readyzMs = await readyzP;
    const moduleCpu = cpuMs(m.pid);
    const cpCpu = controlPlaneCpuMs() - cp0;
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
      `${n}: all ready ${Math.round(readyMs)} ms after spawn (/readyz ${Math.round(readyzMs)} ms, list ${(listS * 1000).toFixed(0)} ms); ` +
        `requests ${totalReq} (get ${req("get")}, list ${req("list")}, watch ${req("watch")}, patch ${req("patch")}, update ${req("update")}, create ${req("create")}); ` +
        `reconciles ${reconciles}, status writes ${statusWrites}; RSS ${(rssAfter / MiB).toFixed(1)} MiB; ` +
        `CPU: module ${Math.round(moduleCpu)} ms, apiserver + etcd ${Math.round(cpCpu)} ms (${(cpCpu / writes).toFixed(2)} ms/write, plain loop ${baseCpPerWrite.toFixed(2)})`,
    );
    const rssTarget = 120 + (n * 20) / 1024;
    rows.push(
      row({
        name: `scale_${n}_nodes_ready`,
        value: readyMs,
        unit: "ms",
        baseline: baseReadyMs,
        ...(targetMs[n] ? { max: targetMs[n] } : {}),
        note: `${launch.label} spawn → every status written (watch); baseline: the plain client loop's same writes → every node ready on the same watch (no process start, no list)`,
      }),
      row({ name: `scale_${n}_readyz`, value: readyzMs, unit: "ms", note: "spawn → /readyz 200 (cache synced, leader known)" }),
      row({ name: `scale_${n}_initial_list`, value: listS * 1000, unit: "ms", digits: 0, note: "the TinyNode list, all pages (tinyhost_watch_list_duration_seconds)" }),
      row({ name: `scale_${n}_rss_after`, value: rssAfter / MiB, unit: "MiB", max: Math.round(rssTarget * 10) / 10, digits: 1, note: "VmRSS once every node is ready; target 120 MB + 20 KB/node" }),
      row({ name: `scale_${n}_rss_per_node`, value: ((rssAfter - rssIdle) / n) / 1024, unit: "KiB/node", digits: 1, note: "(RSS after − idle RSS) / nodes: the slope behind the 20 KB/node budget" }),
      row({ name: `scale_${n}_apiserver_requests`, value: totalReq, unit: "requests", note: `get ${req("get")}, list ${req("list")}, watch ${req("watch")}, patch ${req("patch")}, update ${req("update")}, create ${req("create")}; ${(totalReq / n).toFixed(2)}/node` }),
      row({ name: `scale_${n}_module_write_rate`, value: moduleRate, unit: "writes/s", baseline: baseRate, note: `module writes between /readyz and all-ready vs a plain client loop (${WRITE_PARALLEL} in flight) doing the same 2 writes per node` }),
      row({ name: `scale_${n}_module_cpu_per_node`, value: moduleCpu / n, unit: "CPU ms/node", digits: 2, note: "module process utime + stime (/proc/<pid>/stat) from spawn to all-ready, per node: on 2 shared cores it is taken from the apiserver" }),
      row({ name: `scale_${n}_controlplane_cpu_per_write`, value: cpCpu / writes, unit: "CPU ms/write", baseline: baseCpPerWrite, digits: 2, note: "kube-apiserver + etcd utime + stime while the module ran, per module write, vs the same during the plain client loop (the same finalizer and status bodies)" }),
      row({ name: `scale_${n}_create_rate`, value: createRate, unit: "creates/s", note: `bench client, ${CREATE_PARALLEL} in flight (the apiserver's write ceiling here)` }),
    );
    await stopModule(m);
  }
} finally {
  for (const m of modules) await m.kill().catch(() => {});
  await cp.stop();
  if (process.env.TINYHOST_BENCH_KEEP) log(`logs kept in ${logDir}`);
  else rmSync(logDir, { recursive: true, force: true });
}
emit(rows);
