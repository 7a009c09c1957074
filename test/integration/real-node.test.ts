/**
 * The real node of the test bed (test/support/real-cluster.ts): containerd, kubelet, kube-proxy,
 * kube-controller-manager, kube-scheduler, CoreDNS and Traefik beside a kube-apiserver, every
 * behaviour checked on the real thing:
 *
 * - the Node registers and goes Ready with the kubelet and runtime versions it was built with;
 * - a 2-replica Deployment of the pod server (test/go/podserver) under the chart's kind of
 *   securityContext goes Ready under kubelet probes, each pod answering on its pod IP;
 * - a ClusterIP Service answers through kube-proxy's rules, from the node, reaching both pods;
 *   a pod resolves the Service's name through CoreDNS;
 * - an Ingress routes by Host header through Traefik (another Host gets Traefik's 404);
 * - a rolling update delivers SIGTERM to the old pods, which keep serving while they drain and
 *   leave well inside the grace period, while the new pods take over behind the Service;
 * - tinyhost's own image (scripts/image.ts's builder, the Dockerfile) runs as a module pod under
 *   the chart's securityContext and 128Mi limit and goes Ready under the kubelet's probes of
 *   /healthz and /readyz; its process is checked from the host (uid, capabilities, seccomp,
 *   no-new-privileges, read-only root) and its RSS reported.
 *
 * Everything is polled with deadlines: `rollout status` and the Deployment's counters can run
 * ahead of kube-proxy's and Traefik's routing by a second or more.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { getRealCluster, type RealCluster } from "../support/real-cluster.ts";
import { PODSERVER_IMAGE } from "../support/real-node/node.ts";
import { containerProcess } from "../support/real-node/container-process.ts";
import { waitUntil } from "../support/process.ts";
import { openBuildContext } from "../../scripts/image/build-context.ts";
import { buildModuleImage } from "../../scripts/image/module-image.ts";
import { MODULE_BINARY, MODULE_UID } from "../../src/provision/release.ts";
import { podSecurityContext, restrictedContainerSecurityContext } from "../../src/provision/security.ts";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** The cold build of the node's binaries (scripts/build-node.sh) can take half an hour on 2 busy cores. */
const START_TIMEOUT_MS = 45 * 60_000;
/** The first build of tinyhost's image (scripts/image.ts) takes 5–8 minutes on 2 cores; cached, seconds. */
const IMAGE_TIMEOUT_MS = 20 * 60_000;
const DRAIN_SECONDS = 3;
const GRACE_SECONDS = 60;

let cluster: RealCluster;
let ns: string;

interface PodInfo {
  metadata: { name: string; labels?: Record<string, string>; annotations?: Record<string, string>; deletionTimestamp?: string };
  spec: { nodeName?: string };
  status: {
    phase?: string;
    podIP?: string;
    conditions?: { type: string; status: string }[];
    containerStatuses?: { ready: boolean; restartCount: number }[];
  };
}

async function api<T>(method: string, path: string, body?: unknown, contentType?: string): Promise<T> {
  const res = await cluster.controlPlane.request(method, path, body, contentType);
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${path}: HTTP ${res.status} ${text}`);
  return JSON.parse(text) as T;
}

async function pods(selector: string): Promise<PodInfo[]> {
  const list = await api<{ items: PodInfo[] }>("GET", `/api/v1/namespaces/${ns}/pods?labelSelector=${encodeURIComponent(selector)}`);
  return list.items;
}

const isReady = (p: PodInfo) => !p.metadata.deletionTimestamp && (p.status.conditions ?? []).some((c) => c.type === "Ready" && c.status === "True");

/** GET http://<ip>:<port><path> from this (host) process; undefined on a connection error. */
async function getJson(
  url: string,
  headers: Record<string, string> = {},
  timeoutMs = 3000,
): Promise<{ status: number; body: { pod?: string; terminating?: boolean; sigtermAgoMs?: number } } | undefined> {
  try {
    const res = await fetch(url, { headers, signal: AbortSignal.timeout(timeoutMs) });
    const text = await res.text();
    let body = {};
    try {
      body = JSON.parse(text);
    } catch {
      body = {};
    }
    return { status: res.status, body };
  } catch {
    return undefined;
  }
}

function podserverDeployment(revision: string) {
  return {
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: { name: "podserver" },
    spec: {
      replicas: 2,
      selector: { matchLabels: { app: "podserver" } },
      strategy: { type: "RollingUpdate", rollingUpdate: { maxUnavailable: 0, maxSurge: 1 } },
      template: {
        metadata: { labels: { app: "podserver" }, annotations: { "test/revision": revision } },
        spec: {
          terminationGracePeriodSeconds: GRACE_SECONDS,
          automountServiceAccountToken: false,
          securityContext: { runAsNonRoot: true, runAsUser: 65532, seccompProfile: { type: "RuntimeDefault" } },
          containers: [
            {
              name: "server",
              image: PODSERVER_IMAGE,
              imagePullPolicy: "Never",
              env: [{ name: "DRAIN_SECONDS", value: String(DRAIN_SECONDS) }],
              ports: [{ name: "http", containerPort: 8080 }],
              readinessProbe: { httpGet: { path: "/readyz", port: "http" }, periodSeconds: 1, failureThreshold: 1 },
              livenessProbe: { httpGet: { path: "/healthz", port: "http" }, periodSeconds: 5 },
              resources: { limits: { memory: "32Mi", cpu: "200m" }, requests: { memory: "16Mi", cpu: "10m" } },
              securityContext: {
                readOnlyRootFilesystem: true,
                allowPrivilegeEscalation: false,
                capabilities: { drop: ["ALL"] },
              },
            },
          ],
        },
      },
    },
  };
}

/** Waits until the Deployment's pods of `revision` are 2 and Ready (and no other pod is left). */
async function waitRollout(revision: string, timeoutMs = 120_000): Promise<PodInfo[]> {
  let ready: PodInfo[] = [];
  await waitUntil(
    `2 Ready podserver pods of revision ${revision}`,
    async () => {
      const all = await pods("app=podserver");
      const live = all.filter((p) => !p.metadata.deletionTimestamp);
      ready = live.filter((p) => p.metadata.annotations?.["test/revision"] === revision && isReady(p));
      return ready.length === 2 && live.length === 2;
    },
    timeoutMs,
    250,
  );
  return ready;
}

beforeAll(async () => {
  cluster = await getRealCluster();
  ns = await cluster.controlPlane.newNamespace("real-node");
  // The ServiceAccount admission plugin refuses pods until the controller manager made `default`.
  await waitUntil(
    "the namespace's default ServiceAccount",
    async () => {
      const res = await cluster.controlPlane.request("GET", `/api/v1/namespaces/${ns}/serviceaccounts/default`);
      return res.ok;
    },
    60_000,
    200,
  );
}, START_TIMEOUT_MS);

afterAll(async () => {
  if (ns) await cluster.controlPlane.request("DELETE", `/api/v1/namespaces/${ns}`);
});

describe("a real node", () => {
  test("registers and goes Ready with the kubelet and containerd it was built with", async () => {
    const node = await api<{
      status: {
        conditions: { type: string; status: string }[];
        nodeInfo: { kubeletVersion: string; containerRuntimeVersion: string };
        addresses: { type: string; address: string }[];
      };
    }>("GET", `/api/v1/nodes/${cluster.node.nodeName}`);
    expect(node.status.conditions.find((c) => c.type === "Ready")?.status).toBe("True");
    expect(node.status.nodeInfo.kubeletVersion).toBe("v1.36.3");
    expect(node.status.nodeInfo.containerRuntimeVersion).toStartWith("containerd://1.6.");
    expect(node.status.addresses).toContainEqual({ type: "InternalIP", address: cluster.node.nodeIp });
    const names = cluster.node.parts.map((p) => p.name);
    for (const part of ["containerd", "kube-controller-manager", "kube-scheduler", "coredns", "traefik", "kube-proxy", "kubelet (node Ready)"]) {
      expect(names).toContain(part);
    }
  });

  test("runs a 2-replica Deployment whose pods go Ready under the kubelet's probes", async () => {
    await api("POST", `/apis/apps/v1/namespaces/${ns}/deployments`, podserverDeployment("1"));
    const ready = await waitRollout("1");
    const [a, b] = ready;
    expect(a!.spec.nodeName).toBe(cluster.node.nodeName);
    const prefix = cluster.node.podCidr.replace(/\.0\/24$/, ".");
    for (const p of ready) {
      expect(p.status.podIP).toStartWith(prefix);
      expect(p.status.containerStatuses?.[0]?.restartCount).toBe(0);
      // The pod's own listener, from the host through the node's bridge.
      const got = await getJson(`http://${p.status.podIP}:8080/`);
      expect(got?.status).toBe(200);
      expect(got?.body).toEqual({ pod: p.metadata.name, terminating: false, sigtermAgoMs: -1 });
    }
    expect(a!.metadata.name).not.toBe(b!.metadata.name);
    // `kubectl logs` through the apiserver, which reaches the kubelet by the node's InternalIP (the
    // node's name resolves nowhere on this machine).
    const log = await cluster.controlPlane.request("GET", `/api/v1/namespaces/${ns}/pods/${a!.metadata.name}/log`);
    expect(`${log.status} ${await log.text()}`).toContain("200 podserver: ");
  });

  test("answers on a ClusterIP Service through kube-proxy, from the node, reaching both pods", async () => {
    const svc = await api<{ spec: { clusterIP: string } }>("POST", `/api/v1/namespaces/${ns}/services`, {
      metadata: { name: "podserver" },
      spec: { selector: { app: "podserver" }, ports: [{ name: "http", port: 80, targetPort: "http" }] },
    });
    expect(svc.spec.clusterIP).toMatch(/^10\.0\.0\.\d+$/);
    const seen = new Set<string>();
    await waitUntil(
      "both pods answering through the ClusterIP",
      async () => {
        const r = await cluster.node.exec(["curl", "-sf", "--max-time", "2", `http://${svc.spec.clusterIP}/`], 5_000);
        if (r.code === 0) seen.add((JSON.parse(r.stdout) as { pod: string }).pod);
        return seen.size === 2;
      },
      60_000,
      100,
    );
    const all = await pods("app=podserver");
    expect([...seen].sort()).toEqual(all.map((p) => p.metadata.name).sort());
    // A pod resolves the Service's short name through CoreDNS (the kubelet's clusterDNS).
    let addrs: string[] = [];
    await waitUntil(
      "the Service's name to resolve in a pod",
      async () => {
        const res = await fetch(`http://${all[0]!.status.podIP}:8080/resolve?name=podserver`, { signal: AbortSignal.timeout(5000) });
        addrs = ((await res.json()) as { addrs?: string[] }).addrs ?? [];
        return res.ok;
      },
      60_000,
      250,
    );
    expect(addrs).toEqual([svc.spec.clusterIP]);
  });

  test("routes an Ingress by Host header through Traefik", async () => {
    const host = `podserver.${ns}.test`;
    await api("POST", `/apis/networking.k8s.io/v1/namespaces/${ns}/ingresses`, {
      metadata: { name: "podserver" },
      spec: {
        ingressClassName: "traefik",
        rules: [{ host, http: { paths: [{ path: "/", pathType: "Prefix", backend: { service: { name: "podserver", port: { name: "http" } } } }] } }],
      },
    });
    const names = new Set((await pods("app=podserver")).map((p) => p.metadata.name));
    const seen = new Set<string>();
    await waitUntil(
      "both pods answering through the Ingress",
      async () => {
        const got = await getJson(`${cluster.node.ingressUrl}/`, { host });
        if (got?.status === 200 && got.body.pod) seen.add(got.body.pod);
        return seen.size === 2;
      },
      90_000,
      100,
    );
    expect([...seen].every((p) => names.has(p))).toBe(true);
    const other = await getJson(`${cluster.node.ingressUrl}/`, { host: "nobody.test" });
    expect(other?.status).toBe(404);
  });

  test("a rolling update sends SIGTERM to the old pods and waits for them to drain", async () => {
    const old = (await pods("app=podserver")).filter(isReady);
    expect(old).toHaveLength(2);
    const oldIps = new Map(old.map((p) => [p.metadata.name, p.status.podIP!]));
    await api("PATCH", `/apis/apps/v1/namespaces/${ns}/deployments/podserver`, podserverDeployment("2"), "application/merge-patch+json");
    // Each old pod, asked on its own IP: told to stop (SIGTERM), still serving a while after it.
    const drained = new Map<string, number>();
    // One poller per pod: a pod already gone (each try then waits out its timeout) must not
    // slow the sampling of the other.
    const deadline = Date.now() + 120_000;
    const pollOld = Promise.all(
      [...oldIps].map(async ([name, ip]) => {
        while ((drained.get(name) ?? 0) < 1500 && Date.now() < deadline) {
          const got = await getJson(`http://${ip}:8080/`, {}, 1000);
          if (got?.body.terminating && got.body.pod === name) drained.set(name, Math.max(drained.get(name) ?? 0, got.body.sigtermAgoMs ?? 0));
          await Bun.sleep(50);
        }
      }),
    );
    const fresh = await waitRollout("2", 180_000);
    await pollOld;
    expect(fresh.map((p) => p.metadata.name).some((n) => oldIps.has(n))).toBe(false);
    expect([...drained.keys()].sort()).toEqual([...oldIps.keys()].sort());
    // Served at least 1.5 s after SIGTERM: the kubelet waited instead of killing at once.
    for (const ms of drained.values()) expect(ms).toBeGreaterThanOrEqual(1500);
    // Gone long before the grace period ran out: they exited on their own after draining.
    await waitUntil(
      "the old pods to be deleted",
      async () => {
        const names = new Set((await pods("app=podserver")).map((p) => p.metadata.name));
        return [...oldIps.keys()].every((n) => !names.has(n));
      },
      (GRACE_SECONDS - 15) * 1000,
      250,
    );
    // The Service routes to the new pods only.
    const freshNames = new Set(fresh.map((p) => p.metadata.name));
    const svc = await api<{ spec: { clusterIP: string } }>("GET", `/api/v1/namespaces/${ns}/services/podserver`);
    const seen = new Set<string>();
    await waitUntil(
      "both new pods answering through the ClusterIP",
      async () => {
        const r = await cluster.node.exec(["curl", "-sf", "--max-time", "2", `http://${svc.spec.clusterIP}/`], 5_000);
        if (r.code === 0) seen.add((JSON.parse(r.stdout) as { pod: string }).pod);
        return [...freshNames].every((n) => seen.has(n));
      },
      60_000,
      100,
    );
    expect([...seen].filter((n) => !freshNames.has(n))).toEqual([]);
  });
});

describe("tinyhost's image on the real node", () => {
  test(
    "runs as a module pod under the chart's securityContext and 128Mi, Ready under the kubelet's probes",
    async () => {
      const ctx = await openBuildContext({ file: join(process.env.TINYHOST_TEST_TMP ?? tmpdir(), "real-node-image-build.log") });
      const image = await buildModuleImage(ctx);
      await cluster.node.importImage(image.archive);
      // The module reads TinyNodes and writes its TinyModule and Lease; broad rights here (the chart's
      // own RBAC is chart-install.test.ts's subject): this test is about the pod, not the permissions.
      await api("POST", `/api/v1/namespaces/${ns}/serviceaccounts`, { metadata: { name: "module" } });
      await api("POST", `/apis/rbac.authorization.k8s.io/v1/namespaces/${ns}/rolebindings`, {
        metadata: { name: "module-admin" },
        roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name: "admin" },
        subjects: [{ kind: "ServiceAccount", name: "module", namespace: ns }],
      });
      await api("POST", `/apis/rbac.authorization.k8s.io/v1/clusterrolebindings`, {
        metadata: { name: `module-crds-${ns}` },
        roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name: "cluster-admin" },
        subjects: [{ kind: "ServiceAccount", name: "module", namespace: ns }],
      });
      await api("POST", `/apis/apps/v1/namespaces/${ns}/deployments`, {
        metadata: { name: "module" },
        spec: {
          replicas: 1,
          selector: { matchLabels: { app: "module" } },
          template: {
            metadata: { labels: { app: "module" } },
            spec: {
              serviceAccountName: "module",
              securityContext: podSecurityContext(MODULE_UID),
              terminationGracePeriodSeconds: 10,
              containers: [
                {
                  name: "manager",
                  image: image.ref,
                  imagePullPolicy: "Never",
                  command: [MODULE_BINARY],
                  args: ["run", "--name=real-node-module", `--namespace=${ns}`, "--health-probe-bind-address=:8081"],
                  ports: [{ name: "probes", containerPort: 8081 }],
                  livenessProbe: { httpGet: { path: "/healthz", port: "probes" }, initialDelaySeconds: 15, periodSeconds: 20 },
                  readinessProbe: { httpGet: { path: "/readyz", port: "probes" }, initialDelaySeconds: 1, periodSeconds: 1 },
                  resources: { limits: { cpu: "500m", memory: "128Mi" }, requests: { cpu: "10m", memory: "64Mi" } },
                  securityContext: restrictedContainerSecurityContext(),
                  volumeMounts: [{ name: "tmp", mountPath: "/tmp" }],
                },
              ],
              volumes: [{ name: "tmp", emptyDir: {} }],
            },
          },
        },
      });
      let pod: PodInfo | undefined;
      await waitUntil(
        "the module pod to be Ready",
        async () => {
          pod = (await pods("app=module")).find(isReady);
          return pod !== undefined;
        },
        180_000,
        250,
      );
      const status = (
        await api<{ status: { containerStatuses: { containerID: string; restartCount: number }[] } }>(
          "GET",
          `/api/v1/namespaces/${ns}/pods/${pod!.metadata.name}`,
        )
      ).status.containerStatuses[0]!;
      expect(status.restartCount).toBe(0);
      expect((await fetch(`http://${pod!.status.podIP}:8081/healthz`)).status).toBe(200);
      expect((await fetch(`http://${pod!.status.podIP}:8081/readyz`)).status).toBe(200);
      const proc = containerProcess(cluster.node.slot, status.containerID.replace(/^containerd:\/\//, ""));
      expect(proc.status.get("Uid")?.split(/\s+/)).toEqual(Array(4).fill(String(MODULE_UID)));
      expect(proc.status.get("CapEff")).toBe("0000000000000000");
      expect(proc.status.get("CapBnd")).toBe("0000000000000000");
      expect(proc.status.get("NoNewPrivs")).toBe("1");
      expect(proc.status.get("Seccomp")).toBe("2");
      expect(proc.rootReadOnly).toBe(true);
      console.error(`[real-node] module pod RSS ${proc.status.get("VmRSS")} under a 128Mi limit`);
    },
    IMAGE_TIMEOUT_MS,
  );
});
