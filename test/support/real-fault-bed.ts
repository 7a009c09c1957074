/**
 * The bed of the tests on the real node that count hops (test/integration/real-faults.test.ts,
 * real-nats-cluster.test.ts, real-keda-burst.test.ts): a module installed by `tinyhost provision
 * --image <ref>` (two replicas, or `--autoscale` with KEDA owning the count) with its broker as pods
 * on hostPath volumes, serving a durable 2-node flow `s1 → s2`
 * (test/fixtures/real-faults-components/fault-step.ts, loaded from a ConfigMap as a user adds a
 * component without a rebuild), a load of durable runs from the test process (a burst, a steady
 * rate, or both), and the figures of a fault: hops sent / completed / duplicated / lost from the step
 * journal, publish retries, the broker's redeliveries and terminations, and how long until
 * everything is OK again.
 *
 * The test process reaches the broker through a NodePort Service on the node's address, as a
 * client outside the cluster does. The journal is a hostPath directory the pods append to and the
 * test reads from the host, so the namespace is not labelled Pod Security `restricted`
 * (real-provision.test.ts covers that).
 */
import { existsSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { jetstreamManager, type JetStreamManager } from "@nats-io/jetstream";
import type { NatsConnection } from "@nats-io/transport-node";
import { buildFlow } from "../../src/cli/scaffold/flow-builder.ts";
import { createKubeClient } from "../../src/k8s/client/index.ts";
import { mintRun } from "../../src/core/durable/run.ts";
import { connectNats } from "../../src/transport/nats/connect.ts";
import { JetStreamTransport } from "../../src/transport/nats/jetstream.ts";
import { NATS_AUTH_SECRET, NATS_NAME, NATS_TOKEN_KEY } from "../../src/provision/broker-url.ts";
import { NATS_MONITOR_PORT, NATS_STORAGE, NATS_UID } from "../../src/provision/nats.ts";
import { kedaObjectName } from "../../src/provision/scaling.ts";
import { openBuildContext } from "../../scripts/image/build-context.ts";
import { buildModuleImage } from "../../scripts/image/module-image.ts";
import { buildNatsImage } from "../../scripts/image/nats-image.ts";
import { startRealCluster, type RealCluster } from "./real-cluster.ts";
import { applyObjects, flowObjects, waitForReconciled } from "./flows.ts";
import { waitUntil } from "./process.ts";
import { runTinyhost } from "./cli.ts";

/** The CLI from source against the real cluster (test/support/cli.ts). */
const tinyhost = (cluster: RealCluster, args: string[]) => runTinyhost(args, { kubeconfig: cluster.controlPlane.tokenKubeconfig });

const ROOT = resolve(import.meta.dir, "../..");
/** Work per step, ms (default): hops are in flight when a fault comes. */
export const HOLD_MS = 50;
/** Runs begun per 100 ms tick (2 hops each), default: ~100 hops/s. */
const RUNS_PER_TICK = 5;
/** Runs published at once by a burst (each awaited by the broker before the next batch). */
const BURST_BATCH = 100;
/** AckWait of the module (ms): how long a hop held by a killed container waits for redelivery (Go: 30 000). */
export const ACK_WAIT_MS = 5_000;
/** Generous bound for everything to be OK again after a fault (polled). */
const RECOVERY_DEADLINE_MS = 240_000;
/** Generous bound for every hop of a case to be done after the load stops (polled). */
const DRAIN_DEADLINE_MS = 180_000;

/** A pod as the tests read it. */
export interface PodInfo {
  metadata: { name: string; uid: string; labels?: Record<string, string>; deletionTimestamp?: string };
  spec?: { volumes?: { name: string }[] };
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
/** One `done` line of the step journal: the pod that ran the step, the node, the run, when (ms since the epoch). */
export interface JournalLine {
  pod: string;
  node: string;
  runId: string;
  at: number;
}

/** Pod is Ready and not being deleted. */
export const isReady = (p: PodInfo) => !p.metadata.deletionTimestamp && (p.status.conditions ?? []).some((c) => c.type === "Ready" && c.status === "True");

/** When each part of "OK again" was first seen, ms after the fault. */
export interface Recovery {
  podsReadyMs: number;
  nodesOkMs: number;
  runDoneMs: number;
  allOkMs: number;
  /** TinyNode statuses other than OK seen after the fault. */
  nodeNotOkSeen: string[];
}

/** Hop counts of one case. */
export interface HopCounts {
  sent: number;
  completed: number;
  duplicated: number;
  lost: number;
  /** Longest gap between two completions from 1 s before the fault on, ms. */
  gapMs: number;
  byPod: Record<string, number>;
}

/** The figures of one fault. */
export interface FaultFigures {
  counts: HopCounts;
  rec: Recovery;
  note: string;
  /** Publishes of the load the broker did not acknowledge, sent again. */
  retries: number;
  /** Deliveries of the module's consumer beyond one per message during the case. */
  redelivered: number;
  /** MSG_TERMINATED advisories of the module's consumer during the case. */
  terminated: number;
  line: string;
}

/** Options of {@link openFaultBed}. */
export interface FaultBedOptions {
  cluster: RealCluster;
  /** Release (module) name. */
  release: string;
  /** `--nats-replicas` (default 1). */
  natsReplicas?: number;
  /** Log file of the image builds. */
  buildLog: string;
  /** Prefix of the lines printed. */
  tag: string;
  /** Module replicas (default 2); not set with {@link autoscale}. */
  replicas?: number;
  /**
   * `provision --autoscale` spec: KEDA owns the replica count (the bed never sets it; KEDA must be
   * running, test/support/keda.ts) and the ScaledObject's trigger is pointed at the broker pod's IP
   * (KEDA runs on the host, outside the cluster's DNS). One broker server only.
   */
  autoscale?: string;
  /** Work per step, ms (default {@link HOLD_MS}). */
  holdMs?: number;
  /** More environment of the module container (e.g. `TINYHOST_MAX_CONCURRENT_HOPS`). */
  env?: Record<string, string>;
}

/** Options of {@link FaultBed.startLoad}. */
export interface LoadOptions {
  /** Runs published first, in batches of {@link BURST_BATCH} (default 0). */
  burst?: number;
  /** Runs begun per 100 ms tick after the burst (default {@link RUNS_PER_TICK}); 0 = the burst only. */
  runsPerTick?: number;
}

/** A provisioned module under test, its broker connection and its load. */
export interface FaultBed {
  readonly ns: string;
  readonly release: string;
  readonly names: { s1: string; s2: string };
  /** Work per step, ms. */
  readonly holdMs: number;
  readonly nc: NatsConnection;
  readonly jsm: JetStreamManager;
  /** Every figure line printed so far. */
  readonly figures: string[];
  api<T>(method: string, path: string, body?: unknown, contentType?: string): Promise<T>;
  modulePods(): Promise<PodInfo[]>;
  natsPods(): Promise<PodInfo[]>;
  /** The Ready pod holding the module's Lease `<release>-lock`. */
  leaderPod(): Promise<PodInfo>;
  /** Every TinyNode of the namespace reports OK for its current generation. */
  nodesOk(): Promise<boolean>;
  /** The `done` lines of the step journal so far. */
  journal(): JournalLine[];
  /** Deliveries of the module's consumer beyond one per message, since it was made. */
  redeliveries(): Promise<number>;
  /** MSG_TERMINATED advisories of the module's consumer seen since the bed opened. */
  terminations(): number;
  /** The Deployment's replica count as set (by KEDA's HPA under `autoscale`). */
  replicas(): Promise<number>;
  /** Starts a load of durable runs into `s1` (stop it with {@link Load.stop}). */
  startLoad(o?: LoadOptions): Load;
  /**
   * Waits until every hop of `load` (stopped) is in the journal (at most 180 s, polled), then one
   * AckWait and 2 s more (a late redelivery, a duplicate, would show), and counts them.
   * @param since ms since the epoch from which the longest gap between completions is measured.
   */
  count(load: Load, since?: number): Promise<HopCounts>;
  /**
   * Runs one fault under load: the load runs 3 s, `inject` happens, the load goes on until
   * `changed` was seen and everything is OK again, plus 3 s; then every hop must be done.
   * @throws Error when everything is not OK again within 240 s (polled).
   */
  underLoad(fault: string, inject: () => Promise<string>, changed: () => Promise<boolean>): Promise<FaultFigures>;
  /** Removes the namespace's cluster-wide leftovers (PVs) and the host directories; closes the connection. */
  close(): Promise<void>;
}

/**
 * A real cluster of the fault tests' own (they restart its kubelet and apiserver, or load it
 * heavily): startRealCluster, tried up to 3 times — on a machine where several suites start nodes
 * at once, a start can meet another slot's leftovers (the veth of a node torn down a moment before).
 * @throws the last start's error.
 */
export async function startFaultCluster(): Promise<RealCluster> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await startRealCluster();
    } catch (err) {
      if (attempt >= 3) throw err;
      console.error(`[fault-bed] the real cluster did not start (attempt ${attempt}): ${(err as Error).message.split("\n")[0]}; trying again`);
      await Bun.sleep(5_000);
    }
  }
}

/**
 * Builds and imports the module and broker images, provisions the module (two replicas, the step
 * component mounted, AckWait {@link ACK_WAIT_MS}) with `natsReplicas` broker servers, applies the
 * flow and returns when every node is OK and the module's consumer exists.
 * @throws Error naming what did not come up.
 */
export async function openFaultBed(o: FaultBedOptions): Promise<FaultBed> {
  const { cluster, release } = o;
  const replicas = o.natsReplicas ?? 1;
  const moduleReplicas = o.replicas ?? 2;
  const holdMs = o.holdMs ?? HOLD_MS;
  const api = async <T>(method: string, path: string, body?: unknown, contentType?: string): Promise<T> => {
    const res = await cluster.controlPlane.request(method, path, body, contentType);
    const text = await res.text();
    if (!res.ok) throw new Error(`${method} ${path}: HTTP ${res.status} ${text}`);
    return JSON.parse(text) as T;
  };
  const list = async <T>(path: string): Promise<T[]> => (await api<{ items: T[] }>("GET", path)).items;
  const kube = await createKubeClient({ kubeconfig: cluster.controlPlane.tokenKubeconfig, env: {} });
  const ctx = await openBuildContext({ file: o.buildLog });
  const images = { module: await buildModuleImage(ctx), nats: await buildNatsImage(ctx) };
  for (const image of Object.values(images)) await cluster.node.importImage(image.archive);
  const ns = await cluster.controlPlane.newNamespace(o.tag);
  const pvNames: string[] = [];
  const base = join(dirname(cluster.node.logDir), "fault-bed", ns);
  let nc: NatsConnection | undefined;
  const close = async () => {
    await nc?.close().catch(() => undefined);
    for (const pv of pvNames) await cluster.controlPlane.request("DELETE", `/api/v1/persistentvolumes/${pv}`).catch(() => undefined);
    await cluster.node.exec(["rm", "-rf", base]).catch(() => undefined);
  };
  try {
    await waitUntil(
      "the namespace's default ServiceAccount",
      async () => (await cluster.controlPlane.request("GET", `/api/v1/namespaces/${ns}/serviceaccounts/default`)).ok,
      60_000,
      200,
    );
    // The broker's volumes (hostPath PVs bound to the StatefulSet's claims) and the journal's directory.
    for (let i = 0; i < replicas; i++) {
      const dir = join(base, `nats-${i}`);
      const mk = await cluster.node.exec(["install", "-d", "-o", String(NATS_UID), "-g", String(NATS_UID), "-m", "0750", dir]);
      if (mk.code !== 0) throw new Error(`creating ${dir} on the node: ${mk.stderr}`);
      const name = `${ns}-nats-js-${i}`;
      await api("POST", "/api/v1/persistentvolumes", {
        metadata: { name },
        spec: {
          capacity: { storage: NATS_STORAGE },
          accessModes: ["ReadWriteOnce"],
          persistentVolumeReclaimPolicy: "Retain",
          storageClassName: "",
          hostPath: { path: dir, type: "Directory" },
          claimRef: { namespace: ns, name: `${NATS_NAME}-js-${NATS_NAME}-${i}` },
        },
      });
      pvNames.push(name);
    }
    const journalDir = join(base, "journal");
    const mkj = await cluster.node.exec(["install", "-d", "-m", "0777", journalDir]);
    if (mkj.code !== 0) throw new Error(`creating ${journalDir} on the node: ${mkj.stderr}`);
    const journalFile = join(journalDir, "journal.jsonl");
    await api("POST", `/api/v1/namespaces/${ns}/configmaps`, {
      metadata: { name: "fault-components" },
      data: { "fault-step.ts": readFileSync(join(ROOT, "test/fixtures/real-faults-components/fault-step.ts"), "utf8") },
    });
    const r = await tinyhost(cluster, [
      "provision",
      "-n",
      ns,
      "--name",
      release,
      "--image",
      images.module.ref,
      "--nats-image",
      images.nats.ref,
      "--nats-replicas",
      String(replicas),
      "--no-otel",
      "--ingress-class",
      "traefik",
      ...(o.autoscale ? ["--autoscale", o.autoscale] : []),
    ]);
    if (r.code !== 0) throw new Error(`tinyhost provision exited ${r.code}: ${r.stderr}\n${r.stdout}`);
    // The replicas (unless KEDA owns them), the component mounted, a short AckWait (a killed container's hop waits that long).
    await api(
      "PATCH",
      `/apis/apps/v1/namespaces/${ns}/deployments/${release}-controller-manager`,
      {
        spec: {
          ...(o.autoscale ? {} : { replicas: moduleReplicas }),
          template: {
            spec: {
              volumes: [
                { name: "components", configMap: { name: "fault-components" } },
                { name: "journal", hostPath: { path: journalDir, type: "Directory" } },
              ],
              containers: [
                {
                  name: "manager",
                  env: [
                    { name: "TINYHOST_COMPONENTS_DIR", value: "/components" },
                    { name: "TINYHOST_JETSTREAM_ACK_WAIT_MS", value: String(ACK_WAIT_MS) },
                    ...Object.entries(o.env ?? {}).map(([name, value]) => ({ name, value })),
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
    const svc = await api<{ spec: { ports: { nodePort: number }[] } }>("POST", `/api/v1/namespaces/${ns}/services`, {
      metadata: { name: "fault-nats-outside" },
      spec: {
        type: "NodePort",
        selector: { "app.kubernetes.io/name": NATS_NAME, "app.kubernetes.io/instance": NATS_NAME, "app.kubernetes.io/component": "nats" },
        ports: [{ name: "client", port: 4222, targetPort: "client", protocol: "TCP" }],
      },
    });
    const pods = async () => list<PodInfo>(`/api/v1/namespaces/${ns}/pods`);
    const modulePods = async () => (await pods()).filter((p) => p.metadata.name.startsWith(`${release}-controller-manager-`));
    const natsPods = async () => (await pods()).filter((p) => p.metadata.name.startsWith(`${NATS_NAME}-`));
    let state = "";
    // Every module pod of the patched template (the component mounted) Ready: `moduleReplicas` of them, or at least one under KEDA.
    const patched = (p: PodInfo) => (p.spec?.volumes ?? []).some((v) => v.name === "components");
    await waitUntil(
      `${o.autoscale ? "a" : moduleReplicas} Ready module pod(s) and ${replicas} Ready broker pod(s)`,
      async () => {
        const all = await pods();
        state = all.map((p) => `${p.metadata.name} ${p.status.phase} ready=${isReady(p)}`).join("; ");
        const m = all.filter((p) => p.metadata.name.startsWith(`${release}-controller-manager-`));
        const count = o.autoscale ? m.length >= 1 : m.length === moduleReplicas;
        return (
          count && m.every((p) => isReady(p) && patched(p)) && all.filter((p) => p.metadata.name.startsWith(`${NATS_NAME}-`) && isReady(p)).length === replicas
        );
      },
      420_000,
      500,
    ).catch((e: Error) => {
      throw new Error(`${e.message}; pods: ${state}`);
    });
    const secret = await api<{ data: Record<string, string> }>("GET", `/api/v1/namespaces/${ns}/secrets/${NATS_AUTH_SECRET}`);
    const token = Buffer.from(secret.data[NATS_TOKEN_KEY]!, "base64").toString("utf8");
    const url = `nats://${token}@${cluster.node.nodeIp}:${svc.spec.ports[0]!.nodePort}`;
    await waitUntil(
      "the broker through the NodePort",
      async () => {
        nc = await connectNats(url, { reconnectTimeWaitMs: 250 });
        return true;
      },
      60_000,
      500,
    );
    const conn = nc!;
    const jsm = await jetstreamManager(conn);
    const terminated: string[] = [];
    conn.subscribe(`$JS.EVENT.ADVISORY.CONSUMER.MSG_TERMINATED.module-edges.${release}`, {
      callback: (_e, m) => void terminated.push(new TextDecoder().decode(m.data)),
    });
    // The load's sender ensures the streams as they are (no replicas given: it never scales them down).
    const sender = await JetStreamTransport.create({ nc: conn, module: "loadgen" });

    const m = buildFlow({
      project: "faults",
      flow: "chain",
      module: release,
      namespace: ns,
      nodes: { s1: { component: "fault_step" }, s2: { component: "fault_step" } },
      edges: [{ from: "s1:out", to: "s2:in", configuration: { trail: "{{$.trail}}", holdMs } }],
    });
    const names = { s1: m.nodes.get("s1")!.metadata.name!, s2: m.nodes.get("s2")!.metadata.name! };
    await applyObjects(kube, ns, flowObjects(m, ns));
    await waitForReconciled(kube, ns, [names.s1, names.s2], 120_000);
    const nodesOk = async () => {
      const nodes = await list<NodeStatus>(`/apis/operator.tinysystems.io/v1alpha1/namespaces/${ns}/tinynodes`);
      return nodes.length > 0 && nodes.every((n) => n.status?.status === "OK" && !n.status.error && n.status.observedGeneration === n.metadata.generation);
    };
    await waitUntil("every TinyNode OK", nodesOk, 120_000, 500);
    await waitUntil(
      "the module's consumer",
      async () => (await jsm.consumers.info("module-edges", release).catch(() => undefined)) !== undefined,
      120_000,
      500,
    );
    if (o.autoscale) {
      // KEDA on the host reads /jsz at the broker pod's IP (pod IPs answer from the host), not at the headless Service name.
      const ip = (await natsPods()).find(isReady)?.status.podIP;
      if (!ip) throw new Error("the broker pod has no IP for KEDA's trigger");
      const so = `/apis/keda.sh/v1alpha1/namespaces/${ns}/scaledobjects/${kedaObjectName(release)}`;
      const current = await api<{ spec: { triggers: { type: string; metadata: Record<string, string> }[] } }>("GET", so);
      const triggers = current.spec.triggers.map((t) => ({ ...t, metadata: { ...t.metadata, natsServerMonitoringEndpoint: `${ip}:${NATS_MONITOR_PORT}` } }));
      await api("PATCH", so, { spec: { triggers } }, "application/merge-patch+json");
    }

    const readLines = (): JournalLine[] =>
      existsSync(journalFile)
        ? readFileSync(journalFile, "utf8")
            .split("\n")
            .filter(Boolean)
            .map((l) => JSON.parse(l) as JournalLine)
        : [];
    const redeliveries = async () => {
      const ci = await jsm.consumers.info("module-edges", release);
      return ci.delivered.consumer_seq - ci.delivered.stream_seq;
    };
    const figures: string[] = [];

    const recovery = async (t0: number, tFault: number, load: Load, changed: () => Promise<boolean>): Promise<Recovery> => {
      const out: Recovery = { podsReadyMs: -1, nodesOkMs: -1, runDoneMs: -1, allOkMs: -1, nodeNotOkSeen: [] };
      let seen = false;
      await waitUntil(
        "the module to be OK again after the fault",
        async () => {
          const ms = Math.round(performance.now() - t0);
          if (!seen) seen = await changed().catch(() => false);
          if (!seen) return false;
          if (out.podsReadyMs < 0) {
            const all = await pods().catch(() => []);
            const mod = all.filter((p) => p.metadata.name.startsWith(`${release}-controller-manager-`));
            const broker = all.filter((p) => p.metadata.name.startsWith(`${NATS_NAME}-`));
            if (mod.length === moduleReplicas && mod.every(isReady) && broker.filter(isReady).length === replicas) out.podsReadyMs = ms;
          }
          const ok = await nodesOk().catch(() => false);
          if (ok && out.nodesOkMs < 0) out.nodesOkMs = ms;
          if (!ok) {
            const nodes = await list<NodeStatus>(`/apis/operator.tinysystems.io/v1alpha1/namespaces/${ns}/tinynodes`).catch(() => []);
            for (const n of nodes)
              if (n.status?.status && n.status.status !== "OK") out.nodeNotOkSeen.push(`${n.metadata.name}: ${n.status.status.slice(0, 100)}`);
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
    };

    const settle = async (load: Load, tFault: number): Promise<HopCounts> => {
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
      const times = lines
        .map((l) => l.at)
        .filter((at) => at >= tFault - 1_000)
        .sort((a, b) => a - b);
      let gapMs = 0;
      for (let i = 1; i < times.length; i++) gapMs = Math.max(gapMs, times[i]! - times[i - 1]!);
      const duplicated = [...counts.values()].reduce((n, c) => n + (c - 1), 0);
      return { sent: expected, completed: counts.size, duplicated, lost: expected - counts.size, gapMs, byPod };
    };

    return {
      ns,
      release,
      names,
      holdMs,
      nc: conn,
      jsm,
      figures,
      api,
      modulePods,
      natsPods,
      async leaderPod() {
        let leader: PodInfo | undefined;
        await waitUntil(
          "a Ready leader pod",
          async () => {
            const lease = await api<{ spec: { holderIdentity?: string } }>("GET", `/apis/coordination.k8s.io/v1/namespaces/${ns}/leases/${release}-lock`).catch(
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
      },
      nodesOk,
      journal: readLines,
      redeliveries,
      terminations: () => terminated.length,
      async replicas() {
        return (
          (await api<{ spec: { replicas?: number } }>("GET", `/apis/apps/v1/namespaces/${ns}/deployments/${release}-controller-manager`)).spec.replicas ?? 0
        );
      },
      startLoad: (lo = {}) => new Load(sender, names.s1, holdMs, lo),
      count: (load, since = 0) => settle(load, since),
      async underLoad(fault, inject, changed) {
        const redelivered0 = await redeliveries();
        const terminated0 = terminated.length;
        const load = new Load(sender, names.s1, holdMs, {});
        await Bun.sleep(3_000);
        const t0 = performance.now();
        const tFault = Date.now();
        const note = await inject();
        const rec = await recovery(t0, tFault, load, changed);
        await Bun.sleep(3_000);
        await load.stop();
        const counts = await settle(load, tFault);
        const redelivered = (await redeliveries().catch(() => Number.NaN)) - redelivered0;
        const line =
          `[${o.tag}] ${fault}: ${note}; hops sent ${counts.sent}, completed ${counts.completed}, duplicated ${counts.duplicated}, lost ${counts.lost}; ` +
          `publish retries ${load.publishRetries}${load.errors.size ? ` (${[...load.errors].slice(0, 2).join(" | ")})` : ""}; redeliveries ${redelivered}; terminated ${terminated.length - terminated0}; ` +
          `longest gap between completions ${counts.gapMs} ms; pods Ready ${rec.podsReadyMs} ms, nodes OK ${rec.nodesOkMs} ms, a new run done ${rec.runDoneMs} ms → all OK ${rec.allOkMs} ms after the fault` +
          `${rec.nodeNotOkSeen.length ? `; statuses seen: ${rec.nodeNotOkSeen.slice(0, 3).join("; ")}` : ""}; hops by pod ${JSON.stringify(counts.byPod)}`;
        figures.push(line);
        console.error(line);
        return { counts, rec, note, retries: load.publishRetries, redelivered, terminated: terminated.length - terminated0, line };
      },
      async close() {
        await sender.close(100).catch(() => undefined);
        await close();
      },
    };
  } catch (err) {
    await close();
    throw err;
  }
}

/**
 * A load of durable runs into `s1`: first a burst of runs (published in batches of
 * {@link BURST_BATCH}), then `runsPerTick` runs every 100 ms until stopped. A publish the broker did
 * not acknowledge is sent again (same step key: the stream drops a duplicate).
 */
export class Load {
  /** Run id → when it was begun (ms since the epoch). */
  readonly runs = new Map<string, number>();
  publishRetries = 0;
  readonly errors = new Set<string>();
  /** Resolves when every run of the burst is stored in the stream. */
  readonly burstStored: Promise<void>;
  #running = true;
  readonly #pending = new Set<Promise<void>>();
  readonly #loop: Promise<void>;
  constructor(
    readonly sender: JetStreamTransport,
    readonly s1: string,
    readonly holdMs: number,
    o: LoadOptions,
  ) {
    const perTick = o.runsPerTick ?? RUNS_PER_TICK;
    let stored: () => void = () => undefined;
    this.burstStored = new Promise((r) => (stored = r));
    this.#loop = (async () => {
      for (let left = o.burst ?? 0; left > 0 && this.#running; left -= BURST_BATCH) {
        await Promise.all(Array.from({ length: Math.min(BURST_BATCH, left) }, () => this.#begin()));
      }
      stored();
      while (this.#running && perTick > 0) {
        for (let i = 0; i < perTick; i++) {
          const p = this.#begin();
          this.#pending.add(p);
          void p.finally(() => this.#pending.delete(p));
        }
        await Bun.sleep(100);
      }
    })();
  }
  #begin(): Promise<void> {
    const run = mintRun();
    this.runs.set(run.runId, Date.now());
    return this.#send(run.runId, run.stepKey);
  }
  async #send(runId: string, stepKey: string): Promise<void> {
    for (;;) {
      const r = await this.sender.send({ edgeId: "", from: "", to: `${this.s1}:in`, data: { trail: [], holdMs: this.holdMs }, depth: 0, runId, stepKey });
      if (r.kind !== "fail") return;
      this.publishRetries++;
      this.errors.add(r.error.message.slice(0, 120));
      await Bun.sleep(500);
    }
  }
  /** Stops beginning runs (a burst not yet published stops too) and waits until every run's first hop is stored. */
  async stop(): Promise<void> {
    this.#running = false;
    await this.#loop;
    await Promise.all([...this.#pending]);
  }
}
