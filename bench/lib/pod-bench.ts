/**
 * Module pods for the side-by-side benchmark (bench/pods.ts, issue 31 item 7) and its check
 * (test/integration/real-pods-side-by-side.test.ts): a plain Pod per module on the real node
 * (test/support/real-node/node.ts), tinyhost's image or the Go peer's (scripts/image), with the
 * same resources for both — the chart's: limits of 128Mi memory and a CPU limit (its 500m, or
 * another), requests of 10m CPU and 64Mi (tinysystems-operator values.yaml,
 * `controllerManager.manager.resources`; requests = limits would not fit two 1-CPU pods and NATS
 * on a 2-core node) — the chart's layout (`command: [/manager]`, `args: [run, …]`, uid 65532,
 * restricted securityContext), the same readiness probe (/readyz on 8081, every second),
 * and the same `run` flags ({@link moduleRunArgs}).
 *
 * tinyhost gets the Go peer's `echo` and `relay` twins (bench/fixtures/peer-components) from a
 * ConfigMap mounted file by file (subPath: regular files, not the ConfigMap volume's symlinks) at
 * /components, when a flow needs them; the Go peer has them compiled in. Start-up runs leave them
 * out, as bench/vs-go.ts does, so both start with their compiled-in components only.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { ControlPlane } from "../../test/support/control-plane.ts";
import { MODULE_UID } from "../../src/provision/release.ts";
import { podSecurityContext, restrictedContainerSecurityContext } from "../../src/provision/security.ts";
import { moduleRunArgs } from "./cluster.ts";
import { BENCH_PEER_COMPONENTS, type Runtime } from "./peer.ts";

/** The chart's memory limit of the module container. */
export const POD_MEMORY_LIMIT = "128Mi";
/** The chart's requests of the module container. */
export const POD_REQUESTS = { cpu: "10m", memory: "64Mi" } as const;
/** The probe listener's port (the chart's `--health-probe-bind-address=:8081`). */
export const HEALTH_PORT = 8081;
/** ServiceAccount the bench pods run as (bound to `cluster-admin`: a benchmark, not a security test). */
export const MODULE_ACCOUNT = "bench-module";
/** ConfigMap holding bench/fixtures/peer-components. */
export const PEER_COMPONENTS_CONFIGMAP = "peer-components";
/** Where tinyhost's pod finds them (`--components`). */
export const PEER_COMPONENTS_DIR = "/components";

/** Fields of {@link modulePod}. */
export interface ModulePodSpec {
  runtime: Runtime;
  /** Pod name (its HOSTNAME: the Lease identity). */
  name: string;
  /** `--name`. */
  module: string;
  namespace: string;
  /** Image reference as imported into the node's containerd (never pulled). */
  image: string;
  /** CPU limit, e.g. `500m` (the chart's) or `1`; the request is the chart's 10m. */
  cpu: string;
  /** `TINY_NATS_URL`; absent → the gRPC wire. */
  natsUrl?: string;
  /** tinyhost only: mount and load the peer components' twins. */
  peerComponents: boolean;
}

/** A Pod body for one module (POST to `/api/v1/namespaces/<ns>/pods`), labelled `app=pods-bench`, `runtime=<rt>`. */
export function modulePod(o: ModulePodSpec): Record<string, unknown> {
  const files = o.runtime === "tinyhost" && o.peerComponents ? componentFiles() : [];
  return {
    metadata: { name: o.name, namespace: o.namespace, labels: { app: "pods-bench", runtime: o.runtime } },
    spec: {
      serviceAccountName: MODULE_ACCOUNT,
      restartPolicy: "Never",
      terminationGracePeriodSeconds: 5,
      securityContext: podSecurityContext(MODULE_UID),
      containers: [
        {
          name: "manager",
          image: o.image,
          imagePullPolicy: "Never",
          command: ["/manager"],
          args: [
            ...moduleRunArgs({ module: o.module, namespace: o.namespace, healthAddress: `:${HEALTH_PORT}`, grpcAddress: ":0" }),
            ...(o.runtime === "go" ? ["--metrics-bind-address", "0"] : []),
            ...(files.length ? ["--components", PEER_COMPONENTS_DIR] : []),
          ],
          env: [
            { name: "TINY_NATS_URL", value: o.natsUrl ?? "" },
            // Both at their shipped default level (bench/lib/peer.ts: the Go SDK then logs every
            // hop); VS_GO_PEER_LOG_LEVEL=warn quiets Go, as in the process benchmark.
            { name: "TINYHOST_LOG_LEVEL", value: "info" },
            { name: "PEER_LOG_LEVEL", value: process.env.VS_GO_PEER_LOG_LEVEL ?? "info" },
          ],
          ports: [{ name: "health", containerPort: HEALTH_PORT }],
          readinessProbe: { httpGet: { path: "/readyz", port: HEALTH_PORT }, periodSeconds: 1 },
          resources: { requests: { ...POD_REQUESTS }, limits: { cpu: o.cpu, memory: POD_MEMORY_LIMIT } },
          securityContext: restrictedContainerSecurityContext(),
          volumeMounts: files.map((f) => ({ name: "components", mountPath: `${PEER_COMPONENTS_DIR}/${f}`, subPath: f, readOnly: true })),
        },
      ],
      volumes: files.length ? [{ name: "components", configMap: { name: PEER_COMPONENTS_CONFIGMAP } }] : [],
    },
  };
}

/** The component files of bench/fixtures/peer-components. */
function componentFiles(): string[] {
  return readdirSync(BENCH_PEER_COMPONENTS)
    .filter((f) => f.endsWith(".ts"))
    .sort();
}

/**
 * Puts what module pods of `namespace` need into the cluster: the ServiceAccount
 * {@link MODULE_ACCOUNT}, a ClusterRoleBinding of it to `cluster-admin` (named
 * `pods-bench-<namespace>`; {@link removeModuleAccess} deletes it), and the ConfigMap
 * {@link PEER_COMPONENTS_CONFIGMAP}.
 * @throws Error naming the object the apiserver refused.
 */
export async function prepareModuleNamespace(cp: ControlPlane, namespace: string): Promise<void> {
  const post = async (path: string, body: unknown) => {
    const res = await cp.request("POST", path, body);
    if (!res.ok && res.status !== 409) throw new Error(`POST ${path}: HTTP ${res.status} ${await res.text()}`);
  };
  await post(`/api/v1/namespaces/${namespace}/serviceaccounts`, { metadata: { name: MODULE_ACCOUNT } });
  await post("/apis/rbac.authorization.k8s.io/v1/clusterrolebindings", {
    metadata: { name: `pods-bench-${namespace}` },
    roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name: "cluster-admin" },
    subjects: [{ kind: "ServiceAccount", name: MODULE_ACCOUNT, namespace }],
  });
  await post(`/api/v1/namespaces/${namespace}/configmaps`, {
    metadata: { name: PEER_COMPONENTS_CONFIGMAP },
    data: Object.fromEntries(componentFiles().map((f) => [f, readFileSync(join(BENCH_PEER_COMPONENTS, f), "utf8")])),
  });
}

/** Deletes the ClusterRoleBinding of {@link prepareModuleNamespace} (the rest goes with the namespace). Never throws. */
export async function removeModuleAccess(cp: ControlPlane, namespace: string): Promise<void> {
  await cp.request("DELETE", `/apis/rbac.authorization.k8s.io/v1/clusterrolebindings/pods-bench-${namespace}`).catch(() => undefined);
}

/** The parts of a Pod the benchmark reads. */
export interface PodView {
  metadata: { name: string; creationTimestamp?: string; deletionTimestamp?: string };
  status: {
    phase?: string;
    podIP?: string;
    conditions?: { type: string; status: string; lastTransitionTime?: string; message?: string }[];
    containerStatuses?: {
      ready: boolean;
      restartCount: number;
      containerID?: string;
      state?: { running?: { startedAt: string }; terminated?: { exitCode: number; reason?: string } };
    }[];
  };
}

/** GETs a pod, or undefined when it does not exist. @throws Error for another HTTP error. */
export async function getPod(cp: ControlPlane, namespace: string, name: string): Promise<PodView | undefined> {
  const res = await cp.request("GET", `/api/v1/namespaces/${namespace}/pods/${name}`);
  if (res.status === 404) return undefined;
  if (!res.ok) throw new Error(`GET pod ${namespace}/${name}: HTTP ${res.status} ${await res.text()}`);
  return (await res.json()) as PodView;
}

/** True when the kubelet reports the pod Ready (its Ready condition True). */
export function podReady(p: PodView | undefined): boolean {
  return !!p && !p.metadata.deletionTimestamp && (p.status.conditions ?? []).some((c) => c.type === "Ready" && c.status === "True");
}

/** Start-up of one pod. */
export interface PodStart {
  /** Local ms from the create request to the first GET that showed Ready=True (polled every 50 ms). */
  readyMs: number;
  /** Local ms from the create request to the first /readyz 200 on the pod IP from the host (polled every 5 ms). */
  readyzMs: number;
  /** As the kubelet wrote it: Ready's lastTransitionTime − creationTimestamp, s (1 s resolution). */
  kubeletReadyS: number;
  /** As the kubelet wrote it: the container's startedAt − creationTimestamp, s (1 s resolution). */
  kubeletStartedS: number;
  /** The Ready pod. */
  pod: PodView;
}

/**
 * Creates `body` and waits for it to be Ready, timing the way there.
 * @throws Error when the pod fails (container terminated) or is not Ready within `timeoutMs`.
 */
export async function createPodAndWaitReady(cp: ControlPlane, namespace: string, body: Record<string, unknown>, timeoutMs = 120_000): Promise<PodStart> {
  const name = (body.metadata as { name: string }).name;
  const t0 = performance.now();
  const res = await cp.request("POST", `/api/v1/namespaces/${namespace}/pods`, body);
  if (!res.ok) throw new Error(`creating pod ${namespace}/${name}: HTTP ${res.status} ${await res.text()}`);
  let readyzMs = Number.NaN;
  let podIp = "";
  let done = false;
  const probe = (async () => {
    while (!done && Number.isNaN(readyzMs)) {
      if (podIp) {
        try {
          const r = await fetch(`http://${podIp}:${HEALTH_PORT}/readyz`, { signal: AbortSignal.timeout(1_000) });
          if (r.status === 200) readyzMs = performance.now() - t0;
        } catch {
          // not listening yet
        }
      }
      await Bun.sleep(5);
    }
  })();
  try {
    for (;;) {
      const p = await getPod(cp, namespace, name);
      podIp ||= p?.status.podIP ?? "";
      const term = p?.status.containerStatuses?.[0]?.state?.terminated;
      if (term) throw new Error(`pod ${namespace}/${name}: container terminated (exit ${term.exitCode}, ${term.reason ?? "no reason"})`);
      if (podReady(p)) {
        const readyMs = performance.now() - t0;
        await Promise.race([probe, Bun.sleep(2_000)]);
        const created = Date.parse(p!.metadata.creationTimestamp ?? "");
        const readyAt = Date.parse(p!.status.conditions!.find((c) => c.type === "Ready")!.lastTransitionTime ?? "");
        const startedAt = Date.parse(p!.status.containerStatuses?.[0]?.state?.running?.startedAt ?? "");
        return { readyMs, readyzMs, kubeletReadyS: (readyAt - created) / 1000, kubeletStartedS: (startedAt - created) / 1000, pod: p! };
      }
      if (performance.now() - t0 > timeoutMs) {
        const why = p?.status.conditions?.find((c) => c.status !== "True" && c.message)?.message ?? "";
        throw new Error(`pod ${namespace}/${name} not Ready after ${timeoutMs} ms (phase ${p?.status.phase ?? "?"}${why ? `: ${why}` : ""})`);
      }
      await Bun.sleep(50);
    }
  } finally {
    done = true;
  }
}

/**
 * Deletes a pod and waits until it is gone (so its CPU is off the node before the next run).
 * @throws Error when it is still there after `timeoutMs`.
 */
export async function deletePodAndWait(cp: ControlPlane, namespace: string, name: string, timeoutMs = 60_000): Promise<void> {
  await cp.request("DELETE", `/api/v1/namespaces/${namespace}/pods/${name}`);
  const t0 = performance.now();
  while (await getPod(cp, namespace, name)) {
    if (performance.now() - t0 > timeoutMs) throw new Error(`pod ${namespace}/${name} still there ${timeoutMs} ms after its deletion`);
    await Bun.sleep(100);
  }
}

/** The containerd id of a pod's first container (without `containerd://`). @throws Error when it has none yet. */
export function containerId(p: PodView): string {
  const id = p.status.containerStatuses?.[0]?.containerID;
  if (!id) throw new Error(`pod ${p.metadata.name} has no container id yet`);
  return id.replace(/^containerd:\/\//, "");
}
