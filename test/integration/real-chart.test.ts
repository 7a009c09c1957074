/**
 * The platform's own tinysystems-operator chart (the Go SDK's, as chart-install.test.ts renders it)
 * installed for real with `helm install` (helm v4) on the real node (test/support/real-cluster.ts),
 * with tinyhost's image built from the Dockerfile (scripts/image) and imported into the node's
 * containerd — nothing pulled from a registry:
 *
 * - the pre-install hook Job runs as a Job (its pod as the image's uid, the chart's pinned
 *   ServiceAccount) to completion, and Helm deletes it (hook-succeeded);
 * - the Deployment's pod goes Ready under the chart's own probes, securityContext and 128Mi limit,
 *   checked from the host (uid, capabilities, no-new-privileges, the memory cgroup's limit), and
 *   registers its TinyModule through the chart's RBAC over the NATS the chart points it at;
 * - `helm uninstall` runs the pre-delete Job (the TinyModule goes) and leaves no object of the
 *   release behind, in the namespace or cluster-wide.
 *
 * NATS: a pod in the release namespace from the local image of Debian's nats-server
 * (scripts/image/nats-image.ts), plain JetStream on an emptyDir, no auth — the chart's `natsURL`
 * is a bare URL and a token would be the chart user's business. A pod rather than the test bed's
 * host NATS: the host one listens on 127.0.0.1, which a pod cannot reach.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { getRealCluster, type RealCluster } from "../support/real-cluster.ts";
import { containerProcess } from "../support/real-node/container-process.ts";
import { newReleaseNamespace, openHelm, startNatsPod, type Helm } from "../support/real-release.ts";
import { waitUntil } from "../support/process.ts";
import { prepareChart } from "./chart-pod.ts";
import { openBuildContext, type BuiltImage } from "../../scripts/image/build-context.ts";
import { buildModuleImage } from "../../scripts/image/module-image.ts";
import { buildNatsImage } from "../../scripts/image/nats-image.ts";
import { MODULE_UID } from "../../src/provision/release.ts";
import { splitImage } from "../../src/provision/options.ts";

/** The cold build of the node's binaries can take half an hour on 2 busy cores; the images 5–8 min. */
const START_TIMEOUT_MS = 60 * 60_000;
const RELEASE = "shop";
const FULLNAME = `${RELEASE}-tinysystems-operator`;
const LOG = join(process.env.TINYHOST_TEST_TMP ?? tmpdir(), "real-chart-build.log");

let cluster: RealCluster;
let ns: string;
let chart: string;
let helmTool: Helm;
let moduleImage: BuiltImage;
let natsImage: BuiltImage;

interface Condition {
  type: string;
  status: string;
}
interface PodInfo {
  metadata: { name: string; labels?: Record<string, string>; deletionTimestamp?: string; ownerReferences?: { kind: string; name: string }[] };
  spec: {
    serviceAccountName?: string;
    securityContext?: Record<string, unknown>;
    containers: { name: string; image: string; imagePullPolicy?: string; args?: string[]; resources?: { limits?: Record<string, string> } }[];
  };
  status: {
    phase?: string;
    podIP?: string;
    conditions?: Condition[];
    containerStatuses?: {
      ready: boolean;
      restartCount: number;
      containerID?: string;
      state?: { terminated?: { exitCode: number; startedAt: string; finishedAt: string }; running?: { startedAt: string } };
    }[];
  };
}
interface JobInfo {
  metadata: { name: string; creationTimestamp?: string; annotations?: Record<string, string> };
  status: { startTime?: string; completionTime?: string; succeeded?: number; failed?: number; conditions?: Condition[] };
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

/** Runs helm against the real cluster (test/support/real-release.ts). */
function helm(args: string[], timeoutMs = 600_000) {
  return helmTool.run(args, timeoutMs);
}

/** One observation of a watched object, with the local time it arrived. */
interface Seen<T> {
  at: number;
  type: string;
  object: T;
}

/**
 * Watches a collection (`?watch=true`) and records every event until stopped: Helm deletes the hook
 * Jobs the moment they succeed (hook-succeeded), so polling could miss their last status.
 */
function watch<T>(path: string): { events: Seen<T>[]; stop(): void } {
  const events: Seen<T>[] = [];
  const abort = new AbortController();
  const cp = cluster.controlPlane;
  void (async () => {
    const res = await fetch(`${cp.server}${path}${path.includes("?") ? "&" : "?"}watch=true&allowWatchBookmarks=false`, {
      headers: { authorization: `Bearer ${cp.token}` },
      tls: { ca: cp.caPem },
      signal: abort.signal,
    });
    const reader = res.body!.getReader();
    const decoder = new TextDecoder();
    let buf = "";
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      buf += decoder.decode(value, { stream: true });
      let nl: number;
      while ((nl = buf.indexOf("\n")) >= 0) {
        const line = buf.slice(0, nl).trim();
        buf = buf.slice(nl + 1);
        if (!line) continue;
        const e = JSON.parse(line) as { type: string; object: T };
        events.push({ at: performance.now(), type: e.type, object: e.object });
      }
    }
  })().catch(() => undefined);
  return { events, stop: () => abort.abort() };
}

/** What the events of one hook Job say: created → Complete (local ms), its pod's exit code and uid. */
function hookRun(jobs: Seen<JobInfo>[], pods: Seen<PodInfo>[], suffix: string) {
  const mine = jobs.filter((e) => e.object.metadata.name === `${FULLNAME}${suffix}`);
  const created = mine.find((e) => e.type === "ADDED");
  const complete = mine.find((e) => (e.object.status.conditions ?? []).some((c) => c.type === "Complete" && c.status === "True"));
  const failed = mine.find((e) => (e.object.status.conditions ?? []).some((c) => c.type === "Failed" && c.status === "True"));
  const deleted = mine.find((e) => e.type === "DELETED");
  const podEvents = pods.filter((e) => e.object.metadata.ownerReferences?.some((o) => o.kind === "Job" && o.name === `${FULLNAME}${suffix}`));
  const terminated = podEvents.map((e) => e.object.status.containerStatuses?.[0]?.state?.terminated).find((t) => t !== undefined);
  const pod = podEvents.at(-1)?.object;
  return {
    created: created !== undefined,
    complete: complete !== undefined,
    failed: failed !== undefined,
    deleted: deleted !== undefined,
    ms: created && complete ? Math.round(complete.at - created.at) : undefined,
    exitCode: terminated?.exitCode,
    runSeconds: terminated ? (Date.parse(terminated.finishedAt) - Date.parse(terminated.startedAt)) / 1000 : undefined,
    phase: podEvents
      .map((e) => e.object.status.phase)
      .filter(Boolean)
      .at(-1),
    pod,
  };
}

/** Every object of the release (or the module) still in the cluster, as `Kind/name`. */
async function leftovers(): Promise<string[]> {
  const out: string[] = [];
  const inNs: [string, string][] = [
    ["Deployment", `/apis/apps/v1/namespaces/${ns}/deployments`],
    ["ReplicaSet", `/apis/apps/v1/namespaces/${ns}/replicasets`],
    ["Pod", `/api/v1/namespaces/${ns}/pods`],
    ["Job", `/apis/batch/v1/namespaces/${ns}/jobs`],
    ["Service", `/api/v1/namespaces/${ns}/services`],
    ["ServiceAccount", `/api/v1/namespaces/${ns}/serviceaccounts`],
    ["Role", `/apis/rbac.authorization.k8s.io/v1/namespaces/${ns}/roles`],
    ["RoleBinding", `/apis/rbac.authorization.k8s.io/v1/namespaces/${ns}/rolebindings`],
    ["Ingress", `/apis/networking.k8s.io/v1/namespaces/${ns}/ingresses`],
    ["Secret", `/api/v1/namespaces/${ns}/secrets`],
    ["ConfigMap", `/api/v1/namespaces/${ns}/configmaps`],
    ["TinyModule", `/apis/operator.tinysystems.io/v1alpha1/namespaces/${ns}/tinymodules`],
    ["Lease", `/apis/coordination.k8s.io/v1/namespaces/${ns}/leases`],
  ];
  for (const [kind, path] of inNs) {
    for (const o of await list<{ metadata: { name: string; labels?: Record<string, string> } }>(path)) {
      const name = o.metadata.name;
      // What the namespace itself holds, and the test's own NATS.
      if (kind === "ServiceAccount" && name === "default") continue;
      if (kind === "ConfigMap" && name === "kube-root-ca.crt") continue;
      if (o.metadata.labels?.app === "nats" || name === "nats" || name.startsWith("nats-")) continue;
      out.push(`${kind}/${name}`);
    }
  }
  for (const [kind, path] of [
    ["ClusterRole", "/apis/rbac.authorization.k8s.io/v1/clusterroles"],
    ["ClusterRoleBinding", "/apis/rbac.authorization.k8s.io/v1/clusterrolebindings"],
  ] as const) {
    for (const o of await list<{ metadata: { name: string; labels?: Record<string, string> } }>(path)) {
      if (o.metadata.labels?.["app.kubernetes.io/instance"] === RELEASE || o.metadata.name.includes(ns)) out.push(`${kind}/${o.metadata.name}`);
    }
  }
  return out.sort();
}

beforeAll(async () => {
  [cluster, chart] = await Promise.all([getRealCluster(), prepareChart()]);
  helmTool = await openHelm(cluster);
  const ctx = await openBuildContext({ file: LOG });
  moduleImage = await buildModuleImage(ctx);
  natsImage = await buildNatsImage(ctx);
  await cluster.node.importImage(moduleImage.archive);
  await cluster.node.importImage(natsImage.archive);
  ns = await newReleaseNamespace(cluster, "real-chart");
  await startNatsPod(cluster, ns, natsImage.ref);
}, START_TIMEOUT_MS);

afterAll(async () => {
  if (ns && cluster) {
    await helm(["uninstall", RELEASE, "-n", ns, "--ignore-not-found"], 120_000).catch(() => undefined);
    await cluster.controlPlane.request("DELETE", `/api/v1/namespaces/${ns}`);
  }
  helmTool?.dispose();
}, 180_000);

describe("helm install of the platform's chart with tinyhost's image, on a real node", () => {
  let jobs: ReturnType<typeof watch<JobInfo>>;
  let podWatch: ReturnType<typeof watch<PodInfo>>;
  let installMs = 0;
  let readyMs = 0;

  test("helm is v4.3.2", async () => {
    const r = await helm(["version", "--short"]);
    expect(r.stdout.trim()).toStartWith("v4.3.2");
  });

  test("the pre-install hook Job runs to completion, then the Deployment's pod goes Ready under the chart's probes", async () => {
    const { repository, tag } = splitImage(moduleImage.ref);
    jobs = watch<JobInfo>(`/apis/batch/v1/namespaces/${ns}/jobs`);
    podWatch = watch<PodInfo>(`/api/v1/namespaces/${ns}/pods`);
    await Bun.sleep(200); // the watches are open before Helm creates anything
    const t0 = performance.now();
    let ready: number | undefined;
    const pollReady = (async () => {
      while (ready === undefined && performance.now() - t0 < 300_000) {
        const pods = await list<PodInfo>(`/api/v1/namespaces/${ns}/pods?labelSelector=${encodeURIComponent("control-plane=controller-manager")}`);
        if (pods.some(isReady)) ready = performance.now() - t0;
        else await Bun.sleep(250);
      }
    })();
    const r = await helm([
      "install",
      RELEASE,
      chart,
      "-n",
      ns,
      "--set",
      `controllerManager.manager.image.repository=${repository}`,
      "--set",
      `controllerManager.manager.image.tag=${tag}`,
      // The image is in the node's containerd only: never ask a registry.
      "--set",
      "controllerManager.manager.imagePullPolicy=Never",
      "--set",
      `natsURL=nats://nats.${ns}.svc:4222`,
      "--set",
      "managerIngress.ingress.className=traefik",
      "--wait",
      "--timeout",
      "5m",
    ]);
    installMs = r.ms;
    await pollReady;
    readyMs = Math.round(ready ?? Number.NaN);
    if (r.code !== 0) throw new Error(`helm install exited ${r.code}: ${r.stderr}\n${r.stdout}`);

    const hook = hookRun(jobs.events, podWatch.events, "-pre-install-hook");
    expect({ created: hook.created, complete: hook.complete, failed: hook.failed, exitCode: hook.exitCode, phase: hook.phase }).toEqual({
      created: true,
      complete: true,
      failed: false,
      exitCode: 0,
      phase: "Succeeded",
    });
    // hook-succeeded: Helm deleted the Job once it completed.
    await waitUntil(
      "the pre-install Job to be deleted",
      async () => !(await cluster.controlPlane.request("GET", `/apis/batch/v1/namespaces/${ns}/jobs/${FULLNAME}-pre-install-hook`)).ok,
      30_000,
      250,
    );
    expect(hook.pod?.spec.serviceAccountName).toBe(`${FULLNAME}-pre-install`);
    expect(hook.pod?.spec.containers[0]?.args).toEqual(["pre-install"]);
    expect(hook.pod?.spec.containers[0]?.image).toBe(moduleImage.ref);
    console.error(
      `[real-chart] helm install ${installMs} ms; manager pod Ready ${readyMs} ms after it started; pre-install Job created → Complete ${hook.ms} ms (container ran ${hook.runSeconds} s)`,
    );
    expect(Number.isFinite(readyMs)).toBe(true);
  }, 400_000);

  test("the manager pod runs under the chart's securityContext and 128Mi limit, image never pulled", async () => {
    const [pod] = (await list<PodInfo>(`/api/v1/namespaces/${ns}/pods?labelSelector=${encodeURIComponent("control-plane=controller-manager")}`)).filter(
      isReady,
    );
    expect(pod).toBeDefined();
    const c = pod!.spec.containers[0]!;
    expect({ image: c.image, pull: c.imagePullPolicy, memory: c.resources?.limits?.memory }).toEqual({
      image: moduleImage.ref,
      pull: "Never",
      memory: "128Mi",
    });
    expect(pod!.spec.securityContext).toEqual({ fsGroup: MODULE_UID, runAsNonRoot: true, runAsUser: MODULE_UID });
    const status = pod!.status.containerStatuses![0]!;
    expect(status.restartCount).toBe(0);
    // The chart's probes, answered on the pod's IP as the kubelet asks them.
    expect((await fetch(`http://${pod!.status.podIP}:8081/healthz`)).status).toBe(200);
    expect((await fetch(`http://${pod!.status.podIP}:8081/readyz`)).status).toBe(200);
    const proc = containerProcess(cluster.node.slot, status.containerID!.replace(/^containerd:\/\//, ""));
    expect(proc.status.get("Uid")?.split(/\s+/)).toEqual(Array(4).fill(String(MODULE_UID)));
    expect(proc.status.get("CapEff")).toBe("0000000000000000");
    expect(proc.status.get("NoNewPrivs")).toBe("1");
    expect(proc.memoryLimitBytes).toBe(128 * 1024 * 1024);
    console.error(
      `[real-chart] manager pod: RSS ${proc.status.get("VmRSS")}, memory cgroup ${((proc.memoryUsageBytes ?? 0) / 1048576).toFixed(1)} MiB of 128 MiB; ` +
        `seccomp mode ${proc.status.get("Seccomp")} (the chart sets no seccompProfile), root fs ${proc.rootReadOnly ? "read-only" : "writable"} (the chart sets no readOnlyRootFilesystem)`,
    );
  });

  test("helm v4 writes the release by server-side apply: the manager Service's ports are field manager helm (Apply)", async () => {
    const svc = await api<{ metadata: { managedFields?: { manager: string; operation: string; fieldsV1?: { "f:spec"?: Record<string, unknown> } }[] } }>(
      "GET",
      `/api/v1/namespaces/${ns}/services/${FULLNAME}-manager-service`,
    );
    const portOwners = (svc.metadata.managedFields ?? [])
      .filter((f) => f.fieldsV1?.["f:spec"]?.["f:ports"] !== undefined)
      .map((f) => `${f.manager} (${f.operation})`);
    expect(portOwners).toEqual(["helm (Apply)"]);
  });

  test("the module registers its TinyModule under the chart's RBAC", async () => {
    let mod: { spec?: { image?: string }; status?: { addr?: string; name?: string; version?: string; components?: unknown[] } } | undefined;
    await waitUntil(
      "the TinyModule's status",
      async () => {
        const res = await cluster.controlPlane.request("GET", `/apis/operator.tinysystems.io/v1alpha1/namespaces/${ns}/tinymodules/${FULLNAME}`);
        if (!res.ok) return false;
        mod = (await res.json()) as typeof mod;
        return (mod?.status?.addr ?? "") !== "";
      },
      60_000,
      250,
    );
    expect(mod!.status?.name).toBe(FULLNAME);
    expect(mod!.status?.version).toBe(splitImage(moduleImage.ref).tag);
    expect((mod!.status?.components ?? []).length).toBeGreaterThanOrEqual(12);
  });

  test("helm uninstall runs the pre-delete Job, and nothing of the release is left", async () => {
    const r = await helm(["uninstall", RELEASE, "-n", ns, "--wait", "--timeout", "3m"]);
    if (r.code !== 0) throw new Error(`helm uninstall exited ${r.code}: ${r.stderr}\n${r.stdout}`);
    const hook = hookRun(jobs.events, podWatch.events, "-pre-delete-hook");
    expect({ created: hook.created, complete: hook.complete, failed: hook.failed, exitCode: hook.exitCode, phase: hook.phase }).toEqual({
      created: true,
      complete: true,
      failed: false,
      exitCode: 0,
      phase: "Succeeded",
    });
    expect(hook.pod?.spec.serviceAccountName).toBe(`${FULLNAME}-controller-manager`);
    // The leader-election Lease is the module's, not the chart's: Helm never knew it, so it stays.
    // Helm deletes the Role and ServiceAccount in the same pass as the Deployment, so the terminating
    // pod cannot release it on SIGTERM: it keeps naming the dead pod until it expires, and a
    // reinstall's first leader waits out its lease duration (`tinyhost uninstall` waits for the
    // pods before their RBAC instead: real-provision.test.ts).
    const lease = `Lease/${FULLNAME}-lock`;
    let left: string[] = [];
    const t0 = performance.now();
    await waitUntil(
      "every object of the release to be gone",
      async () => {
        left = await leftovers();
        return left.filter((l) => l !== lease).length === 0;
      },
      120_000,
      500,
    ).catch((e: Error) => {
      throw new Error(`${e.message}; left: ${left.join(", ")}`);
    });
    expect(left).toEqual([lease]);
    const held = await api<{ spec: { holderIdentity?: string } }>("GET", `/apis/coordination.k8s.io/v1/namespaces/${ns}/leases/${FULLNAME}-lock`);
    expect(held.spec.holderIdentity ?? "").toStartWith(`${FULLNAME}-controller-manager-`);
    jobs.stop();
    podWatch.stop();
    console.error(
      `[real-chart] helm uninstall ${r.ms} ms; pre-delete Job created → Complete ${hook.ms} ms (container ran ${hook.runSeconds} s); all gone ${Math.round(performance.now() - t0)} ms after helm returned`,
    );
  }, 300_000);
});
