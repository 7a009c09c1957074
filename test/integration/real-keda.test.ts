/**
 * Scale from zero in the real cluster (issue 36 item 5a): `tinyhost provision --autoscale` on the real
 * node (test/support/real-cluster.ts, its control plane with the aggregation layer), KEDA v2.21.0's
 * operator and metrics adapter beside it (test/support/keda.ts), the module and Debian's nats-server
 * from images built here. The broker Job prepares consumer `<module>`; idle, KEDA takes the module to
 * zero; one durable hop published from outside → KEDA activates the Deployment → a pod is scheduled,
 * its container starts, the module goes Ready and consumes the hop. The cold start and its parts are
 * printed (figures for docs/operations.md §15), never asserted as time.
 *
 * KEDA runs on the host, outside the cluster's DNS: its trigger is pointed at the broker pod's IP
 * (pod IPs answer from the host) instead of the headless Service name provision writes.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { dirname, join, resolve } from "node:path";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { getRealCluster, type RealCluster } from "../support/real-cluster.ts";
import { startKeda, type Keda } from "../support/keda.ts";
import { waitUntil } from "../support/process.ts";
import { applyObjects, flowObjects, waitForReconciled } from "../support/flows.ts";
import { buildFlow } from "../../src/cli/scaffold/flow-builder.ts";
import { createKubeClient } from "../../src/k8s/client/index.ts";
import { openBuildContext, type BuiltImage } from "../../scripts/image/build-context.ts";
import { buildModuleImage } from "../../scripts/image/module-image.ts";
import { buildNatsImage } from "../../scripts/image/nats-image.ts";
import { NATS_NAME } from "../../src/provision/broker-url.ts";
import { NATS_STORAGE, NATS_UID } from "../../src/provision/nats.ts";
import { kedaObjectName } from "../../src/provision/scaling.ts";
import { connectNats } from "../../src/transport/nats/connect.ts";
import { JetStreamTransport } from "../../src/transport/nats/jetstream.ts";
import { jetstreamManager } from "@nats-io/jetstream";
import type { NatsConnection } from "@nats-io/transport-node";

const ROOT = resolve(import.meta.dir, "../..");
const START_TIMEOUT_MS = 60 * 60_000;
const RELEASE = "shop";
const DEPLOYMENT = `${RELEASE}-controller-manager`;
const LOG = join(process.env.TINYHOST_TEST_TMP ?? tmpdir(), "real-keda-build.log");

let cluster: RealCluster;
let keda: Keda;
let ns: string;
let images: { module: BuiltImage; nats: BuiltImage };
let pvName: string;
let pvDir: string;
let nc: NatsConnection | undefined;

interface PodInfo {
  metadata: { name: string; deletionTimestamp?: string };
  status: {
    podIP?: string;
    conditions?: { type: string; status: string; lastTransitionTime?: string }[];
    containerStatuses?: { state?: { running?: { startedAt: string } } }[];
  };
}

async function api<T>(method: string, path: string, body?: unknown, contentType?: string): Promise<T> {
  const res = await cluster.controlPlane.request(method, path, body, contentType);
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${path}: HTTP ${res.status} ${text}`);
  return JSON.parse(text) as T;
}

const modulePods = async () =>
  (await api<{ items: PodInfo[] }>("GET", `/api/v1/namespaces/${ns}/pods?labelSelector=${encodeURIComponent("app.kubernetes.io/instance=shop")}`)).items.filter(
    (p) => !p.metadata.deletionTimestamp && p.metadata.name.startsWith(DEPLOYMENT),
  );
/** Every pod of the module, terminating ones too: a pod KEDA scaled away still pulls during its stop delay. */
const anyModulePods = async () =>
  (await api<{ items: PodInfo[] }>("GET", `/api/v1/namespaces/${ns}/pods?labelSelector=${encodeURIComponent("app.kubernetes.io/instance=shop")}`)).items.filter(
    (p) => p.metadata.name.startsWith(DEPLOYMENT),
  );
const replicas = async () => (await api<{ spec: { replicas?: number } }>("GET", `/apis/apps/v1/namespaces/${ns}/deployments/${DEPLOYMENT}`)).spec.replicas ?? 0;

beforeAll(async () => {
  cluster = await getRealCluster();
  const ctx = await openBuildContext({ file: LOG });
  images = { module: await buildModuleImage(ctx), nats: await buildNatsImage(ctx) };
  for (const image of Object.values(images)) await cluster.node.importImage(image.archive);
  keda = await startKeda(cluster.controlPlane, mkdtempSync(join(process.env.TINYHOST_TEST_TMP ?? tmpdir(), "real-keda-")));
  ns = await cluster.controlPlane.newNamespace("real-keda");
  pvName = `${ns}-nats-js`;
  pvDir = join(dirname(cluster.node.logDir), "pv", ns);
  const mk = await cluster.node.exec(["install", "-d", "-o", String(NATS_UID), "-g", String(NATS_UID), "-m", "0750", pvDir]);
  if (mk.code !== 0) throw new Error(`creating ${pvDir} on the node: ${mk.stderr}`);
  await api("POST", "/api/v1/persistentvolumes", {
    metadata: { name: pvName },
    spec: {
      capacity: { storage: NATS_STORAGE },
      accessModes: ["ReadWriteOnce"],
      persistentVolumeReclaimPolicy: "Retain",
      storageClassName: "",
      hostPath: { path: pvDir, type: "Directory" },
      claimRef: { namespace: ns, name: `${NATS_NAME}-js-${NATS_NAME}-0` },
    },
  });
  await waitUntil(
    "the namespace's default ServiceAccount",
    async () => (await cluster.controlPlane.request("GET", `/api/v1/namespaces/${ns}/serviceaccounts/default`)).ok,
    60_000,
    200,
  );
}, START_TIMEOUT_MS);

afterAll(async () => {
  await nc?.close();
  await keda?.stop();
  if (!cluster) return;
  if (ns) await cluster.controlPlane.request("DELETE", `/api/v1/namespaces/${ns}`);
  if (pvName) await cluster.controlPlane.request("DELETE", `/api/v1/persistentvolumes/${pvName}`);
  if (pvDir) await cluster.node.exec(["rm", "-rf", pvDir]);
}, 120_000);

describe("KEDA scales a provisioned tinyhost module from zero on its JetStream backlog", () => {
  test("idle → 0 replicas; one durable hop → a pod starts and consumes it (cold start with its parts)", async () => {
    const p = Bun.spawn(
      [
        process.execPath,
        "src/cli/main.ts",
        "provision",
        "-n",
        ns,
        "--name",
        RELEASE,
        "--image",
        images.module.ref,
        "--nats-image",
        images.nats.ref,
        "--no-otel",
        "--autoscale",
        "min=0,max=3,lag=50,polling=1,cooldown=30", // the cooldown outlasts the readiness probe (initial delay 5 s, period 10 s), so Ready is seen
        "--kubeconfig",
        cluster.controlPlane.tokenKubeconfig,
      ],
      { cwd: ROOT, stdout: "pipe", stderr: "pipe", env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? tmpdir(), TINYHOST_LOG_LEVEL: "warn" } },
    );
    const [out, err, code] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text(), p.exited]);
    if (code !== 0) throw new Error(`provision exited ${code}: ${err}\n${out}`);
    // The broker pod's IP: KEDA on the host reads /jsz there; the test publishes there.
    let natsIp = "";
    await waitUntil(
      "the broker pod Ready",
      async () => {
        const pod = await api<PodInfo>("GET", `/api/v1/namespaces/${ns}/pods/${NATS_NAME}-0`).catch(() => undefined);
        natsIp = pod?.status.podIP ?? "";
        return pod?.status.conditions?.some((c) => c.type === "Ready" && c.status === "True") === true;
      },
      240_000,
      500,
    );
    const so = `/apis/keda.sh/v1alpha1/namespaces/${ns}/scaledobjects/${kedaObjectName(RELEASE)}`;
    const current = await api<{ spec: { triggers: { type: string; metadata: Record<string, string> }[] } }>("GET", so);
    const triggers = current.spec.triggers.map((t) => ({ ...t, metadata: { ...t.metadata, natsServerMonitoringEndpoint: `${natsIp}:8222` } }));
    await api("PATCH", so, { spec: { triggers } }, "application/merge-patch+json");
    const secret = await api<{ data: { token: string } }>("GET", `/api/v1/namespaces/${ns}/secrets/tinysystems-nats-auth`);
    const token = Buffer.from(secret.data.token, "base64").toString("utf8");
    nc = await connectNats(`nats://${token}@${natsIp}:4222`);
    const jsm = await jetstreamManager(nc);
    // The broker Job made the consumer before any pod of the module.
    await waitUntil(
      "consumer shop made by the broker Job",
      async () => (await jsm.consumers.info("module-edges", RELEASE).catch(() => undefined)) !== undefined,
      240_000,
      500,
    );
    // A declared node for the hop (a debug sink), reconciled by the module's first pod before KEDA
    // takes it to zero: a hop to an undeclared node would wait 5 s for it and be terminated.
    const kube = await createKubeClient({ kubeconfig: cluster.controlPlane.tokenKubeconfig, env: {} });
    const flow = buildFlow({ project: "keda", flow: "cold", module: RELEASE, namespace: ns, nodes: { sink: { component: "debug" } }, edges: [] });
    const sink = flow.nodes.get("sink")!.metadata.name!;
    await applyObjects(kube, ns, flowObjects(flow, ns));
    await waitForReconciled(kube, ns, [sink], 240_000);
    const sender = await JetStreamTransport.create({ nc, module: "outside" });
    const runs: Record<string, number>[] = [];
    for (let run = 1; run <= 5; run++) {
      // Idle: KEDA takes the module to zero after the cooldown.
      await waitUntil("KEDA scales the idle module to 0", async () => (await replicas()) === 0 && (await anyModulePods()).length === 0, 240_000, 500);
      const before = (await jsm.consumers.info("module-edges", RELEASE)).delivered.consumer_seq;
      const t0 = Date.now();
      expect((await sender.send({ edgeId: "e", from: "f.outside.a-1:out", to: `${sink}:in`, data: { run }, depth: 1, runId: `cold-${run}` })).kind).not.toBe(
        "fail",
      );
      let activated = 0;
      await waitUntil(
        "KEDA activates the Deployment",
        async () => {
          if ((await replicas()) >= 1) activated ||= Date.now();
          return activated > 0;
        },
        120_000,
        100,
      );
      let consumed = 0;
      await waitUntil(
        "the hop consumed by the new pod",
        async () => {
          const info = await jsm.consumers.info("module-edges", RELEASE);
          if (info.delivered.consumer_seq > before && info.num_pending === 0 && info.num_ack_pending === 0) consumed ||= Date.now();
          return consumed > 0;
        },
        240_000,
        100,
      );
      // The pod's own timestamps (1 s resolution): scheduled, container started, Ready.
      let pod: PodInfo | undefined;
      await waitUntil(
        "the new pod Ready",
        async () => {
          pod = (await modulePods())[0];
          return pod?.status.conditions?.some((c) => c.type === "Ready" && c.status === "True") === true;
        },
        120_000,
        200,
      );
      const when = (type: string) => Date.parse(pod!.status.conditions?.find((c) => c.type === type)?.lastTransitionTime ?? "") - t0;
      runs.push({
        hopHandledMs: consumed - t0,
        kedaActivationMs: activated - t0,
        podScheduledMs: when("PodScheduled"),
        containerStartedMs: Date.parse(pod!.status.containerStatuses?.[0]?.state?.running?.startedAt ?? "") - t0,
        podReadyMs: when("Ready"),
      });
    }
    const median = (k: string) => runs.map((r) => r[k]!).sort((a, b) => a - b)[Math.floor(runs.length / 2)];
    const keys = Object.keys(runs[0]!);
    console.error(
      `[real-keda] cold start from zero, median of ${runs.length}: ${JSON.stringify(Object.fromEntries(keys.map((k) => [k, median(k)])))}; runs ${JSON.stringify(runs)} (pod times have 1 s resolution; Ready waits for the readiness probe's 5 s initial delay, the hop does not)`,
    );
    expect(runs).toHaveLength(5);
  }, 900_000);
});
