/**
 * `tinyhost provision` on the real node (test/support/real-cluster.ts) into a namespace labelled
 * `pod-security.kubernetes.io/enforce=restricted`: every pod the controllers make from the plan —
 * the module Deployment, the NATS StatefulSet (Debian's nats-server, scripts/image/nats-image.ts),
 * the trace collector (scripts/image/go-tool-images.ts) — is admitted, Running and Ready, from
 * images built here and imported into the node's containerd (none pulled). Then `tinyhost
 * uninstall --with-addons` removes the release and the add-ons (keeping the broker's auth Secret
 * and volume claim, as documented), and `--delete-namespace` removes the rest.
 *
 * provision-restricted.test.ts checks admission on an apiserver alone (it creates the Pods itself);
 * here the Deployment, ReplicaSet and StatefulSet controllers create them and the kubelet runs them.
 *
 * The test bed has no storage provisioner: the broker's volume claim binds to a hostPath
 * PersistentVolume the test makes for it (what a cluster admin without a default StorageClass does).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { dirname, join } from "node:path";
import { tmpdir } from "node:os";
import { getRealCluster, type RealCluster } from "../support/real-cluster.ts";
import { containerProcess } from "../support/real-node/container-process.ts";
import { waitUntil } from "../support/process.ts";
import { openBuildContext, type BuiltImage } from "../../scripts/image/build-context.ts";
import { buildModuleImage } from "../../scripts/image/module-image.ts";
import { buildNatsImage } from "../../scripts/image/nats-image.ts";
import { buildOtelCollectorImage } from "../../scripts/image/go-tool-images.ts";
import { NATS_NAME } from "../../src/provision/broker-url.ts";
import { NATS_STORAGE, NATS_UID } from "../../src/provision/nats.ts";
import { OTEL_NAME } from "../../src/provision/otel.ts";
import { runTinyhost } from "../support/cli.ts";

/** The CLI from source against the real cluster (test/support/cli.ts). */
const tinyhost = (args: string[]) => runTinyhost(args, { kubeconfig: cluster.controlPlane.tokenKubeconfig });

const START_TIMEOUT_MS = 60 * 60_000;
const RELEASE = "shop";
const LOG = join(process.env.TINYHOST_TEST_TMP ?? tmpdir(), "real-provision-build.log");
const PSA_LABELS = {
  "pod-security.kubernetes.io/enforce": "restricted",
  "pod-security.kubernetes.io/enforce-version": "latest",
  "pod-security.kubernetes.io/warn": "restricted",
  "pod-security.kubernetes.io/warn-version": "latest",
};

let cluster: RealCluster;
let ns: string;
let images: { module: BuiltImage; nats: BuiltImage; otel: BuiltImage };
let pvName: string;
let pvDir: string;

interface PodInfo {
  metadata: { name: string; labels?: Record<string, string>; deletionTimestamp?: string };
  spec: { containers: { name: string; image: string }[] };
  status: {
    phase?: string;
    conditions?: { type: string; status: string }[];
    containerStatuses?: { name: string; ready: boolean; restartCount: number; containerID?: string; lastState?: unknown }[];
  };
}
interface EventInfo {
  reason: string;
  message: string;
  involvedObject: { kind: string; name: string };
}

async function api<T>(method: string, path: string, body?: unknown): Promise<T> {
  const res = await cluster.controlPlane.request(method, path, body);
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${path}: HTTP ${res.status} ${text}`);
  return JSON.parse(text) as T;
}

async function list<T>(path: string): Promise<T[]> {
  return (await api<{ items: T[] }>("GET", path)).items;
}

const isReady = (p: PodInfo) => !p.metadata.deletionTimestamp && (p.status.conditions ?? []).some((c) => c.type === "Ready" && c.status === "True");

/** Admission refusals and pod failures the controllers and the kubelet reported in the namespace. */
async function trouble(): Promise<string[]> {
  const events = await list<EventInfo>(`/api/v1/namespaces/${ns}/events`);
  return events
    .filter((e) => ["FailedCreate", "Failed", "BackOff", "FailedMount", "FailedScheduling", "ErrImageNeverPull"].includes(e.reason))
    .map((e) => `${e.involvedObject.kind}/${e.involvedObject.name} ${e.reason}: ${e.message}`);
}

beforeAll(async () => {
  cluster = await getRealCluster();
  const ctx = await openBuildContext({ file: LOG });
  images = { module: await buildModuleImage(ctx), nats: await buildNatsImage(ctx), otel: await buildOtelCollectorImage(ctx) };
  for (const image of Object.values(images)) await cluster.node.importImage(image.archive);
  ns = await cluster.controlPlane.newNamespace("real-provision");
  await cluster.controlPlane.request("PATCH", `/api/v1/namespaces/${ns}`, { metadata: { labels: PSA_LABELS } }, "application/merge-patch+json");
  // The broker's volume: a hostPath PV on the node, owned by the broker's uid, bound to the claim
  // the StatefulSet will make (claimRef), so no other claim of the cluster can take it.
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
  if (!cluster) return;
  if (ns) await cluster.controlPlane.request("DELETE", `/api/v1/namespaces/${ns}`);
  if (pvName) await cluster.controlPlane.request("DELETE", `/api/v1/persistentvolumes/${pvName}`);
  if (pvDir) await cluster.node.exec(["rm", "-rf", pvDir]);
}, 120_000);

describe("tinyhost provision into a Pod Security restricted namespace, on a real node", () => {
  let removedFirst: string[] = [];

  test("every pod (module, NATS, collector) is admitted, Running and Ready", async () => {
    const t0 = performance.now();
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
      "--otel-image",
      images.otel.ref,
      "--ingress-class",
      "traefik",
    ]);
    if (r.code !== 0) throw new Error(`tinyhost provision exited ${r.code}: ${r.stderr}\n${r.stdout}`);
    const want = [`${NATS_NAME}-0`, OTEL_NAME, `${RELEASE}-controller-manager`];
    let pods: PodInfo[] = [];
    await waitUntil(
      "every provisioned pod to be Ready",
      async () => {
        pods = await list<PodInfo>(`/api/v1/namespaces/${ns}/pods`);
        return want.every((w) => pods.some((p) => p.metadata.name.startsWith(w) && isReady(p)));
      },
      240_000,
      500,
    ).catch(async (e: Error) => {
      const state = pods.map((p) => `${p.metadata.name} ${p.status.phase} ${JSON.stringify(p.status.conditions?.map((c) => `${c.type}=${c.status}`))}`);
      throw new Error(`${e.message}\npods: ${state.join("; ")}\nevents: ${(await trouble()).join("\n")}`);
    });
    const readyMs = Math.round(performance.now() - t0);
    const live = pods.filter((p) => !p.metadata.deletionTimestamp);
    const events = await trouble();
    // Transient events a controller retries past (a pod made before its ServiceAccount reached the
    // admission cache, a claim not yet bound at the first scheduling try) are printed, not failed.
    if (events.length > 0) console.error(`[real-provision] events on the way to Ready:\n  ${events.join("\n  ")}`);
    const restarted = live.flatMap((p) => (p.status.containerStatuses ?? []).filter((c) => c.restartCount > 0).map((c) => ({ pod: p.metadata.name, c })));
    for (const { pod, c } of restarted) {
      const res = await cluster.controlPlane.request("GET", `/api/v1/namespaces/${ns}/pods/${pod}/log?previous=true&container=${c.name}&tailLines=40`);
      console.error(`[real-provision] ${pod}/${c.name} restarted ${c.restartCount}×, last state ${JSON.stringify(c.lastState)}; its log:\n${await res.text()}`);
    }
    expect(live.map((p) => `${p.metadata.name} ${p.status.phase}`)).toEqual(live.map((p) => `${p.metadata.name} Running`));
    expect(restarted.map(({ pod, c }) => `${pod}/${c.name} restarts ${c.restartCount}`)).toEqual([]);
    // No controller was refused a pod by Pod Security, no image pull was attempted.
    expect(events.filter((t) => /ErrImage|violates PodSecurity|forbidden: .*PodSecurity/i.test(t))).toEqual([]);
    const workloads = [
      ...(await list<{ metadata: { name: string }; status: { readyReplicas?: number } }>(`/apis/apps/v1/namespaces/${ns}/deployments`)),
      ...(await list<{ metadata: { name: string }; status: { readyReplicas?: number } }>(`/apis/apps/v1/namespaces/${ns}/statefulsets`)),
    ];
    expect(workloads.map((w) => `${w.metadata.name}=${w.status.readyReplicas ?? 0}`).sort()).toEqual(
      [`${RELEASE}-controller-manager=1`, `${NATS_NAME}=1`, `${OTEL_NAME}=1`].sort(),
    );
    const rss = live.map((p) => {
      const c = p.status.containerStatuses![0]!;
      const proc = containerProcess(cluster.node.slot, c.containerID!.replace(/^containerd:\/\//, ""));
      expect(
        `${p.metadata.name}: caps ${proc.status.get("CapEff")} nnp ${proc.status.get("NoNewPrivs")} seccomp ${proc.status.get("Seccomp")} ro ${proc.rootReadOnly}`,
      ).toBe(`${p.metadata.name}: caps 0000000000000000 nnp 1 seccomp 2 ro true`);
      return `${p.metadata.name} ${proc.status.get("VmRSS")}`;
    });
    console.error(`[real-provision] provision ${r.ms} ms; every pod Ready ${readyMs} ms after provision started; RSS: ${rss.join(", ")}`);
  }, 400_000);

  test("the module registers its TinyModule over the provisioned NATS", async () => {
    let addr = "";
    await waitUntil(
      "the TinyModule's status",
      async () => {
        const res = await cluster.controlPlane.request("GET", `/apis/operator.tinysystems.io/v1alpha1/namespaces/${ns}/tinymodules/${RELEASE}`);
        if (!res.ok) return false;
        addr = ((await res.json()) as { status?: { addr?: string } }).status?.addr ?? "";
        return addr !== "";
      },
      60_000,
      250,
    );
    // On the broker, not the gRPC fallback: provision's TINYHOST_NATS_CONNECT_WAIT_MS lets a module that starts before it wait.
    expect(addr).toStartWith("nats://");
  });

  test("uninstall --with-addons removes the release and the add-ons, keeping the broker's Secret and claim", async () => {
    const r = await tinyhost(["uninstall", "-n", ns, "--name", RELEASE, "--with-addons"]);
    if (r.code !== 0) throw new Error(`tinyhost uninstall exited ${r.code}: ${r.stderr}\n${r.stdout}`);
    removedFirst = r.stdout.trim().split("\n");
    expect(removedFirst.filter((l) => l.endsWith(" kept"))).toEqual([]);
    let pods: PodInfo[] = [];
    await waitUntil(
      "every pod to be gone",
      async () => {
        pods = await list<PodInfo>(`/api/v1/namespaces/${ns}/pods`);
        return pods.length === 0;
      },
      120_000,
      500,
    );
    const left: string[] = [];
    for (const [kind, path] of [
      ["Secret", `/api/v1/namespaces/${ns}/secrets`],
      ["PersistentVolumeClaim", `/api/v1/namespaces/${ns}/persistentvolumeclaims`],
      ["ConfigMap", `/api/v1/namespaces/${ns}/configmaps`],
      ["ServiceAccount", `/api/v1/namespaces/${ns}/serviceaccounts`],
      ["Service", `/api/v1/namespaces/${ns}/services`],
      ["Deployment", `/apis/apps/v1/namespaces/${ns}/deployments`],
      ["StatefulSet", `/apis/apps/v1/namespaces/${ns}/statefulsets`],
      ["Role", `/apis/rbac.authorization.k8s.io/v1/namespaces/${ns}/roles`],
      ["RoleBinding", `/apis/rbac.authorization.k8s.io/v1/namespaces/${ns}/rolebindings`],
      ["Ingress", `/apis/networking.k8s.io/v1/namespaces/${ns}/ingresses`],
      ["TinyModule", `/apis/operator.tinysystems.io/v1alpha1/namespaces/${ns}/tinymodules`],
      ["Lease", `/apis/coordination.k8s.io/v1/namespaces/${ns}/leases`],
    ] as const) {
      for (const o of await list<{ metadata: { name: string } }>(path)) {
        if ((kind === "ServiceAccount" && o.metadata.name === "default") || (kind === "ConfigMap" && o.metadata.name === "kube-root-ca.crt")) continue;
        left.push(`${kind}/${o.metadata.name}`);
      }
    }
    console.error(`[real-provision] uninstall --with-addons ${r.ms} ms:\n  ${removedFirst.join("\n  ")}\n  left in the namespace: ${left.join(", ")}`);
    // Kept on purpose (the token other modules use, the durable runs) — and the module's own
    // leader-election Lease, released by the module on SIGTERM: provision never applied it.
    expect(left.sort()).toEqual([`Lease/${RELEASE}-lock`, `PersistentVolumeClaim/${NATS_NAME}-js-${NATS_NAME}-0`, `Secret/${NATS_NAME}-auth`]);
    const lease = await api<{ spec: { holderIdentity?: string } }>("GET", `/apis/coordination.k8s.io/v1/namespaces/${ns}/leases/${RELEASE}-lock`);
    expect(lease.spec.holderIdentity ?? "").toBe("");
  }, 200_000);

  test("uninstall --delete-namespace leaves nothing: the namespace and the release's cluster-wide objects are gone", async () => {
    const r = await tinyhost(["uninstall", "-n", ns, "--name", RELEASE, "--with-addons", "--delete-namespace"]);
    if (r.code !== 0) throw new Error(`tinyhost uninstall exited ${r.code}: ${r.stderr}\n${r.stdout}`);
    await waitUntil(
      "the namespace to be gone",
      async () => (await cluster.controlPlane.request("GET", `/api/v1/namespaces/${ns}`)).status === 404,
      120_000,
      500,
    );
    const clusterWide: string[] = [];
    for (const [kind, path] of [
      ["ClusterRole", "/apis/rbac.authorization.k8s.io/v1/clusterroles"],
      ["ClusterRoleBinding", "/apis/rbac.authorization.k8s.io/v1/clusterrolebindings"],
    ] as const) {
      for (const o of await list<{ metadata: { name: string } }>(path))
        if (o.metadata.name.includes(ns) || o.metadata.name.startsWith(`${RELEASE}-`)) clusterWide.push(`${kind}/${o.metadata.name}`);
    }
    expect(clusterWide).toEqual([]);
    // The claim went with the namespace; its PV (Retain) is released, and the test deletes it.
    const pv = await api<{ status: { phase: string } }>("GET", `/api/v1/persistentvolumes/${pvName}`);
    expect(pv.status.phase).toBe("Released");
    console.error(`[real-provision] uninstall --delete-namespace ${r.ms} ms:\n  ${r.stdout.trim().split("\n").join("\n  ")}`);
  }, 200_000);
});
