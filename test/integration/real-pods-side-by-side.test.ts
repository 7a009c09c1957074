/**
 * The pods of the side-by-side benchmark (bench/pods.ts) do what it measures, on the real node
 * (test/support/real-cluster.ts): tinyhost's image and the Go peer module's image, each as a plain
 * Pod with the chart's 128Mi memory limit and a 500m CPU limit (bench/lib/pod-bench.ts), go Ready
 * under the kubelet's probe, run inside cgroups that carry exactly those limits (CFS quota 50,000 µs
 * per 100,000 µs period, memory limit 128 MiB — checked from the host), and each answers a request
 * through its own `relay → relay → echo` chain over a NATS pod, the reply naming its runtime; and a
 * GET through Traefik reaches a tinyhost gateway pod's http_server and comes back through each
 * runtime's `relay` chain (bench/lib/pod-http.ts, the bench's `http` phase). No timings are
 * asserted (the figures are bench/pods.ts's).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createKubeClient, type KubeClient } from "../../src/k8s/client/index.ts";
import { tinyNodes } from "../../src/k8s/controllers/types.ts";
import { connectNats } from "../../src/transport/nats/connect.ts";
import { CoreNatsTransport } from "../../src/transport/nats/core.ts";
import { openBuildContext, type BuiltImage } from "../../scripts/image/build-context.ts";
import { buildGoPeerImage } from "../../scripts/image/go-tool-images.ts";
import { buildModuleImage } from "../../scripts/image/module-image.ts";
import { buildNatsImage } from "../../scripts/image/nats-image.ts";
import { waitAllReady } from "../../bench/lib/cluster.ts";
import { checkEcho } from "../../bench/lib/drive.ts";
import { peerChain, type Runtime } from "../../bench/lib/peer.ts";
import {
  containerId,
  createPodAndWaitReady,
  modulePod,
  podReady,
  prepareModuleNamespace,
  removeModuleAccess,
  type PodView,
} from "../../bench/lib/pod-bench.ts";
import { getRealCluster, type RealCluster } from "../support/real-cluster.ts";
import { containerCpu, containerProcess } from "../support/real-node/container-process.ts";
import { natsPodObjects } from "../support/real-node/nats-pod.ts";
import { waitUntil } from "../support/process.ts";
import { gatewayExposure, gatewayFlow } from "../../bench/lib/pod-http.ts";
import { publishToNode } from "../../src/transport/nats/publish.ts";

/** The cold build of the node's binaries can take half an hour on 2 busy cores; the images 5–8 min. */
const START_TIMEOUT_MS = 60 * 60_000;
const CPU = "500m";

let cluster: RealCluster;
let ns = "";
let kube: KubeClient;
let natsIp = "";
const images = {} as Record<Runtime | "nats", BuiltImage>;

beforeAll(async () => {
  cluster = await getRealCluster();
  const ctx = await openBuildContext({ file: join(process.env.TINYHOST_TEST_TMP ?? tmpdir(), "real-pods-build.log") });
  images.tinyhost = await buildModuleImage(ctx);
  images.go = await buildGoPeerImage(ctx);
  images.nats = await buildNatsImage(ctx);
  for (const image of Object.values(images)) await cluster.node.importImage(image.archive);
  const cp = cluster.controlPlane;
  ns = await cp.newNamespace("real-pods");
  await prepareModuleNamespace(cp, ns);
  const nats = natsPodObjects(images.nats.ref);
  for (const [path, body] of [
    [`/apis/apps/v1/namespaces/${ns}/deployments`, nats.deployment],
    [`/api/v1/namespaces/${ns}/services`, nats.service],
  ] as const) {
    const res = await cp.request("POST", path, body);
    if (!res.ok) throw new Error(`POST ${path}: HTTP ${res.status} ${await res.text()}`);
  }
  await waitUntil(
    "the NATS pod to be Ready",
    async () => {
      const res = await cp.request("GET", `/api/v1/namespaces/${ns}/pods?labelSelector=app%3Dnats`);
      natsIp = ((await res.json()) as { items: PodView[] }).items.find(podReady)?.status.podIP ?? "";
      return natsIp !== "";
    },
    180_000,
    250,
  );
  kube = await createKubeClient({ kubeconfig: cp.tokenKubeconfig, env: {} });
}, START_TIMEOUT_MS);

afterAll(async () => {
  if (ns && cluster) {
    await removeModuleAccess(cluster.controlPlane, ns);
    await cluster.controlPlane.request("DELETE", `/api/v1/namespaces/${ns}`);
  }
}, 60_000);

describe("tinyhost and Go peer pods with the same 128Mi / 500m limits", () => {
  const pods = {} as Record<Runtime, PodView>;
  const heads = {} as Record<Runtime, string>;

  test("both go Ready under the kubelet's probe, their chains reconciled", async () => {
    for (const [i, rt] of (["go", "tinyhost"] as const).entries()) {
      const module = `${rt === "go" ? "go" : "th"}-side`;
      const nodes = peerChain(ns, module, `d000000${i}`);
      for (const n of nodes) await kube.create(tinyNodes, n, { namespace: ns });
      const body = modulePod({
        runtime: rt,
        name: module,
        module,
        namespace: ns,
        image: images[rt].ref,
        cpu: CPU,
        natsUrl: `nats://nats.${ns}.svc:4222`,
        peerComponents: true,
      });
      pods[rt] = (await createPodAndWaitReady(cluster.controlPlane, ns, body, 180_000)).pod;
      await waitAllReady(kube, ns, module, nodes.length, performance.now(), 120_000);
      heads[rt] = `${nodes[0]!.metadata.name}:in`;
    }
    for (const rt of ["go", "tinyhost"] as const) {
      expect(podReady(pods[rt])).toBe(true);
      expect(pods[rt].status.containerStatuses?.[0]?.restartCount).toBe(0);
    }
  }, 400_000);

  test("each container's cgroups carry the limits: CFS quota 50,000 of 100,000 µs, memory 128 MiB", () => {
    for (const rt of ["go", "tinyhost"] as const) {
      const id = containerId(pods[rt]);
      const cpu = containerCpu(cluster.node.slot, id)();
      expect({ rt, quota: cpu.quotaUs, period: cpu.periodUs }).toEqual({ rt, quota: 50_000, period: 100_000 });
      expect({ rt, memory: containerProcess(cluster.node.slot, id).memoryLimitBytes }).toEqual({ rt, memory: 128 * 1024 * 1024 });
    }
  });

  test("each answers a request through its relay → relay → echo chain over the NATS pod, and its CPU is counted in its cgroup", async () => {
    const nc = await connectNats(`nats://${natsIp}:4222`);
    try {
      const sender = new CoreNatsTransport({ nc, module: "real-pods-client" });
      for (const rt of ["go", "tinyhost"] as const) {
        const cpu = containerCpu(cluster.node.slot, containerId(pods[rt]));
        const before = cpu().usageNs;
        await checkEcho(sender, rt, heads[rt]);
        expect(cpu().usageNs).toBeGreaterThan(before);
      }
    } finally {
      await nc.close();
    }
  }, 60_000);

  test("a GET through Traefik reaches a tinyhost gateway pod's http_server and is answered through each runtime's relay chain", async () => {
    const cp = cluster.controlPlane;
    const gateway = "gw-side";
    const flows = (["go", "tinyhost"] as const).map((rt, i) => ({ rt, ...gatewayFlow(ns, `d100000${i}`, gateway, `${rt === "go" ? "go" : "th"}-side`) }));
    for (const f of flows) for (const n of f.nodes) await kube.create(tinyNodes, n, { namespace: ns });
    const body = modulePod({
      runtime: "tinyhost",
      name: gateway,
      module: gateway,
      namespace: ns,
      image: images.tinyhost.ref,
      cpu: CPU,
      natsUrl: `nats://nats.${ns}.svc:4222`,
      peerComponents: false,
    });
    (body.metadata as { labels: Record<string, string> }).labels.role = gateway;
    await createPodAndWaitReady(cp, ns, body, 180_000);
    await waitAllReady(kube, ns, gateway, 6, performance.now(), 120_000);
    const nc = await connectNats(`nats://${natsIp}:4222`);
    try {
      for (const f of flows) {
        let port = 0;
        let sentAt = 0;
        await waitUntil(
          `${f.rt}: the gateway's http_server to bind a port`,
          async () => {
            if (performance.now() - sentAt > 5_000) {
              sentAt = performance.now();
              await publishToNode(nc, f.signal, "_control", { send: true });
            }
            port = Number((await kube.get(tinyNodes, f.server, ns).catch(() => undefined))?.status?.metadata?.port ?? 0);
            return port > 0;
          },
          90_000,
          250,
        );
        const host = `${f.rt}.gw-side.test`;
        for (const [path, obj] of gatewayExposure(ns, `gw-side-${f.rt}`, { role: gateway }, port, host)) {
          const res = await cp.request("POST", path, obj);
          expect({ path, status: res.status }).toEqual({ path, status: 201 });
        }
        let got = "";
        await waitUntil(
          `${f.rt}: GET /probe through Traefik (Host ${host}) to answer 200`,
          async () => {
            const res = await fetch(`${cluster.node.ingressUrl}/probe`, { headers: { host }, signal: AbortSignal.timeout(10_000) }).catch(() => undefined);
            got = res ? `${res.status} ${res.headers.get("content-type")?.split(";")[0]} ${await res.text()}` : "";
            return got.startsWith("200 ");
          },
          90_000,
          250,
        );
        expect({ rt: f.rt, got }).toEqual({ rt: f.rt, got: "200 application/json /probe" });
      }
    } finally {
      await nc.close();
    }
  }, 400_000);
});
