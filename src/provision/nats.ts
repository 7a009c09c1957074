/**
 * The NATS broker the modules share: auth Secret (create-only), config, client and headless
 * Services, and a JetStream StatefulSet with a 2Gi file store per server: one server, or with
 * `--nats-replicas 3|5` a cluster of that many, routed to each other through the headless Service
 * (the upstream chart's `cluster.enabled` shape), the modules' streams and ledger then kept at that
 * many replicas (`TINYHOST_NATS_REPLICAS`, release.ts). Written after the
 * contract of the tinysystems-nats chart 0.1.2 (provision.md §5.3): client Service
 * `tinysystems-nats:4222`, token auth from Secret `tinysystems-nats-auth` key `token` via env
 * `NATS_TOKEN`, PVCs retained. Object names follow the upstream `nats` chart
 * (`<name>-config`, `<name>-headless`, volume claim `<name>-js`).
 */
import { createHash } from "node:crypto";
import { configMaps, secrets, services, statefulSets } from "../k8s/client/index.ts";
import { NATS_AUTH_SECRET, NATS_CLIENT_PORT, NATS_NAME, NATS_TOKEN_KEY } from "./broker-url.ts";
import { addonLabels } from "./labels.ts";
import { podSecurityContext, restrictedContainerSecurityContext } from "./security.ts";
import type { Manifest, ManifestObject } from "./manifest.ts";

/** Broker image (provision.md §5.3: the chart wraps nats 2.14.2). */
export const NATS_IMAGE = "nats:2.14.2-alpine";
/** Version label of the broker objects. */
export const NATS_VERSION = "2.14.2";
/** Size of the JetStream file store and of its PVC. */
export const NATS_STORAGE = "2Gi";
/** Monitoring port (`/healthz`). */
export const NATS_MONITOR_PORT = 8222;
/** Where the file store is mounted. */
export const NATS_STORE_DIR = "/data";
/** uid/gid of the broker (the image's `nats` user). */
export const NATS_UID = 1000;
/** Memory limit of the broker container. */
export const NATS_MEMORY_LIMIT = "512Mi";
/** Soft heap limit of the Go runtime inside it (~90 % of {@link NATS_MEMORY_LIMIT}). */
export const NATS_GOMEMLIMIT = "460MiB";
/** Cluster (route) port of a clustered broker. */
export const NATS_CLUSTER_PORT = 6222;
/** Replica counts `--nats-replicas` accepts: a JetStream cluster needs an odd majority, and streams have at most 5. */
export const NATS_REPLICA_CHOICES: readonly number[] = [1, 3, 5];
/** Placeholder printed by `--dry-run` instead of a token (one is generated on the first real run). */
export const DRY_RUN_TOKEN = "GENERATED-ON-FIRST-APPLY";

const CONFIG_KEY = "nats.conf";

/** Where one server of a clustered broker is reached by its peers: `<name>-<i>.<headless>.<ns>.svc.cluster.local:6222`. */
export function natsRouteUrls(namespace: string, replicas: number): string[] {
  return Array.from({ length: replicas }, (_, i) => `nats://${NATS_NAME}-${i}.${NATS_NAME}-headless.${namespace}.svc.cluster.local:${NATS_CLUSTER_PORT}`);
}

/**
 * The server configuration: client + monitor ports, JetStream file store, token from `$NATS_TOKEN`;
 * with `cluster.replicas` > 1 a `cluster` block routing to every server of the StatefulSet (a server
 * skips its own route) and retrying routes while its peers start.
 */
export function natsConfig(cluster?: { namespace: string; replicas: number }): string {
  const routes =
    cluster && cluster.replicas > 1
      ? [
          "cluster {",
          `  name: ${NATS_NAME}`,
          `  port: ${NATS_CLUSTER_PORT}`,
          "  routes: [",
          ...natsRouteUrls(cluster.namespace, cluster.replicas).map((u) => `    ${u}`),
          "  ]",
          "  connect_retries: 120",
          "}",
        ]
      : [];
  return [
    `port: ${NATS_CLIENT_PORT}`,
    `http_port: ${NATS_MONITOR_PORT}`,
    "server_name: $SERVER_NAME",
    "lame_duck_duration: 30s",
    "lame_duck_grace_period: 10s",
    "jetstream {",
    `  store_dir: ${NATS_STORE_DIR}`,
    "  max_memory_store: 0",
    `  max_file_store: ${NATS_STORAGE}`,
    "}",
    ...routes,
    "authorization {",
    "  token: $NATS_TOKEN",
    "}",
    "",
  ].join("\n");
}

function labels(): Record<string, string> {
  return addonLabels(NATS_NAME, NATS_VERSION, "nats");
}

function selector(): Record<string, string> {
  return { "app.kubernetes.io/name": NATS_NAME, "app.kubernetes.io/instance": NATS_NAME, "app.kubernetes.io/component": "nats" };
}

/**
 * The auth Secret with `token` (base64 in `data`). Written create-if-absent: an existing Secret is
 * never replaced, so the token survives every re-run (the chart's `lookup`, provision.md §8).
 * @param namespace - broker namespace. @param token - the token to store.
 */
export function natsAuthSecret(namespace: string, token: string): ManifestObject {
  return {
    apiVersion: "v1",
    kind: "Secret",
    metadata: { name: NATS_AUTH_SECRET, namespace, labels: labels() },
    type: "Opaque",
    data: { [NATS_TOKEN_KEY]: Buffer.from(token, "utf8").toString("base64") },
  };
}

/**
 * The broker objects after the Secret: ConfigMap, headless Service, client Service, StatefulSet.
 * @param image - the broker image (default {@link NATS_IMAGE}; any nats-server ≥ 2.9 that reads this config).
 * @param replicas - servers (default 1; 3 or 5 make a cluster, {@link NATS_REPLICA_CHOICES}).
 */
export function natsManifests(namespace: string, image: string = NATS_IMAGE, replicas = 1): Manifest[] {
  const config = natsConfig({ namespace, replicas });
  const headless = `${NATS_NAME}-headless`;
  const clustered = replicas > 1;
  const ports = [
    { name: "client", port: NATS_CLIENT_PORT, protocol: "TCP", targetPort: "client" },
    { name: "monitor", port: NATS_MONITOR_PORT, protocol: "TCP", targetPort: "monitor" },
    ...(clustered ? [{ name: "cluster", port: NATS_CLUSTER_PORT, protocol: "TCP", targetPort: "cluster" }] : []),
  ];
  const statefulSet: ManifestObject = {
    apiVersion: "apps/v1",
    kind: "StatefulSet",
    metadata: { name: NATS_NAME, namespace, labels: labels() },
    spec: {
      replicas,
      serviceName: headless,
      podManagementPolicy: "Parallel",
      persistentVolumeClaimRetentionPolicy: { whenDeleted: "Retain", whenScaled: "Retain" },
      selector: { matchLabels: selector() },
      template: {
        metadata: {
          labels: selector(),
          // A config change rolls the pod (there is no config reloader sidecar).
          annotations: { "checksum/config": createHash("sha256").update(config).digest("hex") },
        },
        spec: {
          terminationGracePeriodSeconds: 60,
          securityContext: podSecurityContext(NATS_UID),
          containers: [
            {
              name: "nats",
              image,
              imagePullPolicy: "IfNotPresent",
              args: ["--config", `/etc/nats-config/${CONFIG_KEY}`],
              env: [
                { name: "POD_NAME", valueFrom: { fieldRef: { fieldPath: "metadata.name" } } },
                { name: "SERVER_NAME", value: "$(POD_NAME)" },
                { name: "NATS_TOKEN", valueFrom: { secretKeyRef: { name: NATS_AUTH_SECRET, key: NATS_TOKEN_KEY } } },
                { name: "GOMEMLIMIT", value: NATS_GOMEMLIMIT },
              ],
              ports: [
                { name: "client", containerPort: NATS_CLIENT_PORT, protocol: "TCP" },
                { name: "monitor", containerPort: NATS_MONITOR_PORT, protocol: "TCP" },
                ...(clustered ? [{ name: "cluster", containerPort: NATS_CLUSTER_PORT, protocol: "TCP" }] : []),
              ],
              startupProbe: { httpGet: { path: "/healthz", port: "monitor" }, periodSeconds: 10, failureThreshold: 90 },
              livenessProbe: { httpGet: { path: "/healthz?js-enabled-only=true", port: "monitor" }, periodSeconds: 30, failureThreshold: 3 },
              readinessProbe: { httpGet: { path: "/healthz?js-server-only=true", port: "monitor" }, periodSeconds: 10, failureThreshold: 3 },
              // The server writes only to the JetStream store (/data); GOMEMLIMIT keeps the Go heap inside the limit.
              resources: { requests: { cpu: "50m", memory: "128Mi" }, limits: { cpu: "1", memory: NATS_MEMORY_LIMIT } },
              securityContext: restrictedContainerSecurityContext(),
              volumeMounts: [
                { name: "config", mountPath: "/etc/nats-config" },
                { name: `${NATS_NAME}-js`, mountPath: NATS_STORE_DIR },
              ],
            },
          ],
          volumes: [{ name: "config", configMap: { name: `${NATS_NAME}-config` } }],
        },
      },
      volumeClaimTemplates: [
        {
          apiVersion: "v1",
          kind: "PersistentVolumeClaim",
          metadata: { name: `${NATS_NAME}-js` },
          spec: { accessModes: ["ReadWriteOnce"], resources: { requests: { storage: NATS_STORAGE } } },
        },
      ],
    },
  };
  return [
    {
      resource: configMaps,
      policy: "apply-force",
      object: { apiVersion: "v1", kind: "ConfigMap", metadata: { name: `${NATS_NAME}-config`, namespace, labels: labels() }, data: { [CONFIG_KEY]: config } },
    },
    {
      resource: services,
      policy: "apply-force",
      object: {
        apiVersion: "v1",
        kind: "Service",
        metadata: { name: headless, namespace, labels: labels() },
        spec: { clusterIP: "None", publishNotReadyAddresses: true, selector: selector(), ports },
      },
    },
    {
      resource: services,
      policy: "apply-force",
      object: {
        apiVersion: "v1",
        kind: "Service",
        metadata: { name: NATS_NAME, namespace, labels: labels() },
        spec: { type: "ClusterIP", selector: selector(), ports: [ports[0]] },
      },
    },
    // No force: the StatefulSet holds durable run state; a field someone else changed stops the run (tiny installs the broker without force, §2 step 7).
    { resource: statefulSets, policy: "apply", object: statefulSet },
  ];
}

/** The Secret manifest (create-if-absent) for `token`. */
export function natsSecretManifest(namespace: string, token: string): Manifest {
  return { resource: secrets, policy: "create-if-absent", object: natsAuthSecret(namespace, token) };
}
