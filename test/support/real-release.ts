/**
 * A module release on the real cluster (test/support/real-cluster.ts) the way users install one:
 * the platform's tinysystems-operator chart (test/integration/chart-pod.ts prepareChart) installed
 * with a real `helm` v4 (scripts/build-go-tools.sh) and an image from scripts/image imported into
 * the node's containerd (never pulled), beside a NATS pod from the local image of Debian's
 * nats-server. Shared by the real-*.test.ts files that need a running module.
 *
 * NATS runs as a pod in the release namespace, plain JetStream on an emptyDir, no auth (the chart's
 * `natsURL` is a bare URL): the test bed's host NATS listens on 127.0.0.1, which a pod cannot reach.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import YAML from "yaml";
import type { RealCluster } from "./real-cluster.ts";
import { goTool } from "./go-tools.ts";
import { waitUntil } from "./process.ts";
import { natsPodObjects } from "./real-node/nats-pod.ts";
import { splitImage } from "../../src/provision/options.ts";

const ROOT = resolve(import.meta.dir, "../..");

/** The chart's name: a release's objects are `<release>-tinysystems-operator-…` (unless the release name contains it). */
export const CHART_NAME = "tinysystems-operator";

/** The chart's `fullname` for release `release` (its _helpers.tpl rule). */
export function chartFullname(release: string): string {
  return release.includes(CHART_NAME) ? release : `${release}-${CHART_NAME}`;
}

/** A pod as these tests read it. */
export interface PodInfo {
  metadata: { name: string; labels?: Record<string, string>; deletionTimestamp?: string; creationTimestamp?: string };
  spec: { containers: { name: string; image: string }[] };
  status: {
    phase?: string;
    podIP?: string;
    startTime?: string;
    conditions?: { type: string; status: string; lastTransitionTime?: string }[];
    containerStatuses?: { ready: boolean; restartCount: number; containerID?: string }[];
  };
}

/** Whether `p` is Ready and not being deleted. */
export const isPodReady = (p: PodInfo) => !p.metadata.deletionTimestamp && (p.status.conditions ?? []).some((c) => c.type === "Ready" && c.status === "True");

/** JSON requests against the real cluster's apiserver (as its token user). */
export interface ClusterApi {
  /** @throws Error naming method, path, status and body when the apiserver answers non-2xx. */
  call<T>(method: string, path: string, body?: unknown): Promise<T>;
  /** `items` of a list. */
  list<T>(path: string): Promise<T[]>;
}

/** {@link ClusterApi} of `cluster`. */
export function clusterApi(cluster: RealCluster): ClusterApi {
  const call = async <T>(method: string, path: string, body?: unknown): Promise<T> => {
    const res = await cluster.controlPlane.request(method, path, body);
    const text = await res.text();
    if (!res.ok) throw new Error(`${method} ${path}: HTTP ${res.status} ${text}`);
    return JSON.parse(text) as T;
  };
  return { call, list: async <T>(path: string) => (await call<{ items: T[] }>("GET", path)).items };
}

/** What one helm run did. */
export interface HelmRun {
  code: number;
  stdout: string;
  stderr: string;
  /** Wall time, ms. */
  ms: number;
}

/** helm v4 with a home of its own, against the real cluster (token kubeconfig). */
export interface Helm {
  readonly bin: string;
  /** Runs helm; killed after `timeoutMs` (default 10 min). */
  run(args: string[], timeoutMs?: number): Promise<HelmRun>;
  /** Writes `values` as a values file in helm's home; returns its path (for `-f`). */
  valuesFile(name: string, values: unknown): string;
  /** Removes helm's home. */
  dispose(): void;
}

/** Opens {@link Helm} (builds the Go test tools on first use: README.md "Set up"). */
export async function openHelm(cluster: RealCluster): Promise<Helm> {
  const bin = await goTool("helm");
  const home = mkdtempSync(join(tmpdir(), "helm-home-"));
  return {
    bin,
    async run(args, timeoutMs = 600_000) {
      const t0 = performance.now();
      const p = Bun.spawn([bin, ...args, "--kubeconfig", cluster.controlPlane.tokenKubeconfig], {
        stdout: "pipe",
        stderr: "pipe",
        env: {
          PATH: process.env.PATH ?? "",
          HOME: home,
          HELM_CACHE_HOME: join(home, "cache"),
          HELM_CONFIG_HOME: join(home, "config"),
          HELM_DATA_HOME: join(home, "data"),
        },
      });
      const timer = setTimeout(() => p.kill("SIGKILL"), timeoutMs);
      try {
        const [stdout, stderr, code] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text(), p.exited]);
        return { code, stdout, stderr, ms: Math.round(performance.now() - t0) };
      } finally {
        clearTimeout(timer);
      }
    },
    valuesFile(name, values) {
      const path = join(home, `${name}.values.yaml`);
      writeFileSync(path, YAML.stringify(values));
      return path;
    },
    dispose: () => rmSync(home, { recursive: true, force: true }),
  };
}

/**
 * A namespace for a release: created (`<prefix>-<n>`), labelled `tinysystems.io/managed=true` as
 * `tiny` labels the namespaces it manages, with its default ServiceAccount in place (the chart's
 * hook Jobs need the namespace's ServiceAccount controller to have run).
 */
export async function newReleaseNamespace(cluster: RealCluster, prefix: string): Promise<string> {
  const cp = cluster.controlPlane;
  const ns = await cp.newNamespace(prefix);
  await cp.request("PATCH", `/api/v1/namespaces/${ns}`, { metadata: { labels: { "tinysystems.io/managed": "true" } } }, "application/merge-patch+json");
  await waitUntil(
    "the namespace's default ServiceAccount",
    async () => (await cp.request("GET", `/api/v1/namespaces/${ns}/serviceaccounts/default`)).ok,
    60_000,
    200,
  );
  return ns;
}

/** A NATS pod of a release namespace. */
export interface NatsPod {
  /** What pods use: `nats://nats.<ns>.svc:4222` (the Service, through CoreDNS and kube-proxy). */
  inClusterUrl: string;
  /** What the host uses (`tinyhost send`, tests): `nats://<pod IP>:4222` — the host routes the pod network, not Service IPs. */
  hostUrl: string;
}

/**
 * Creates the NATS Deployment and Service in `ns` and waits for the pod to be Ready.
 * @throws Error when the apiserver refuses them or the pod is not Ready within 2 min.
 */
export async function startNatsPod(cluster: RealCluster, ns: string, image: string): Promise<NatsPod> {
  const api = clusterApi(cluster);
  const nats = natsPodObjects(image);
  await api.call("POST", `/apis/apps/v1/namespaces/${ns}/deployments`, nats.deployment);
  await api.call("POST", `/api/v1/namespaces/${ns}/services`, nats.service);
  let ip = "";
  await waitUntil(
    "the NATS pod to be Ready",
    async () => {
      const ready = (await api.list<PodInfo>(`/api/v1/namespaces/${ns}/pods?labelSelector=app%3Dnats`)).find(isPodReady);
      ip = ready?.status.podIP ?? "";
      return ip !== "";
    },
    120_000,
    250,
  );
  return { inClusterUrl: `nats://nats.${ns}.svc:4222`, hostUrl: `nats://${ip}:4222` };
}

/** A module release to install with {@link installModule}. */
export interface ModuleRelease {
  release: string;
  namespace: string;
  /** Path of the prepared chart (prepareChart). */
  chart: string;
  /** Image reference in the node's containerd (`repo:tag`). */
  image: string;
  /** `controllerManager.manager.moduleName` (default: the chart's fullname). */
  moduleName?: string;
  /** `natsURL`; empty = the gRPC fallback (the SDK's legacy wire). */
  natsUrl: string;
  /** The manager Ingress's `tinysystems.io/ingress-hostname-suffix` (ExposePort's auto hostnames). */
  hostnameSuffix?: string;
  /** `controllerManager.manager.extraEnv`. */
  env?: Record<string, string>;
  /** More values, merged over these. */
  values?: Record<string, unknown>;
  /** Values files given before these values (e.g. {@link tinyhostRbacValues}). */
  valuesFiles?: string[];
}

/** The chart values of `r` (image never pulled, Traefik's ingress class). */
export function releaseValues(r: ModuleRelease): Record<string, unknown> {
  const { repository, tag } = splitImage(r.image);
  return {
    controllerManager: {
      manager: {
        image: { repository, tag },
        imagePullPolicy: "Never",
        // As `tiny install` passes them (provision.md §3.3): a Go module's hooks require --name.
        ...(r.moduleName
          ? {
              moduleName: r.moduleName,
              installArgs: ["pre-install", `--name=${r.moduleName}`, `--namespace=${r.namespace}`],
              deleteArgs: ["pre-delete", `--name=${r.moduleName}`, `--namespace=${r.namespace}`],
            }
          : {}),
        ...(r.env ? { extraEnv: Object.entries(r.env).map(([name, value]) => ({ name, value })) } : {}),
      },
    },
    natsURL: r.natsUrl,
    managerIngress: {
      ingress: {
        className: "traefik",
        annotations: r.hostnameSuffix ? { "tinysystems.io/ingress-hostname-suffix": r.hostnameSuffix } : {},
      },
    },
    ...r.values,
  };
}

/**
 * `helm install --wait` (or `helm upgrade` when `upgrade`) of `r`.
 * @throws Error with helm's output when it exits non-zero.
 */
export async function installModule(helm: Helm, r: ModuleRelease, upgrade = false): Promise<HelmRun> {
  const values = helm.valuesFile(`${r.namespace}-${r.release}`, releaseValues(r));
  const files = [...(r.valuesFiles ?? []), values].flatMap((f) => ["-f", f]);
  const run = await helm.run([upgrade ? "upgrade" : "install", r.release, r.chart, "-n", r.namespace, ...files, "--wait", "--timeout", "5m"]);
  if (run.code !== 0) throw new Error(`helm ${upgrade ? "upgrade" : "install"} ${r.release} exited ${run.code}: ${run.stderr}\n${run.stdout}`);
  return run;
}

/**
 * The chart values overlay of tinyhost's RBAC (`tinyhost tools rbac-values`, what the platform reads
 * from a module's image before installing it: pods get, and the release Service/Ingress for
 * ExposePort), written into helm's home. The chart alone grants neither (its
 * `rbac.enableKubernetesResourceAccess` is false).
 * @throws Error with the CLI's stderr when it fails.
 */
export function tinyhostRbacValues(helm: Helm): string {
  const r = Bun.spawnSync([process.execPath, join(ROOT, "src/cli/main.ts"), "tools", "rbac-values"], {
    stdout: "pipe",
    stderr: "pipe",
    env: { PATH: process.env.PATH ?? "", TINYHOST_LOG_LEVEL: "silent" },
  });
  if (r.exitCode !== 0) throw new Error(`tinyhost tools rbac-values exited ${r.exitCode}: ${r.stderr.toString()}`);
  return helm.valuesFile("tinyhost-rbac", YAML.parse(r.stdout.toString()));
}

/** The Ready manager pods of release `release` in `ns` (selector: the chart's labels). */
export async function managerPods(cluster: RealCluster, ns: string, release: string): Promise<PodInfo[]> {
  const selector = encodeURIComponent(`control-plane=controller-manager,app.kubernetes.io/instance=${release}`);
  return (await clusterApi(cluster).list<PodInfo>(`/api/v1/namespaces/${ns}/pods?labelSelector=${selector}`)).filter(isPodReady);
}
