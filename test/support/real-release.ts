/**
 * What a test needs to install the platform's chart on the real cluster (test/support/real-cluster.ts)
 * beside a NATS pod: helm v4 with a home of its own, the release namespace, and NATS as a pod from
 * the local image of Debian's nats-server (scripts/image/nats-image.ts) — plain JetStream on an
 * emptyDir, no auth. A pod rather than the test bed's host NATS: that one listens on 127.0.0.1,
 * which a pod cannot reach. The same setup test/integration/real-chart.test.ts writes out.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { RealCluster } from "./real-cluster.ts";
import { waitUntil } from "./process.ts";
import { podSecurityContext, restrictedContainerSecurityContext } from "../../src/provision/security.ts";
import { NATS_UID } from "../../src/provision/nats.ts";

/** What one helm run gave. */
export interface HelmRun {
  code: number;
  stdout: string;
  stderr: string;
  /** Wall time of the run, ms. */
  ms: number;
}

/** helm against one cluster, with a home (cache, config, data) of its own. */
export interface Helm {
  /** Runs `helm <args> --kubeconfig <the cluster's>`; killed after `timeoutMs` (default 10 min). */
  run(args: string[], timeoutMs?: number): Promise<HelmRun>;
  /** Removes the home. */
  dispose(): void;
}

/** A {@link Helm} for `cluster` running the binary `helmBin` (test/support/go-tools.ts `goTool("helm")`). */
export function clusterHelm(cluster: RealCluster, helmBin: string): Helm {
  const home = mkdtempSync(join(tmpdir(), "helm-home-"));
  return {
    async run(args, timeoutMs = 600_000) {
      const t0 = performance.now();
      const p = Bun.spawn([helmBin, ...args, "--kubeconfig", cluster.controlPlane.tokenKubeconfig], {
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
    dispose() {
      rmSync(home, { recursive: true, force: true });
    },
  };
}

/** The JSON body of a request to the cluster's apiserver. @throws Error with the status and body when it fails. */
export async function clusterApi<T>(cluster: RealCluster, method: string, path: string, body?: unknown, contentType?: string): Promise<T> {
  const res = await cluster.controlPlane.request(method, path, body, contentType);
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${path}: HTTP ${res.status} ${text}`);
  return JSON.parse(text) as T;
}

/** The Deployment and Service of the NATS pod (`nats`, port 4222; monitor 8222 for the probe). */
export function natsObjects(image: string) {
  const labels = { app: "nats" };
  return {
    deployment: {
      metadata: { name: "nats", labels },
      spec: {
        replicas: 1,
        selector: { matchLabels: labels },
        template: {
          metadata: { labels },
          spec: {
            automountServiceAccountToken: false,
            securityContext: podSecurityContext(NATS_UID),
            containers: [
              {
                name: "nats",
                image,
                imagePullPolicy: "Never",
                args: ["--jetstream", "--store_dir", "/data", "--http_port", "8222"],
                ports: [
                  { name: "client", containerPort: 4222 },
                  { name: "monitor", containerPort: 8222 },
                ],
                readinessProbe: { httpGet: { path: "/healthz", port: "monitor" }, periodSeconds: 1 },
                resources: { requests: { cpu: "20m", memory: "32Mi" }, limits: { memory: "256Mi" } },
                securityContext: restrictedContainerSecurityContext(),
                volumeMounts: [{ name: "data", mountPath: "/data" }],
              },
            ],
            volumes: [{ name: "data", emptyDir: {} }],
          },
        },
      },
    },
    service: { metadata: { name: "nats" }, spec: { selector: labels, ports: [{ name: "client", port: 4222, targetPort: "client" }] } },
  };
}

interface PodView {
  metadata: { deletionTimestamp?: string };
  status: { podIP?: string; conditions?: { type: string; status: string }[] };
}

/**
 * A new namespace labelled `tinysystems.io/managed=true` (the chart's hooks look for it), with its
 * default ServiceAccount, and a Ready NATS pod in it.
 * @returns the namespace and the NATS pod's IP (the host reaches pod IPs: real-node/node.ts).
 * @throws Error when the ServiceAccount or the pod is not there within a minute or two.
 */
export async function releaseNamespaceWithNats(cluster: RealCluster, prefix: string, natsImage: string): Promise<{ ns: string; natsPodIp: string }> {
  const cp = cluster.controlPlane;
  const ns = await cp.newNamespace(prefix);
  await cp.request("PATCH", `/api/v1/namespaces/${ns}`, { metadata: { labels: { "tinysystems.io/managed": "true" } } }, "application/merge-patch+json");
  await waitUntil(
    "the namespace's default ServiceAccount",
    async () => (await cp.request("GET", `/api/v1/namespaces/${ns}/serviceaccounts/default`)).ok,
    60_000,
    200,
  );
  const nats = natsObjects(natsImage);
  await clusterApi(cluster, "POST", `/apis/apps/v1/namespaces/${ns}/deployments`, nats.deployment);
  await clusterApi(cluster, "POST", `/api/v1/namespaces/${ns}/services`, nats.service);
  let ip = "";
  await waitUntil(
    "the NATS pod to be Ready",
    async () => {
      const pods = (await clusterApi<{ items: PodView[] }>(cluster, "GET", `/api/v1/namespaces/${ns}/pods?labelSelector=app%3Dnats`)).items;
      const ready = pods.find((p) => !p.metadata.deletionTimestamp && (p.status.conditions ?? []).some((c) => c.type === "Ready" && c.status === "True"));
      ip = ready?.status.podIP ?? "";
      return ip !== "";
    },
    120_000,
    250,
  );
  return { ns, natsPodIp: ip };
}
