/**
 * Faults on a real node (issue 31 item 6): a module installed by `tinyhost provision --image <ref>`
 * (two replicas, the broker as a pod on a volume) serves a durable 2-node flow `s1 → s2`
 * (test/fixtures/real-faults-components/fault-step.ts, loaded from a ConfigMap) while the test
 * keeps a steady load of durable runs on it; each case injects one fault under that load:
 * 1. kill -9 of the leader's module container (the kubelet restarts it);
 * 2. deletion of the leader pod (the Deployment makes a new one; the other replica takes the Lease);
 * 3. deletion of the NATS pod (the StatefulSet makes it again on the same volume);
 * 4. a kubelet restart; 5. a kube-apiserver restart (same port, certificates and etcd).
 * Each case prints hops sent / completed / duplicated / lost, the load's publish retries, the
 * broker's redeliveries and terminations, and how long until the module's pods are Ready, every
 * TinyNode status is OK and a run begun after the fault has completed; it asserts 0 lost (and 0
 * duplicated where the design promises it: every fault but the kill -9, whose handler may finish
 * before its step record is written and run again on redelivery) and that everything recovers
 * within a generous deadline (polled, never timed).
 *
 * The file starts its own cluster (startRealCluster, not the run's shared getRealCluster): cases 4
 * and 5 restart the kubelet and the apiserver, which other test files of the same process would see.
 * The test reaches the broker through a NodePort Service on the node's address, as a client outside
 * the cluster does. The step journal is a hostPath directory, so the namespace is not labelled
 * Pod Security `restricted` (real-provision.test.ts covers that).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { tmpdir } from "node:os";
import { jetstreamManager, type JetStreamManager } from "@nats-io/jetstream";
import type { NatsConnection } from "@nats-io/transport-node";
import { buildFlow } from "../../src/cli/scaffold/flow-builder.ts";
import { createKubeClient, type KubeClient } from "../../src/k8s/client/index.ts";
import { mintRun } from "../../src/core/durable/run.ts";
import { connectNats } from "../../src/transport/nats/connect.ts";
import { JetStreamTransport } from "../../src/transport/nats/jetstream.ts";
import { NATS_AUTH_SECRET, NATS_NAME, NATS_TOKEN_KEY } from "../../src/provision/broker-url.ts";
import { NATS_STORAGE, NATS_UID } from "../../src/provision/nats.ts";
import { startRealCluster, type RealCluster } from "../support/real-cluster.ts";
import { containerProcess } from "../support/real-node/container-process.ts";
import { applyObjects, flowObjects, waitForReconciled } from "../support/flows.ts";
import { waitUntil } from "../support/process.ts";
import { openBuildContext, type BuiltImage } from "../../scripts/image/build-context.ts";
import { buildModuleImage } from "../../scripts/image/module-image.ts";
import { buildNatsImage } from "../../scripts/image/nats-image.ts";

const ROOT = resolve(import.meta.dir, "../..");
const START_TIMEOUT_MS = 60 * 60_000;
const RELEASE = "faults";
const LOG = join(process.env.TINYHOST_TEST_TMP ?? tmpdir(), "real-faults-build.log");
/** Work per step, ms: hops are in flight when a fault comes. */
const HOLD_MS = 50;
/** Runs begun per 100 ms tick (2 hops each): ~100 hops/s. */
const RUNS_PER_TICK = 5;
/** AckWait of the module (ms): how long a hop held by a killed container waits for redelivery (Go: 30 000). */
const ACK_WAIT_MS = 5_000;
/** Generous bound for everything to be OK again after a fault (polled). */
const RECOVERY_DEADLINE_MS = 240_000;
/** Generous bound for every hop of a case to be done after the load stops (polled). */
const DRAIN_DEADLINE_MS = 180_000;

let cluster: RealCluster;
let kube: KubeClient;
let ns: string;
let images: { module: BuiltImage; nats: BuiltImage };
let pvName: string;
const hostDirs: string[] = [];
let journalFile: string;
let nc: NatsConnection;
let jsm: JetStreamManager;
let sender: JetStreamTransport;
let names: { s1: string; s2: string };
const terminated: string[] = [];
const figures: string[] = [];

interface PodInfo {
  metadata: { name: string; uid: string; labels?: Record<string, string>; deletionTimestamp?: string };
  status: {
    phase?: string;
    podIP?: string;
    conditions?: { type: string; status: string }[];
    containerStatuses?: { name: string; ready: boolean; restartCount: number; containerID?: string }[];
  };
}
interface NodeStatus {
  metadata: { name: string; generation?: number };
  status?: { status?: string; error?: boolean; observedGeneration?: number };
}
interface Line {
  pod: string;
  node: string;
  runId: string;
  at: number;
}

async function api<T>(method: string, path: string, body?: unknown, contentType?: string): Promise<T> {
  const res = await cluster.controlPlane.request(method, path, body, contentType);
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${path}: HTTP ${res.status} ${text}`);
  return JSON.parse(text) as T;
}
const list = async <T>(path: string): Promise<T[]> => (await api<{ items: T[] }>("GET", path)).items;
const isReady = (p: PodInfo) => !p.metadata.deletionTimestamp && (p.status.conditions ?? []).some((c) => c.type === "Ready" && c.status === "True");
const modulePods = async () =>
  (await list<PodInfo>(`/api/v1/namespaces/${ns}/pods`)).filter((p) => p.metadata.name.startsWith(`${RELEASE}-controller-manager-`));
const natsPods = async () => (await list<PodInfo>(`/api/v1/namespaces/${ns}/pods`)).filter((p) => p.metadata.name.startsWith(`${NATS_NAME}-`));

/** Runs the tinyhost CLI from source against the real cluster. */
async function tinyhost(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const p = Bun.spawn([process.execPath, "src/cli/main.ts", ...args, "--kubeconfig", cluster.controlPlane.tokenKubeconfig], {
    cwd: ROOT,
    stdout: "pipe",
    stderr: "pipe",
    env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? tmpdir(), TINYHOST_LOG_LEVEL: "warn" },
  });
  const [stdout, stderr, code] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text(), p.exited]);
  return { code, stdout, stderr };
}

function readLines(): Line[] {
  if (!existsSync(journalFile)) return [];
  return readFileSync(journalFile, "utf8")
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Line);
}

/** The pod holding the module's Lease (`<release>-lock`; the holder identity starts with the pod name). */
async function leaderPod(): Promise<PodInfo> {
  let leader: PodInfo | undefined;
  await waitUntil(
    "a Ready leader pod",
    async () => {
      const lease = await api<{ spec: { holderIdentity?: string } }>("GET", `/apis/coordination.k8s.io/v1/namespaces/${ns}/leases/${RELEASE}-lock`).catch(
        () => undefined,
      );
      const holder = lease?.spec.holderIdentity ?? "";
      leader = (await modulePods()).find((p) => holder !== "" && holder.startsWith(p.metadata.name) && isReady(p));
      return leader !== undefined;
    },
    120_000,
    250,
  );
  return leader!;
}

/** Every TinyNode of the namespace reports `OK` for its current generation. */
async function nodesOk(): Promise<boolean> {
  const nodes = await list<NodeStatus>(`/apis/operator.tinysystems.io/v1alpha1/namespaces/${ns}/tinynodes`);
  return nodes.length > 0 && nodes.every((n) => n.status?.status === "OK" && !n.status.error && n.status.observedGeneration === n.metadata.generation);
}

/** The load: {@link RUNS_PER_TICK} durable runs into `s1` every 100 ms; a publish the broker did not acknowledge is sent again (same step key: the stream drops a duplicate). */
class Load {
  readonly runs = new Map<string, number>();
  publishRetries = 0;
  readonly errors = new Set<string>();
  #running = true;
  #pending = new Set<Promise<void>>();
  readonly #loop: Promise<void>;
  constructor() {
    this.#loop = (async () => {
      while (this.#running) {
        for (let i = 0; i < RUNS_PER_TICK; i++) {
          const run = mintRun();
          this.runs.set(run.runId, Date.now());
          const p = this.#send(run.runId, run.stepKey);
          this.#pending.add(p);
          void p.finally(() => this.#pending.delete(p));
        }
        await Bun.sleep(100);
      }
    })();
  }
  async #send(runId: string, stepKey: string): Promise<void> {
    for (;;) {
      const r = await sender.send({ edgeId: "", from: "", to: `${names.s1}:in`, data: { trail: [], holdMs: HOLD_MS }, depth: 0, runId, stepKey });
      if (r.kind !== "fail") return;
      this.publishRetries++;
      this.errors.add(r.error.message.slice(0, 120));
      await Bun.sleep(500);
    }
  }
  /** Stops beginning runs and waits until every run's first hop is stored. */
  async stop(): Promise<void> {
    this.#running = false;
    await this.#loop;
    await Promise.all([...this.#pending]);
  }
}

/** When each part of "OK again" was first seen, ms after the fault. */
interface Recovery {
  podsReadyMs: number;
  nodesOkMs: number;
  runDoneMs: number;
  allOkMs: number;
  /** A TinyNode status other than OK was seen after the fault. */
  nodeNotOkSeen: string[];
}

/**
 * Polls until the fault's effect was seen (`changed`), the module's pods (and the broker's) are
 * Ready, every TinyNode is OK, and a run begun after the fault has completed both steps.
 */
async function recovery(t0: number, tFault: number, load: Load, changed: () => Promise<boolean>): Promise<Recovery> {
  const out: Recovery = { podsReadyMs: -1, nodesOkMs: -1, runDoneMs: -1, allOkMs: -1, nodeNotOkSeen: [] };
  let seen = false;
  await waitUntil(
    "the module to be OK again after the fault",
    async () => {
      const ms = Math.round(performance.now() - t0);
      if (!seen) seen = await changed().catch(() => false);
      if (!seen) return false;
      if (out.podsReadyMs < 0) {
        const pods = await modulePods().catch(() => []);
        const broker = await natsPods().catch(() => []);
        if (pods.filter(isReady).length === 2 && pods.length === 2 && broker.some(isReady)) out.podsReadyMs = ms;
      }
      const ok = await nodesOk().catch(() => false);
      if (ok && out.nodesOkMs < 0) out.nodesOkMs = ms;
      if (!ok) {
        const nodes = await list<NodeStatus>(`/apis/operator.tinysystems.io/v1alpha1/namespaces/${ns}/tinynodes`).catch(() => []);
        for (const n of nodes) if (n.status?.status && n.status.status !== "OK") out.nodeNotOkSeen.push(`${n.metadata.name}: ${n.status.status.slice(0, 100)}`);
        out.nodesOkMs = -1;
      }
      if (out.runDoneMs < 0) {
        const after = new Set([...load.runs].filter(([, at]) => at > tFault).map(([id]) => id));
        if (readLines().some((l) => l.node === names.s2 && after.has(l.runId))) out.runDoneMs = ms;
      }
      if (out.podsReadyMs >= 0 && out.nodesOkMs >= 0 && out.runDoneMs >= 0) {
        out.allOkMs = ms;
        return true;
      }
      return false;
    },
    RECOVERY_DEADLINE_MS,
    250,
  );
  out.nodeNotOkSeen = [...new Set(out.nodeNotOkSeen)];
  return out;
}

/** Hops of `load`'s runs: sent (2 per run), completed (journalled at least once), duplicated, lost; and the longest gap between completions. */
async function settle(
  load: Load,
  tFault: number,
): Promise<{ sent: number; completed: number; duplicated: number; lost: number; gapMs: number; byPod: Record<string, number> }> {
  const mine = new Set(load.runs.keys());
  const expected = mine.size * 2;
  const doneKeys = () =>
    new Set(
      readLines()
        .filter((l) => mine.has(l.runId))
        .map((l) => `${l.node}/${l.runId}`),
    ).size;
  await waitUntil(`${expected} hops done`, async () => doneKeys() >= expected, DRAIN_DEADLINE_MS, 500).catch(() => undefined);
  await Bun.sleep(ACK_WAIT_MS + 2_000); // a late redelivery (a duplicate) would show now
  const lines = readLines().filter((l) => mine.has(l.runId) && (l.node === names.s1 || l.node === names.s2));
  const counts = new Map<string, number>();
  const byPod: Record<string, number> = {};
  for (const l of lines) {
    counts.set(`${l.node}/${l.runId}`, (counts.get(`${l.node}/${l.runId}`) ?? 0) + 1);
    byPod[l.pod] = (byPod[l.pod] ?? 0) + 1;
  }
  const completed = counts.size;
  const duplicated = [...counts.values()].reduce((n, c) => n + (c - 1), 0);
  const times = lines
    .map((l) => l.at)
    .filter((at) => at >= tFault - 1_000)
    .sort((a, b) => a - b);
  let gapMs = 0;
  for (let i = 1; i < times.length; i++) gapMs = Math.max(gapMs, times[i]! - times[i - 1]!);
  return { sent: expected, completed, duplicated, lost: expected - completed, gapMs, byPod };
}

/** Deliveries beyond one per message of the module's consumer so far (its redeliveries). */
async function redeliveries(): Promise<number> {
  const ci = await jsm.consumers.info("module-edges", RELEASE);
  return ci.delivered.consumer_seq - ci.delivered.stream_seq;
}

/**
 * Runs one fault under load and returns its figures: the load runs 3 s, `inject` happens, the load
 * goes on until everything is OK again plus 3 s, then every hop must be done.
 */
async function underLoad(
  fault: string,
  inject: () => Promise<string>,
  changed: () => Promise<boolean>,
): Promise<{ counts: Awaited<ReturnType<typeof settle>>; rec: Recovery; note: string; retries: number; redelivered: number; terminated: number }> {
  const redelivered0 = await redeliveries();
  const terminated0 = terminated.length;
  const load = new Load();
  await Bun.sleep(3_000);
  const t0 = performance.now();
  const tFault = Date.now();
  const note = await inject();
  const rec = await recovery(t0, tFault, load, changed);
  await Bun.sleep(3_000);
  await load.stop();
  const counts = await settle(load, tFault);
  const redelivered = (await redeliveries().catch(() => NaN)) - redelivered0;
  const r = { counts, rec, note, retries: load.publishRetries, redelivered, terminated: terminated.length - terminated0 };
  const line =
    `[real-faults] ${fault}: ${note}; hops sent ${counts.sent}, completed ${counts.completed}, duplicated ${counts.duplicated}, lost ${counts.lost}; ` +
    `publish retries ${r.retries}${load.errors.size ? ` (${[...load.errors].slice(0, 2).join(" | ")})` : ""}; redeliveries ${redelivered}; terminated ${r.terminated}; ` +
    `longest gap between completions ${counts.gapMs} ms; pods Ready ${rec.podsReadyMs} ms, nodes OK ${rec.nodesOkMs} ms, a new run done ${rec.runDoneMs} ms → all OK ${rec.allOkMs} ms after the fault` +
    `${rec.nodeNotOkSeen.length ? `; statuses seen: ${rec.nodeNotOkSeen.slice(0, 3).join("; ")}` : ""}; hops by pod ${JSON.stringify(counts.byPod)}`;
  figures.push(line);
  console.error(line);
  return r;
}

beforeAll(async () => {
  cluster = await startRealCluster();
  kube = await createKubeClient({ kubeconfig: cluster.controlPlane.tokenKubeconfig, env: {} });
  const ctx = await openBuildContext({ file: LOG });
  images = { module: await buildModuleImage(ctx), nats: await buildNatsImage(ctx) };
  for (const image of Object.values(images)) await cluster.node.importImage(image.archive);
  ns = await cluster.controlPlane.newNamespace("real-faults");
  await waitUntil(
    "the namespace's default ServiceAccount",
    async () => (await cluster.controlPlane.request("GET", `/api/v1/namespaces/${ns}/serviceaccounts/default`)).ok,
    60_000,
    200,
  );
  // The broker's volume (hostPath PV bound to the StatefulSet's claim) and the journal's directory.
  const base = join(dirname(cluster.node.logDir), "real-faults", ns);
  const pvDir = join(base, "nats");
  const journalDir = join(base, "journal");
  hostDirs.push(base);
  const mk = await cluster.node.exec(["install", "-d", "-o", String(NATS_UID), "-g", String(NATS_UID), "-m", "0750", pvDir]);
  if (mk.code !== 0) throw new Error(`creating ${pvDir} on the node: ${mk.stderr}`);
  const mkj = await cluster.node.exec(["install", "-d", "-m", "0777", journalDir]);
  if (mkj.code !== 0) throw new Error(`creating ${journalDir} on the node: ${mkj.stderr}`);
  journalFile = join(journalDir, "journal.jsonl");
  pvName = `${ns}-nats-js`;
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
  // The step component, as a user adds one without a rebuild (docs/authoring.md §4).
  await api("POST", `/api/v1/namespaces/${ns}/configmaps`, {
    metadata: { name: "faults-components" },
    data: { "fault-step.ts": readFileSync(join(ROOT, "test/fixtures/real-faults-components/fault-step.ts"), "utf8") },
  });
  const r = await tinyhost([
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
    "--ingress-class",
    "traefik",
  ]);
  if (r.code !== 0) throw new Error(`tinyhost provision exited ${r.code}: ${r.stderr}\n${r.stdout}`);
  // Two replicas, the component mounted, a short AckWait (a killed container's hop waits that long).
  await api(
    "PATCH",
    `/apis/apps/v1/namespaces/${ns}/deployments/${RELEASE}-controller-manager`,
    {
      spec: {
        replicas: 2,
        template: {
          spec: {
            volumes: [
              { name: "components", configMap: { name: "faults-components" } },
              { name: "journal", hostPath: { path: journalDir, type: "Directory" } },
            ],
            containers: [
              {
                name: "manager",
                env: [
                  { name: "TINYHOST_COMPONENTS_DIR", value: "/components" },
                  { name: "TINYHOST_JETSTREAM_ACK_WAIT_MS", value: String(ACK_WAIT_MS) },
                ],
                volumeMounts: [
                  { name: "components", mountPath: "/components", readOnly: true },
                  { name: "journal", mountPath: "/journal" },
                ],
              },
            ],
          },
        },
      },
    },
    "application/strategic-merge-patch+json",
  );
  // The broker from outside the cluster: a NodePort on the node's address.
  const svc = await api<{ spec: { ports: { nodePort: number }[] } }>("POST", `/api/v1/namespaces/${ns}/services`, {
    metadata: { name: "faults-nats-outside" },
    spec: {
      type: "NodePort",
      selector: { "app.kubernetes.io/name": NATS_NAME, "app.kubernetes.io/instance": NATS_NAME, "app.kubernetes.io/component": "nats" },
      ports: [{ name: "client", port: 4222, targetPort: "client", protocol: "TCP" }],
    },
  });
  await waitUntil(
    "two Ready module pods and a Ready broker",
    async () => {
      const pods = await modulePods();
      return pods.length === 2 && pods.every(isReady) && (await natsPods()).some(isReady);
    },
    300_000,
    500,
  );
  const secret = await api<{ data: Record<string, string> }>("GET", `/api/v1/namespaces/${ns}/secrets/${NATS_AUTH_SECRET}`);
  const token = Buffer.from(secret.data[NATS_TOKEN_KEY]!, "base64").toString("utf8");
  const url = `nats://${token}@${cluster.node.nodeIp}:${svc.spec.ports[0]!.nodePort}`;
  await waitUntil(
    "the broker through the NodePort",
    async () => ((nc = await connectNats(url, { reconnectTimeWaitMs: 250 }).catch(() => nc)), nc !== undefined),
    60_000,
    500,
  );
  jsm = await jetstreamManager(nc);
  nc.subscribe(`$JS.EVENT.ADVISORY.CONSUMER.MSG_TERMINATED.module-edges.${RELEASE}`, {
    callback: (_e, m) => void terminated.push(new TextDecoder().decode(m.data)),
  });
  sender = await JetStreamTransport.create({ nc, module: "loadgen" });

  const m = buildFlow({
    project: "faults",
    flow: "chain",
    module: RELEASE,
    namespace: ns,
    nodes: { s1: { component: "fault_step" }, s2: { component: "fault_step" } },
    edges: [{ from: "s1:out", to: "s2:in", configuration: { trail: "{{$.trail}}", holdMs: HOLD_MS } }],
  });
  names = { s1: m.nodes.get("s1")!.metadata.name!, s2: m.nodes.get("s2")!.metadata.name! };
  const objects = flowObjects(m, ns);
  await applyObjects(kube, ns, objects);
  await waitForReconciled(kube, ns, [names.s1, names.s2], 120_000);
  await waitUntil("every TinyNode OK", nodesOk, 120_000, 500);
  await waitUntil("the module's consumer", async () => (await jsm.consumers.info("module-edges", RELEASE).catch(() => undefined)) !== undefined, 120_000, 500);
}, START_TIMEOUT_MS);

afterAll(async () => {
  if (figures.length) console.error(`[real-faults] summary:\n  ${figures.join("\n  ")}`);
  await sender?.close(100).catch(() => undefined);
  await nc?.close().catch(() => undefined);
  if (!cluster) return;
  if (pvName) await cluster.controlPlane.request("DELETE", `/api/v1/persistentvolumes/${pvName}`).catch(() => undefined);
  for (const d of hostDirs) await cluster.node.exec(["rm", "-rf", d]).catch(() => undefined);
  await cluster.stop();
}, 180_000);

describe("faults on a real node, under durable load", () => {
  test("kill -9 of the leader's module container: the kubelet restarts it, no hop is lost", async () => {
    const leader = await leaderPod();
    const container = leader.status.containerStatuses!.find((c) => c.name === "manager")!;
    const restarts0 = container.restartCount;
    const r = await underLoad(
      "kill -9 module container",
      async () => {
        const proc = containerProcess(cluster.node.slot, container.containerID!.replace(/^containerd:\/\//, ""));
        process.kill(proc.pid, "SIGKILL");
        return `SIGKILL to pid ${proc.pid} of ${leader.metadata.name}`;
      },
      async () => {
        const p = (await modulePods()).find((x) => x.metadata.uid === leader.metadata.uid);
        return (p?.status.containerStatuses?.find((c) => c.name === "manager")?.restartCount ?? 0) > restarts0;
      },
    );
    // Durable steps are at least once: a handler that finished before its step record was written runs again on redelivery.
    expect({ lost: r.counts.lost, terminated: r.terminated }).toEqual({ lost: 0, terminated: 0 });
    expect(r.rec.allOkMs).toBeGreaterThanOrEqual(0);
  }, 600_000);

  test("deletion of the leader pod: a new pod comes, the other replica takes the Lease, nothing lost or duplicated", async () => {
    const leader = await leaderPod();
    const r = await underLoad(
      "delete leader pod",
      async () => {
        await api("DELETE", `/api/v1/namespaces/${ns}/pods/${leader.metadata.name}`);
        return `deleted ${leader.metadata.name}`;
      },
      async () => {
        const pods = await modulePods();
        const lease = await api<{ spec: { holderIdentity?: string } }>("GET", `/apis/coordination.k8s.io/v1/namespaces/${ns}/leases/${RELEASE}-lock`);
        return !pods.some((p) => p.metadata.uid === leader.metadata.uid) && !(lease.spec.holderIdentity ?? "").startsWith(leader.metadata.name);
      },
    );
    expect({ lost: r.counts.lost, duplicated: r.counts.duplicated, terminated: r.terminated }).toEqual({ lost: 0, duplicated: 0, terminated: 0 });
  }, 600_000);

  test("deletion of the NATS pod: the broker comes back on its volume, nothing lost or duplicated", async () => {
    const [broker] = await natsPods();
    const r = await underLoad(
      "restart NATS pod",
      async () => {
        await api("DELETE", `/api/v1/namespaces/${ns}/pods/${broker!.metadata.name}`);
        return `deleted ${broker!.metadata.name}`;
      },
      async () => (await natsPods()).some((p) => p.metadata.uid !== broker!.metadata.uid && isReady(p)),
    );
    expect({ lost: r.counts.lost, duplicated: r.counts.duplicated, terminated: r.terminated }).toEqual({ lost: 0, duplicated: 0, terminated: 0 });
  }, 600_000);

  test("a kubelet restart: the pods keep running, nothing lost or duplicated", async () => {
    const before = (await modulePods()).map((p) => `${p.metadata.uid}/${p.status.containerStatuses?.[0]?.restartCount}`).sort();
    let restartMs = 0;
    const r = await underLoad(
      "restart kubelet",
      async () => {
        restartMs = await cluster.node.restartKubelet();
        return `kubelet back Ready ${restartMs} ms after its SIGTERM`;
      },
      async () => true,
    );
    expect({ lost: r.counts.lost, duplicated: r.counts.duplicated, terminated: r.terminated }).toEqual({ lost: 0, duplicated: 0, terminated: 0 });
    // The kubelet's restart neither restarted nor replaced a container.
    expect((await modulePods()).map((p) => `${p.metadata.uid}/${p.status.containerStatuses?.[0]?.restartCount}`).sort()).toEqual(before);
  }, 600_000);

  test("a kube-apiserver restart (same port, certificates and etcd): nothing lost or duplicated, statuses OK again", async () => {
    let downMs = 0;
    const r = await underLoad(
      "restart kube-apiserver",
      async () => {
        const t = performance.now();
        await cluster.controlPlane.stopApiserver();
        await Bun.sleep(5_000); // an outage long enough for every watch and the Lease renewal to fail
        await cluster.controlPlane.startApiserver();
        downMs = Math.round(performance.now() - t);
        return `apiserver down and back /readyz in ${downMs} ms`;
      },
      async () => true,
    );
    expect({ lost: r.counts.lost, duplicated: r.counts.duplicated, terminated: r.terminated }).toEqual({ lost: 0, duplicated: 0, terminated: 0 });
  }, 600_000);
});
