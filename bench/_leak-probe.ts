/**
 * Leak probe: the module in-process (startModule) with N nodes on the real control plane, steady
 * counter traffic, apiserver requests in flight by method (fetch wrapped) every 2 s, and the JS
 * heap's object types that grew (bun:jsc heapStats, after a full collection) between idle and the
 * end of the traffic. Found issue 19's growth: in-flight status writes without bound.
 * Diagnostic only (leading underscore: not run by bench/run.ts).
 *   ./node_modules/.bin/bun bench/_leak-probe.ts [--nodes N] [--seconds S] [--snapshot file]
 */
process.env.TINYHOST_LOG_LEVEL ??= "silent";
import { heapStats } from "bun:jsc";
import { writeFileSync } from "node:fs";
import { headers as natsHeaders } from "@nats-io/transport-node";
import { createKubeClient } from "../src/k8s/client/index.ts";
import type { TinyNode } from "../src/core/api/index.ts";
import { tinyNodes } from "../src/k8s/controllers/types.ts";
import { startModule } from "../src/operator/module.ts";
import { connectNats } from "../src/transport/nats/index.ts";
import { H_FROM, H_TO } from "../src/transport/nats/wire.ts";
import { startControlPlane } from "../test/support/control-plane.ts";
import { startNats } from "../test/support/nats.ts";
import { freePort } from "../test/support/process.ts";
import { benchNodes, forEachBounded, waitAllReady, warmUpApiserver } from "./lib/cluster.ts";

const arg = (name: string, fallback: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? Number(process.argv[i + 1]) : fallback;
};
const NODES = arg("nodes", 1000);
const SECONDS = arg("seconds", 20);
const snapIdx = process.argv.indexOf("--snapshot");
const MODULE = "bench";
const MiB = 1024 * 1024;

// In-flight apiserver requests, by method (fetch wrapped before the module starts).
const inflight: Record<string, number> = {};
const realFetch = globalThis.fetch;
globalThis.fetch = (async (url: string, init?: RequestInit) => {
  const k = init?.method ?? "GET";
  inflight[k] = (inflight[k] ?? 0) + 1;
  try {
    return await realFetch(url, init as never);
  } finally {
    inflight[k]!--;
  }
}) as typeof fetch;
const cp = await startControlPlane();
const nats = await startNats();
const kube = await createKubeClient({ kubeconfig: cp.tokenKubeconfig, env: {} });
const ns = await cp.newNamespace("probe");
await warmUpApiserver(kube, ns);
const created: TinyNode[] = [];
await forEachBounded(benchNodes(MODULE, ns, NODES), 32, async (n) => created.push(await kube.create(tinyNodes, n, { namespace: ns })));
const routers = created.filter((n) => n.spec?.component === "router").map((n) => n.metadata.name!);
const port = freePort();
const t0 = performance.now();
const m = await startModule({
  name: MODULE,
  version: "1.0.0",
  namespace: ns,
  kubeconfig: cp.tokenKubeconfig,
  hostname: "probe-0",
  healthProbeBindAddress: `127.0.0.1:${port}`,
  grpcServerBindAddress: "127.0.0.1:0",
  env: { TINY_NATS_URL: nats.url },
});
await waitAllReady(kube, ns, MODULE, NODES, t0, 120_000);
await Bun.sleep(3000);
Bun.gc(true);
const before = heapStats();
console.error(
  `idle: heap ${(before.heapSize / MiB).toFixed(1)} MiB (capacity ${(before.heapCapacity / MiB).toFixed(1)}), objects ${before.objectCount}, rss ${(process.memoryUsage().rss / MiB).toFixed(1)}`,
);
const nc = await connectNats(nats.url, { name: "probe" });
let ok = 0;
const deadline = performance.now() + SECONDS * 1000;
const sampler = setInterval(() => {
  const h = heapStats();
  console.error(
    `  rss ${(process.memoryUsage.rss() / MiB).toFixed(0)} MiB extra ${((h.extraMemorySize ?? 0) / MiB).toFixed(1)} MiB heap ${(h.heapSize / MiB).toFixed(1)} MiB (capacity ${(h.heapCapacity / MiB).toFixed(1)}) external ${(process.memoryUsage().external / MiB).toFixed(1)} MiB objects ${h.objectCount} promises ${h.objectTypeCounts.Promise ?? 0} ok ${ok} inflight ${JSON.stringify(inflight)}`,
  );
}, 2000);
await Promise.all(
  Array.from({ length: 16 }, async (_, w) => {
    for (let i = w; performance.now() < deadline; i += 16) {
      const h = natsHeaders();
      h.set(H_TO, `${routers[i % routers.length]}:input`);
      h.set(H_FROM, "signal");
      await nc
        .request(
          `tinymodule.${MODULE}.msg`,
          new TextEncoder().encode(JSON.stringify({ context: { flow: i }, conditions: [{ route: "A", condition: true }] })),
          { headers: h, timeout: 10_000 },
        )
        .then(
          () => ok++,
          () => {},
        );
    }
  }),
);
clearInterval(sampler);
Bun.gc(true);
const after = heapStats();
console.error(`after ${SECONDS} s traffic (${ok} ok): heap ${(after.heapSize / MiB).toFixed(1)} MiB, objects ${after.objectCount}`);
const grew = Object.entries(after.objectTypeCounts)
  .map(([k, v]) => [k, v - (before.objectTypeCounts[k] ?? 0)] as const)
  .filter(([, d]) => d > 200)
  .sort((a, b) => b[1] - a[1])
  .slice(0, 30);
for (const [k, d] of grew) console.error(`  ${k.padEnd(32)} +${d}`);
if (snapIdx >= 0) writeFileSync(process.argv[snapIdx + 1]!, JSON.stringify(Bun.generateHeapSnapshot()));
await nc.close();
await m.stop("probe done");
await nats.dispose();
await cp.stop();
