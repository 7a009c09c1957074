/**
 * tinyhost and the Go SDK side by side in pods (issue 31 item 7): the Go peer module's image
 * (tinyhost-go-peer, test/go/peer) and tinyhost's image (the Dockerfile), each as a plain Pod on
 * the real node (test/support/real-cluster.ts) with the same resources — the chart's limits (128Mi
 * memory, CPU 500m) and requests (10m CPU, 64Mi), then the same with a 1 CPU limit — the same
 * flags, probe and securityContext (bench/lib/pod-bench.ts), runs interleaved (go, tinyhost,
 * then tinyhost, go, …)
 * so the machine's other load hits both. Every row's value is tinyhost's figure, its baseline the
 * Go figure of the same run, ratio = tinyhost ÷ Go; medians.
 *
 * - start → Ready: a fresh pod and module name each run (no Lease to wait out), compiled-in
 *   components only (as bench/vs-go.ts): the local time from the create request to the first GET
 *   that shows the kubelet's Ready condition (polled every 50 ms; the readiness probe runs every
 *   second, as both pods have it), and — information — the kubelet's own timestamps (Ready's
 *   lastTransitionTime − creationTimestamp, 1 s resolution) and the first /readyz 200 on the pod
 *   IP from the host (polled every 5 ms: the process's own readiness, without the probe period).
 * - NATS request/reply through one `echo` node and through `relay → relay → echo`, 1 and 64 in
 *   flight: requests from this process (tinyhost's core NATS sender, the same for both;
 *   bench/lib/drive.ts)
 *   over a NATS pod (Debian's nats-server) to the module pods; req/s, p50, and the container's
 *   CPU per 1,000 requests from its cgroup (`cpuacct.usage`), plus the CFS throttling the limit
 *   caused (`cpu.stat`), in the note.
 * - HTTP through the Ingress into a 3-hop flow (phase `http`, bench/lib/pod-http.ts): GET through
 *   Traefik (Host header) → a tinyhost gateway pod's `http_server` (the same pod and limits for
 *   both rounds: the Go peer has no HTTP component) → `relay → relay → relay` in the runtime's pod
 *   → the gateway's `transform` → `response`, 1 and 64 in flight (fetch loops); req/s, p50, p99,
 *   and the chain pod's CPU per 1,000 requests (the gateway's in the note).
 * - the machine's 1-minute load average, sampled every 5 s over the run: the machine is shared.
 *
 * Needs root and a real node: when not root, or the node does not start, it prints why and its
 * only row is `pods_skipped` (the other benchmarks are unaffected). The images are built (or found
 * in buildah's cache) and imported into the node's containerd; nothing is pulled.
 *   ./node_modules/.bin/bun bench/pods.ts [--quick]       (npm run bench -- --only pods)
 * `PODS_CPU=500m` runs one CPU limit only; `PODS_PHASES=start`, `nats` or `http` (comma-separated) those phases only.
 */
process.env.TINYHOST_LOG_LEVEL ??= "silent";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { createKubeClient } from "../src/k8s/client/index.ts";
import { tinyNodes } from "../src/k8s/controllers/types.ts";
import type { TinyNode } from "../src/core/api/index.ts";
import { connectNats } from "../src/transport/nats/connect.ts";
import { CoreNatsTransport } from "../src/transport/nats/core.ts";
import { publishToNode } from "../src/transport/nats/publish.ts";
import { startRealCluster, type RealCluster } from "../test/support/real-cluster.ts";
import { containerCpu, type ContainerCpu } from "../test/support/real-node/container-process.ts";
import { natsPodObjects } from "../test/support/real-node/nats-pod.ts";
import { waitUntil } from "../test/support/process.ts";
import { openBuildContext } from "../scripts/image/build-context.ts";
import { buildGoPeerImage } from "../scripts/image/go-tool-images.ts";
import { buildModuleImage } from "../scripts/image/module-image.ts";
import { buildNatsImage } from "../scripts/image/nats-image.ts";
import { forEachBounded, waitAllReady, warmUpApiserver } from "./lib/cluster.ts";
import { checkEcho, driveRequests, type Drive } from "./lib/drive.ts";
import { peerChain, type Runtime } from "./lib/peer.ts";
import {
  containerId,
  createPodAndWaitReady,
  deletePodAndWait,
  modulePod,
  podReady,
  prepareModuleNamespace,
  removeModuleAccess,
  type PodStart,
} from "./lib/pod-bench.ts";
import { driveHttp, gatewayExposure, gatewayFlow, type GatewayFlow, type HttpDrive } from "./lib/pod-http.ts";
import { emit, median, progress, quick, row, type BenchRow } from "./lib/result.ts";

const log = (line: string) => progress("pods", line);
const START_RUNS = quick ? 3 : 5;
const RR_N = quick ? 1_000 : 3_000;
const RR_ROUNDS = 3;
const HTTP_N = quick ? 500 : 1_500;
const CPU_LIMITS = (process.env.PODS_CPU ?? "500m,1").split(",").map((s) => s.trim());
const PHASES = new Set((process.env.PODS_PHASES ?? "start,nats,http").split(",").map((p) => p.trim()));
const RUNTIMES: readonly Runtime[] = ["go", "tinyhost"];
const short = (rt: Runtime) => (rt === "go" ? "go" : "th");
const tag = (cpu: string) => `cpu${cpu}`;
const rows: BenchRow[] = [];

function skip(reason: string): never {
  log(`skipped: ${reason}`);
  emit([row({ name: "pods_skipped", value: 1, unit: "skipped", note: reason })]);
  process.exit(0);
}

if (process.getuid?.() !== 0) skip("not root: the real node (containerd, kubelet, a network namespace) needs root");

const loads: number[] = [];
const loadTimer = setInterval(() => loads.push(loadavg()[0]!), 5_000);
loads.push(loadavg()[0]!);

let cluster: RealCluster;
const t0 = performance.now();
try {
  cluster = await startRealCluster({ onPart: (name, ms) => log(`node: ${name} after ${ms} ms`) });
} catch (err) {
  clearInterval(loadTimer);
  skip(`the real node did not start: ${(err as Error).message.slice(0, 400)}`);
}
log(`real cluster up in ${Math.round(performance.now() - t0)} ms (slot ${cluster.node.slot})`);
const cp = cluster.controlPlane;
let ns = "";
const failures: string[] = [];

try {
  const ctx = await openBuildContext({ file: join(tmpdir(), "tinyhost-bench-pods-images.log") });
  const images = { tinyhost: await buildModuleImage(ctx), go: await buildGoPeerImage(ctx) };
  const nats = await buildNatsImage(ctx);
  for (const image of [images.tinyhost, images.go, nats]) await cluster.node.importImage(image.archive);
  log(`images: ${images.tinyhost.ref}, ${images.go.ref}, ${nats.ref} imported`);

  ns = await cp.newNamespace("pods-bench");
  await prepareModuleNamespace(cp, ns);
  const natsObjects = natsPodObjects(nats.ref);
  for (const [path, body] of [
    [`/apis/apps/v1/namespaces/${ns}/deployments`, natsObjects.deployment],
    [`/api/v1/namespaces/${ns}/services`, natsObjects.service],
  ] as const) {
    const res = await cp.request("POST", path, body);
    if (!res.ok) throw new Error(`POST ${path}: HTTP ${res.status} ${await res.text()}`);
  }
  let natsIp = "";
  await waitUntil(
    "the NATS pod to be Ready",
    async () => {
      const res = await cp.request("GET", `/api/v1/namespaces/${ns}/pods?labelSelector=app%3Dnats`);
      const pod = ((await res.json()) as { items: Parameters<typeof podReady>[0][] }).items.find(podReady);
      natsIp = pod?.status.podIP ?? "";
      return natsIp !== "";
    },
    180_000,
    250,
  );
  const podNatsUrl = `nats://nats.${ns}.svc:4222`;
  const kube = await createKubeClient({ kubeconfig: cp.tokenKubeconfig, env: {} });
  await warmUpApiserver(kube, ns);

  for (const cpu of CPU_LIMITS) {
    if (PHASES.has("start")) {
      try {
        await startPhase(cpu);
      } catch (err) {
        fail(`start_${tag(cpu)}`, err);
      }
    }
    if (PHASES.has("nats")) {
      try {
        await natsPhase(cpu);
      } catch (err) {
        fail(`nats_${tag(cpu)}`, err);
      }
    }
    if (PHASES.has("http")) {
      try {
        await httpPhase(cpu);
      } catch (err) {
        fail(`http_${tag(cpu)}`, err);
      }
    }
  }

  /** Fresh pods, one at a time, interleaved; run -1 of each runtime is a warm-up (first pod of an image). */
  async function startPhase(cpu: string): Promise<void> {
    const got: Record<Runtime, PodStart[]> = { go: [], tinyhost: [] };
    for (let i = -1; i < START_RUNS; i++) {
      for (const rt of i % 2 ? [...RUNTIMES].reverse() : RUNTIMES) {
        const name = `${short(rt)}-${cpu.replace(/\D/g, "")}-s${i < 0 ? "w" : i}`;
        const body = modulePod({ runtime: rt, name, module: name, namespace: ns, image: images[rt].ref, cpu, natsUrl: podNatsUrl, peerComponents: false });
        const s = await createPodAndWaitReady(cp, ns, body);
        if (i >= 0) got[rt].push(s);
        log(
          `${tag(cpu)} start ${rt} #${i}: Ready seen ${Math.round(s.readyMs)} ms, /readyz ${Math.round(s.readyzMs)} ms, kubelet Ready ${s.kubeletReadyS} s (container started ${s.kubeletStartedS} s)`,
        );
        await deletePodAndWait(cp, ns, name);
      }
    }
    const med = (rt: Runtime, k: "readyMs" | "readyzMs" | "kubeletReadyS") => median(got[rt].map((s) => s[k]));
    const list = (rt: Runtime, k: "readyMs" | "readyzMs") => got[rt].map((s) => Math.round(s[k])).join(", ");
    const limits = `memory limit 128Mi, CPU limit ${cpu} (requests: the chart's 10m, 64Mi)`;
    rows.push(
      row({
        name: `pods_${tag(cpu)}_start_ready`,
        value: med("tinyhost", "readyMs"),
        baseline: med("go", "readyMs"),
        unit: "ms",
        note: `pod create → the kubelet's Ready condition (GET every 50 ms; readiness probe /readyz every 1 s), ${limits}, fresh pod and module, compiled-in components, median of ${START_RUNS} each, interleaved; go ${list("go", "readyMs")}, tinyhost ${list("tinyhost", "readyMs")} ms; kubelet timestamps (1 s resolution): Ready − created go ${med("go", "kubeletReadyS")} s, tinyhost ${med("tinyhost", "kubeletReadyS")} s; baseline: the Go peer module's pod`,
      }),
      row({
        name: `pods_${tag(cpu)}_start_readyz`,
        value: med("tinyhost", "readyzMs"),
        baseline: med("go", "readyzMs"),
        unit: "ms",
        note: `pod create → first /readyz 200 on the pod IP from the host (every 5 ms): the process's own readiness, without the probe period; go ${list("go", "readyzMs")}, tinyhost ${list("tinyhost", "readyzMs")} ms`,
      }),
    );
  }

  /** One pod of each runtime with a chain each; shapes × windows × interleaved rounds. */
  async function natsPhase(cpu: string): Promise<void> {
    const nc = await connectNats(`nats://${natsIp}:4222`);
    const sender = new CoreNatsTransport({ nc, module: "pods-bench-client" });
    const mods = {} as Record<Runtime, { name: string; one: string; chain: string; cpu: () => ContainerCpu }>;
    try {
      for (const [i, rt] of RUNTIMES.entries()) {
        const module = `${short(rt)}-rr-${cpu.replace(/\D/g, "")}`;
        const nodes: TinyNode[] = peerChain(ns, module, `c${cpu.replace(/\D/g, "").padStart(6, "0")}${i}`);
        await forEachBounded(nodes, 8, (n) => kube.create(tinyNodes, n, { namespace: ns }));
        const body = modulePod({ runtime: rt, name: module, module, namespace: ns, image: images[rt].ref, cpu, natsUrl: podNatsUrl, peerComponents: true });
        const s = await createPodAndWaitReady(cp, ns, body);
        await waitAllReady(kube, ns, module, nodes.length, performance.now(), 120_000);
        const reader = containerCpu(cluster.node.slot, containerId(s.pod));
        const limit = reader();
        log(`${tag(cpu)} ${rt} pod ${module}: cgroup quota ${limit.quotaUs}/${limit.periodUs} µs`);
        mods[rt] = { name: module, one: `${nodes[2]!.metadata.name}:in`, chain: `${nodes[0]!.metadata.name}:in`, cpu: reader };
        await checkEcho(sender, rt, mods[rt].one);
        await checkEcho(sender, rt, mods[rt].chain);
        await driveRequests(sender, mods[rt].chain, 500, 16, () => reader().usageNs / 1e6, rt); // warm-up
      }
      for (const shape of ["one", "chain"] as const) {
        for (const window of [1, 64]) {
          const got: Record<Runtime, (Drive & { throttled: number })[]> = { go: [], tinyhost: [] };
          for (let r = 0; r < RR_ROUNDS; r++) {
            for (const rt of r % 2 ? [...RUNTIMES].reverse() : RUNTIMES) {
              const m = mods[rt];
              const before = m.cpu();
              const d = await driveRequests(sender, m[shape], RR_N, window, () => m.cpu().usageNs / 1e6, rt);
              const after = m.cpu();
              // Share of the CFS periods of the drive in which the limit stopped the container.
              const periods = (d.rate > 0 ? RR_N / d.rate : 0) * (1e6 / after.periodUs);
              got[rt].push({ ...d, throttled: periods > 0 ? (after.throttledPeriods - before.throttledPeriods) / periods : Number.NaN });
            }
          }
          const med = (rt: Runtime, k: keyof Drive | "throttled") => median(got[rt].map((d) => d[k]));
          const label = `pods_${tag(cpu)}_nats_${shape === "one" ? "one_node" : "chain3"}_w${window}`;
          const pct = (x: number) => `${Math.round(x * 100)} %`;
          log(
            `${label}: go ${Math.round(med("go", "rate"))} req/s (cpu ${med("go", "cpuPer1k").toFixed(0)} ms/1k, throttled ${pct(med("go", "throttled"))}), tinyhost ${Math.round(med("tinyhost", "rate"))} req/s (cpu ${med("tinyhost", "cpuPer1k").toFixed(0)} ms/1k, throttled ${pct(med("tinyhost", "throttled"))})`,
          );
          rows.push(
            row({
              name: `${label}_rate`,
              value: med("tinyhost", "rate"),
              baseline: med("go", "rate"),
              unit: "req/s",
              note: `core NATS request/reply through a NATS pod, ${shape === "one" ? "one echo node" : "relay → relay → echo"}, ${window} in flight, ${RR_N} requests × ${RR_ROUNDS} interleaved rounds (median), pods with memory 128Mi and CPU ${cpu} limits (the chart's requests); CFS periods throttled: go ${pct(med("go", "throttled"))}, tinyhost ${pct(med("tinyhost", "throttled"))}; baseline: the Go peer module's pod`,
            }),
            row({ name: `${label}_p50`, value: med("tinyhost", "p50"), baseline: med("go", "p50"), unit: "ms", digits: 3 }),
            row({
              name: `${label}_cpu`,
              value: med("tinyhost", "cpuPer1k"),
              baseline: med("go", "cpuPer1k"),
              unit: "CPU ms/1k req",
              digits: 1,
              note: "the container's cgroup cpuacct.usage over the drive, per 1,000 requests",
            }),
          );
        }
      }
    } finally {
      await nc.close().catch(() => undefined);
      await Promise.all(Object.values(mods).map((m) => deletePodAndWait(cp, ns, m.name).catch(() => undefined)));
    }
  }
  /**
   * One chain pod per runtime and one tinyhost gateway pod (same image and limits for both rounds)
   * with a flow per runtime (bench/lib/pod-http.ts); Service and Ingress by hand; HTTP through
   * Traefik at 1 and 64 in flight, interleaved rounds.
   */
  async function httpPhase(cpu: string): Promise<void> {
    const digits = cpu.replace(/\D/g, "");
    const gateway = `gw-http-${digits}`;
    const nc = await connectNats(`nats://${natsIp}:4222`);
    const pods: string[] = [];
    const flows = {} as Record<Runtime, GatewayFlow & { host: string; expect: string; cpu: () => ContainerCpu }>;
    try {
      for (const [i, rt] of RUNTIMES.entries()) {
        const chain = `${short(rt)}-hc-${digits}`;
        const flow = gatewayFlow(ns, `e${digits.padStart(6, "0")}${i}`, gateway, chain);
        await forEachBounded(flow.nodes, 8, (n) => kube.create(tinyNodes, n, { namespace: ns }));
        const body = modulePod({
          runtime: rt,
          name: chain,
          module: chain,
          namespace: ns,
          image: images[rt].ref,
          cpu,
          natsUrl: podNatsUrl,
          peerComponents: true,
        });
        pods.push(chain);
        const s = await createPodAndWaitReady(cp, ns, body);
        await waitAllReady(kube, ns, chain, 3, performance.now(), 120_000);
        flows[rt] = { ...flow, host: `${short(rt)}-${digits}.gw.bench.test`, expect: "", cpu: containerCpu(cluster.node.slot, containerId(s.pod)) };
      }
      const gwBody = modulePod({
        runtime: "tinyhost",
        name: gateway,
        module: gateway,
        namespace: ns,
        image: images.tinyhost.ref,
        cpu,
        natsUrl: podNatsUrl,
        peerComponents: false,
      });
      (gwBody.metadata as { labels: Record<string, string> }).labels.role = gateway;
      pods.push(gateway);
      const gw = await createPodAndWaitReady(cp, ns, gwBody);
      await waitAllReady(kube, ns, gateway, 3 * RUNTIMES.length, performance.now(), 120_000);
      const gwCpu = containerCpu(cluster.node.slot, containerId(gw.pod));
      for (const rt of RUNTIMES) {
        const f = flows[rt];
        let port = 0;
        let sentAt = 0;
        await waitUntil(
          `${rt}: the gateway's http_server to bind a port`,
          async () => {
            // The leader may not hold its Lease yet when the first signal arrives: send again.
            if (performance.now() - sentAt > 5_000) {
              sentAt = performance.now();
              await publishToNode(nc, f.signal, "_control", { send: true });
            }
            const node = await kube.get(tinyNodes, f.server, ns).catch(() => undefined);
            port = Number(node?.status?.metadata?.port ?? 0);
            return port > 0;
          },
          90_000,
          250,
        );
        for (const [path, body] of gatewayExposure(ns, `gw-${short(rt)}-${digits}`, { role: gateway }, port, f.host)) {
          const res = await cp.request("POST", path, body);
          if (!res.ok) throw new Error(`POST ${path}: HTTP ${res.status} ${await res.text()}`);
        }
        let last = "";
        await waitUntil(
          `${rt}: a 200 through the Ingress (Host ${f.host})`,
          async () => {
            const res = await fetch(`${cluster.node.ingressUrl}/bench`, { headers: { host: f.host }, signal: AbortSignal.timeout(10_000) }).catch(
              (e: Error) => e,
            );
            if (res instanceof Error) return ((last = res.message), false);
            const text = await res.text();
            last = `HTTP ${res.status} ${text.slice(0, 200)}`;
            if (res.status !== 200 || !text.includes("/bench")) return false;
            f.expect = text;
            return true;
          },
          90_000,
          250,
        ).catch((err: Error) => {
          throw new Error(`${err.message}; last answer: ${last}`);
        });
        log(`${tag(cpu)} http ${rt}: port ${port}, Host ${f.host} answers ${f.expect}`);
        await driveHttp(`${cluster.node.ingressUrl}/bench`, f.host, 300, 16, f.expect); // warm-up
      }
      for (const window of [1, 64]) {
        const got: Record<Runtime, (HttpDrive & { chainCpu: number; gwCpu: number; chainThrottled: number; gwThrottled: number })[]> = { go: [], tinyhost: [] };
        for (let r = 0; r < RR_ROUNDS; r++) {
          for (const rt of r % 2 ? [...RUNTIMES].reverse() : RUNTIMES) {
            const f = flows[rt];
            const c0 = f.cpu();
            const g0 = gwCpu();
            const d = await driveHttp(`${cluster.node.ingressUrl}/bench`, f.host, HTTP_N, window, f.expect);
            const [c1, g1] = [f.cpu(), gwCpu()];
            const per1k = (ns0: number, ns1: number) => ((ns1 - ns0) / 1e6 / HTTP_N) * 1000;
            // Share of the CFS periods of the drive in which the limit stopped the container.
            const periods = (d.rate > 0 ? HTTP_N / d.rate : 0) * (1e6 / c1.periodUs);
            const throttled = (a: ContainerCpu, b: ContainerCpu) => (periods > 0 ? (b.throttledPeriods - a.throttledPeriods) / periods : Number.NaN);
            got[rt].push({
              ...d,
              chainCpu: per1k(c0.usageNs, c1.usageNs),
              gwCpu: per1k(g0.usageNs, g1.usageNs),
              chainThrottled: throttled(c0, c1),
              gwThrottled: throttled(g0, g1),
            });
          }
        }
        const med = (rt: Runtime, k: keyof HttpDrive | "chainCpu" | "gwCpu" | "chainThrottled" | "gwThrottled") => median(got[rt].map((d) => d[k]));
        const label = `pods_${tag(cpu)}_http_chain3_w${window}`;
        const pct = (x: number) => `${Math.round(x * 100)} %`;
        log(
          `${label}: go ${Math.round(med("go", "rate"))} req/s p50 ${med("go", "p50").toFixed(2)} p99 ${med("go", "p99").toFixed(2)} ms (chain cpu ${med("go", "chainCpu").toFixed(0)}, gateway ${med("go", "gwCpu").toFixed(0)} ms/1k), tinyhost ${Math.round(med("tinyhost", "rate"))} req/s p50 ${med("tinyhost", "p50").toFixed(2)} p99 ${med("tinyhost", "p99").toFixed(2)} ms (chain cpu ${med("tinyhost", "chainCpu").toFixed(0)}, gateway ${med("tinyhost", "gwCpu").toFixed(0)} ms/1k)`,
        );
        rows.push(
          row({
            name: `${label}_rate`,
            value: med("tinyhost", "rate"),
            baseline: med("go", "rate"),
            unit: "req/s",
            note: `GET through Traefik (Host header) → a tinyhost gateway pod's http_server → relay → relay → relay in the runtime's pod (core NATS via the NATS pod) → the gateway's transform → response, ${window} in flight (fetch loops, keep-alive), ${HTTP_N} requests × ${RR_ROUNDS} interleaved rounds (median); chain pods and the gateway pod with memory 128Mi and CPU ${cpu} limits; the gateway is the same tinyhost pod for both (the Go peer has no HTTP component); CFS periods throttled: chain go ${pct(med("go", "chainThrottled"))}, tinyhost ${pct(med("tinyhost", "chainThrottled"))}, gateway ${pct(med("go", "gwThrottled"))} / ${pct(med("tinyhost", "gwThrottled"))} (go / tinyhost rounds); baseline: the Go peer module's chain pod`,
          }),
          row({ name: `${label}_p50`, value: med("tinyhost", "p50"), baseline: med("go", "p50"), unit: "ms", digits: 2 }),
          row({ name: `${label}_p99`, value: med("tinyhost", "p99"), baseline: med("go", "p99"), unit: "ms", digits: 2 }),
          row({
            name: `${label}_cpu`,
            value: med("tinyhost", "chainCpu"),
            baseline: med("go", "chainCpu"),
            unit: "CPU ms/1k req",
            digits: 1,
            note: `the chain pod's cgroup cpuacct.usage over the drive, per 1,000 requests; the gateway pod's (information): with the go chain ${med("go", "gwCpu").toFixed(1)}, with the tinyhost chain ${med("tinyhost", "gwCpu").toFixed(1)} ms/1k`,
          }),
        );
      }
    } finally {
      await nc.close().catch(() => undefined);
      await Promise.all(pods.map((p) => deletePodAndWait(cp, ns, p).catch(() => undefined)));
    }
  }
} catch (err) {
  fail("setup", err);
} finally {
  clearInterval(loadTimer);
  loads.push(loadavg()[0]!);
  if (ns) {
    await removeModuleAccess(cp, ns);
    await cp.request("DELETE", `/api/v1/namespaces/${ns}`).catch(() => undefined);
  }
  await cluster.stop();
}

function fail(phase: string, err: unknown): void {
  const text = err instanceof Error ? err.message : String(err);
  log(`${phase} FAILED: ${text}`);
  failures.push(phase);
  rows.push(row({ name: `pods_${phase}_failed`, value: 1, unit: "error", note: text.slice(0, 300) }));
}

const sorted = [...loads].sort((a, b) => a - b);
rows.push(
  row({
    name: "pods_load_average",
    value: median(loads),
    unit: "load (1 min)",
    digits: 2,
    note: `the machine's 1-minute load average every 5 s over this benchmark (${loads.length} samples): median ${median(loads).toFixed(2)}, min ${sorted[0]!.toFixed(2)}, max ${sorted.at(-1)!.toFixed(2)}`,
  }),
);
emit(rows);
