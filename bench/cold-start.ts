/**
 * Cold start of the compiled binary (dist/tinyhost; rebuilt first when missing or stale):
 * - local mode with examples/hello-api: spawn → /readyz 200 (every node reconciled, start signals
 *   sent) and spawn → first `GET /hello` 200 through the flow; median of ≥ 10 runs (target
 *   /readyz median < 100 ms). Same-run baseline: spawn → exit of `dist/tinyhost --version` (the
 *   process floor: runtime start + our entry module).
 * - cluster mode with 1,000 TinyNodes already present on the real control plane: spawn → /readyz
 *   200 (cache synced, transport up, leader known), median of ≥ 3 fresh processes (target < 2 s),
 *   with the initial list time (`tinyhost_watch_list_duration_seconds`) reported apart.
 *
 * Prints JSON rows on its last stdout line (bench/run.ts contract).
 *   ./node_modules/.bin/bun bench/cold-start.ts [--quick]
 */
process.env.TINYHOST_LOG_LEVEL ??= "silent";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createKubeClient } from "../src/k8s/client/index.ts";
import { tinyNodes } from "../src/k8s/controllers/types.ts";
import { startControlPlane } from "../test/support/control-plane.ts";
import { freePort } from "../test/support/process.ts";
import { ensureBinary, ROOT } from "./lib/binary.ts";
import { benchNodes, forEachBounded, warmUpApiserver, moduleLaunch, startBenchModule, waitAllReady } from "./lib/cluster.ts";
import { metricSum, scrapeMetrics, until200 } from "./lib/process.ts";
import { emit, median, progress, quick, row, type BenchRow } from "./lib/result.ts";

const log = (line: string) => progress("cold-start", line);
const bin = ensureBinary(log);
log(`binary ${bin.path} (${(bin.bytes / 2 ** 20).toFixed(1)} MiB${bin.rebuilt ? `, rebuilt in ${Math.round(bin.buildMs)} ms` : ""})`);
const rows: BenchRow[] = [];
const LOCAL_RUNS = quick ? 10 : 20;
const CLUSTER_RUNS = quick ? 3 : 5;
const NODES = 1_000;

// ---- process floor: --version ------------------------------------------------------------------
const floor: number[] = [];
for (let i = 0; i < LOCAL_RUNS; i++) {
  const t = performance.now();
  const p = Bun.spawn([bin.path, "--version"], { stdout: "ignore", stderr: "ignore" });
  await p.exited;
  floor.push(performance.now() - t);
}

// ---- local mode: examples/hello-api --------------------------------------------------------------
const readyz: number[] = [];
const firstHello: number[] = [];
for (let i = 0; i < LOCAL_RUNS; i++) {
  const health = freePort();
  const http = freePort();
  const t = performance.now();
  const p = Bun.spawn(
    [bin.path, "run", "--local", join(ROOT, "examples/hello-api"), "--no-state", "--port", String(http), "--health-probe-bind-address", `127.0.0.1:${health}`],
    { stdout: "ignore", stderr: "ignore", cwd: ROOT },
  );
  let alive = true;
  void p.exited.then(() => (alive = false));
  try {
    readyz.push(await until200(`http://127.0.0.1:${health}/readyz`, t, 10_000, 1, () => alive));
    firstHello.push(await until200(`http://127.0.0.1:${http}/hello`, t, 10_000, 1, () => alive));
  } finally {
    p.kill("SIGTERM");
    await p.exited;
  }
}
const floorMed = median(floor);
const readyzMed = median(readyz);
log(
  `local: --version ${floorMed.toFixed(1)} ms, /readyz ${readyzMed.toFixed(1)} ms, first /hello ${median(firstHello).toFixed(1)} ms (medians of ${LOCAL_RUNS})`,
);
rows.push(
  row({
    name: "cold_start_local_readyz",
    value: readyzMed,
    unit: "ms",
    baseline: floorMed,
    max: 100,
    digits: 1,
    note: `compiled binary, examples/hello-api, spawn → /readyz 200, median of ${LOCAL_RUNS}; baseline: spawn → exit of --version`,
  }),
  row({
    name: "cold_start_local_first_request",
    value: median(firstHello),
    unit: "ms",
    baseline: floorMed,
    digits: 1,
    note: `spawn → first GET /hello 200 through http_server → router → transform, median of ${LOCAL_RUNS}`,
  }),
  row({ name: "cold_start_process_floor", value: floorMed, unit: "ms", digits: 1, note: "dist/tinyhost --version, spawn → exit" }),
  row({ name: "binary_size", value: bin.bytes / 2 ** 20, unit: "MiB", digits: 1, note: "dist/tinyhost (bun build --compile --minify)" }),
);

// ---- cluster mode: 1,000 nodes present ----------------------------------------------------------
const cp = await startControlPlane();
const logDir = mkdtempSync(join(tmpdir(), "tinyhost-cold-"));
try {
  const kube = await createKubeClient({ kubeconfig: cp.tokenKubeconfig, env: {} });
  const ns = await cp.newNamespace("cold");
  await warmUpApiserver(kube, ns);
  await forEachBounded(benchNodes("bench", ns, NODES), 32, (n) => kube.create(tinyNodes, n, { namespace: ns }));
  const launch = moduleLaunch(bin.path);
  // First start writes finalizers and statuses; the timed starts meet nodes already reconciled
  // (a restart or a rollout), each a fresh process with its own HOSTNAME.
  const first = startBenchModule({ launch, hostname: "cold-warmup", module: "bench", namespace: ns, kubeconfig: cp.tokenKubeconfig, logDir });
  const firstReadyz = await until200(`${first.healthUrl}/readyz`, first.spawnedAt, 60_000, 5);
  await waitAllReady(kube, ns, "bench", NODES, first.spawnedAt, 120_000);
  await first.stop(10_000);
  const times: number[] = [];
  const lists: number[] = [];
  for (let i = 0; i < CLUSTER_RUNS; i++) {
    const m = startBenchModule({ launch, hostname: `cold-${i}`, module: "bench", namespace: ns, kubeconfig: cp.tokenKubeconfig, logDir });
    try {
      times.push(await until200(`${m.healthUrl}/readyz`, m.spawnedAt, 60_000, 2));
      lists.push(metricSum(await scrapeMetrics(m.healthUrl), "tinyhost_watch_list_duration_seconds", { resource: "tinynode" }) * 1000);
    } finally {
      await m.stop(10_000);
    }
  }
  log(
    `cluster: first start /readyz ${Math.round(firstReadyz)} ms; restarts /readyz ${times.map((t) => Math.round(t)).join(", ")} ms; lists ${lists.map((t) => Math.round(t)).join(", ")} ms`,
  );
  rows.push(
    row({
      name: "cold_start_cluster_readyz_1000_nodes",
      value: median(times),
      unit: "ms",
      max: 2_000,
      note: `compiled binary, ${NODES} TinyNodes present, spawn → /readyz 200, median of ${CLUSTER_RUNS} fresh processes`,
    }),
    row({
      name: "cold_start_cluster_initial_list_1000_nodes",
      value: median(lists),
      unit: "ms",
      note: "TinyNode list (all pages of 500) inside that start (tinyhost_watch_list_duration_seconds)",
    }),
  );
} finally {
  await cp.stop();
  rmSync(logDir, { recursive: true, force: true });
}
emit(rows);
