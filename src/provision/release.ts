/**
 * The objects of one module release, equivalent to the tinysystems-operator chart (0.2.12 as the
 * SDK v0.13.125 ships it; provision.md §3.3, §5.1; runtime-spec §12) with the values `tiny` sets,
 * tightened where the chart is looser than the module needs (docs/compatibility.md "Provision"):
 * namespaced Roles instead of a ClusterRole, writes pinned by `resourceNames`, the broker token
 * from its Secret by `secretKeyRef`, Pod Security "restricted" (seccomp RuntimeDefault, read-only
 * root filesystem with an emptyDir `/tmp`, non-root, no capabilities), and a manager Ingress whose
 * default backend routes nothing. No Helm hooks: the namespace check is done by ensuring the
 * label (provision.md §8); `tinyhost uninstall` does the pre-delete step.
 */
import { ENV_AUTOSCALE_MIN } from "../operator/scale-to-zero.ts";
import { sanitizeResourceName } from "../core/api/index.ts";
import { parseMemoryQuantity } from "../operator/memory-governor.ts";
import {
  clusterRoleBindings,
  clusterRoles,
  deployments,
  ingresses,
  roleBindings,
  roles,
  serviceAccounts,
  services,
  type KubeObject,
  type PolicyRule,
  type ResourceDescriptor,
} from "../k8s/client/index.ts";
import { NATS_AUTH_SECRET, NATS_CLIENT_PORT, NATS_NAME, NATS_TOKEN_KEY } from "./broker-url.ts";
import {
  commonLabels,
  INGRESS_SUFFIX_ANNOTATION,
  MODULE_IMAGE_ANNOTATION,
  MODULE_VERSION_ANNOTATION,
  operatorLabels,
  podLabels,
  releaseNames,
  type ReleaseNames,
} from "./labels.ts";
import type { Manifest, ManifestObject } from "./manifest.ts";
import type { ProvisionOptions } from "./options.ts";
import { kubernetesResourceAccessRules, moduleRbacRules, type PinnedNames } from "./rbac.ts";
import { declaredRbac } from "./rbac-values.ts";
import { clusterScopedName } from "./sanitize.ts";
import { podSecurityContext, restrictedContainerSecurityContext } from "./security.ts";

/** Port of the module's gRPC server, named `grpc` (runtime-spec §12). */
export const GRPC_PORT = 8483;
/** Port of /healthz and /readyz (`--health-probe-bind-address=:8081`). */
export const HEALTH_PORT = 8081;
/** User and group id the module runs as (chart securityContext; distroless `nonroot`). */
export const MODULE_UID = 65532;
/** Path of the binary in the image: the chart runs `command: [/manager]` (Dockerfile). */
export const MODULE_BINARY = "/manager";
/** OTLP DSN the chart's `extraEnv` sets (provision.md §3.3). */
export const OTLP_DSN = "http://token@tinysystems-otel-collector:2345";
/** Seconds the kubelet waits after SIGTERM before killing a module pod (the chart's 10). */
export const MODULE_GRACE_SECONDS = 10;
/** Env variable that carries the broker token from its Secret into `TINY_NATS_URL`. */
export const NATS_TOKEN_ENV = "NATS_TOKEN";
/** Where the module's writable scratch directory is mounted (root filesystem is read-only). */
export const MODULE_TMP_DIR = "/tmp";
/**
 * Memory limit of the module container. The chart's is 128Mi; under steady traffic 1,000 TinyNodes
 * stay bounded but above it (bench/RESULTS.md "Module memory limit", docs/operations.md "Memory"),
 * so tinyhost's own install keeps 256Mi.
 */
export const MODULE_MEMORY_LIMIT = "256Mi";

/**
 * `BUN_JSC_forceRAMSize` for the module container: half of {@link MODULE_MEMORY_LIMIT}, in bytes.
 * The image's own value (64Mi) is half the platform chart's 128Mi; the other half of a limit is room
 * for the binary's code pages, which the pod's memory cgroup charges too (docs/operations.md §8
 * "In a pod": told the whole limit, a pod thrashed on them).
 */
export const MODULE_JSC_RAM_BYTES = parseMemoryQuantity(MODULE_MEMORY_LIMIT) / 2;

/**
 * `BUN_JSC_useDFGJIT` for the module container: `1`, the optimizing JIT tiers back on. The image
 * turns them off to keep 1,000 nodes under traffic below 100 MiB VmRSS in the chart's 128Mi (they
 * cost ≈ 17 MiB there, ≈ 115 against ≈ 96 MiB); {@link MODULE_MEMORY_LIMIT} leaves room for them,
 * and without a tight limit they are worth ≈ 1.8× the throughput (docs/operations.md §8).
 */
export const MODULE_JSC_DFG_JIT = "1";

/** What the release objects depend on besides the options. */
export interface ReleaseInputs {
  /** The module talks to the provisioned broker (`TINY_NATS_URL` with the Secret's token); false = gRPC (runtime-spec §4.1). */
  nats: boolean;
}

/** Names of the release objects for the options (provision.md §5.1). */
export function namesFor(o: Pick<ProvisionOptions, "release" | "namespace">): ReleaseNames {
  return releaseNames(o.release, clusterScopedName(o.release, o.namespace));
}

/** The names the release's RBAC writes are pinned to: TinyModule and Lease from the SDK-sanitized module name (runtime-spec §5.2, §6). */
export function pinnedNamesFor(o: Pick<ProvisionOptions, "release" | "namespace">): PinnedNames {
  const names = namesFor(o);
  const module = sanitizeResourceName(o.release);
  return { tinyModule: module, lease: `${module}-lock`, service: names.service, ingress: names.ingress };
}

/**
 * The `run` arguments (runtime-spec §12): `run --health-probe-bind-address=:8081
 * --metrics-bind-address=127.0.0.1:8080 --grpc-server-bind-address=:8483 --name=R --version=V --namespace=N`.
 */
export function managerArgs(o: Pick<ProvisionOptions, "release" | "version" | "namespace">): string[] {
  return [
    "run",
    `--health-probe-bind-address=:${HEALTH_PORT}`,
    "--metrics-bind-address=127.0.0.1:8080",
    `--grpc-server-bind-address=:${GRPC_PORT}`,
    `--name=${o.release}`,
    `--version=${o.version}`,
    `--namespace=${o.namespace}`,
  ];
}

/** One container env entry: a value, or a reference the kubelet resolves. */
export type EnvVar = { name: string; value: string } | { name: string; valueFrom: Record<string, unknown> };

/**
 * Env of the manager container, in the chart's order: extraEnv (OTLP_DSN, TINY_NATS_TRANSPORT),
 * RELEASE_NAME, RELEASE_NAMESPACE, KUBERNETES_CLUSTER_DOMAIN, SELF_SERVICE_HOST, then the broker:
 * `NATS_TOKEN` from Secret `tinysystems-nats-auth` key `token` (`secretKeyRef`) and
 * `TINY_NATS_URL=nats://$(NATS_TOKEN)@tinysystems-nats.<ns>.svc:4222` — the kubelet expands
 * `$(NATS_TOKEN)` (Kubernetes docs "Define Dependent Environment Variables"), so the module sees
 * the same `TINY_NATS_URL` the chart gives a Go module, and the token is never written into the
 * Deployment. `TINY_NATS_TRANSPORT=jetstream` as `tiny`'s BaseValues sets it (provision.md §3.3).
 * With `--nats-replicas` > 1, `TINYHOST_NATS_REPLICAS` (a tinyhost setting; Go has none). Then
 * tinyhost's own defaults (docs/operations.md §3): `TINYHOST_STOP_DELAY_MS` (`--stop-delay-ms`,
 * default 4000) and, with the broker, `TINYHOST_NATS_CONNECT_WAIT_MS` (`--nats-connect-wait-ms`,
 * default 120000); each left out when 0. With `--autoscale`, `TINYHOST_AUTOSCALE_MIN` = its min
 * (src/operator/scale-to-zero.ts).
 */
export function managerEnv(o: ProvisionOptions, inputs: ReleaseInputs): EnvVar[] {
  const names = namesFor(o);
  const env: EnvVar[] = [];
  if (o.otel) env.push({ name: "OTLP_DSN", value: OTLP_DSN });
  if (inputs.nats) env.push({ name: "TINY_NATS_TRANSPORT", value: "jetstream" });
  env.push(
    { name: "RELEASE_NAME", value: o.release },
    { name: "RELEASE_NAMESPACE", value: o.namespace },
    { name: "KUBERNETES_CLUSTER_DOMAIN", value: "cluster.local" },
    { name: "SELF_SERVICE_HOST", value: `${names.service}:${GRPC_PORT}` },
    { name: "BUN_JSC_forceRAMSize", value: String(MODULE_JSC_RAM_BYTES) },
    { name: "BUN_JSC_useDFGJIT", value: MODULE_JSC_DFG_JIT },
  );
  if (inputs.nats) {
    env.push(
      { name: NATS_TOKEN_ENV, valueFrom: { secretKeyRef: { name: NATS_AUTH_SECRET, key: NATS_TOKEN_KEY } } },
      { name: "TINY_NATS_URL", value: `nats://$(${NATS_TOKEN_ENV})@${NATS_NAME}.${o.namespace}.svc:${NATS_CLIENT_PORT}` },
    );
    // A clustered broker: the module keeps its streams and ledger at as many replicas (src/operator/transport.ts).
    if (o.natsReplicas > 1) env.push({ name: "TINYHOST_NATS_REPLICAS", value: String(o.natsReplicas) });
    // Applied together with the broker: the first connect waits for it instead of settling on gRPC (src/operator/nats-connect-wait.ts).
    if (o.natsConnectWaitMs > 0) env.push({ name: "TINYHOST_NATS_CONNECT_WAIT_MS", value: String(o.natsConnectWaitMs) });
  }
  // Behind an Ingress the endpoints drop the pod before its listeners close (src/manager/stop-delay.ts).
  if (o.stopDelayMs > 0) env.push({ name: "TINYHOST_STOP_DELAY_MS", value: String(o.stopDelayMs) });
  // The autoscaling floor: at 0 the module reports a node that must keep it running (src/operator/scale-to-zero.ts).
  if (o.autoscale) env.push({ name: ENV_AUTOSCALE_MIN, value: String(o.autoscale.minReplicas) });
  return env;
}

function role(name: string, namespace: string, labels: Record<string, string>, rules: PolicyRule[]): ManifestObject {
  return { apiVersion: "rbac.authorization.k8s.io/v1", kind: "Role", metadata: { name, namespace, labels }, rules };
}

function binding(name: string, roleName: string, o: ProvisionOptions, labels: Record<string, string>): ManifestObject {
  return {
    apiVersion: "rbac.authorization.k8s.io/v1",
    kind: "RoleBinding",
    metadata: { name, namespace: o.namespace, labels },
    roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "Role", name: roleName },
    subjects: [{ kind: "ServiceAccount", name: namesFor(o).serviceAccount, namespace: o.namespace }],
  };
}

/** The module's ServiceAccount `R-controller-manager`. */
export function managerServiceAccount(o: ProvisionOptions): ManifestObject {
  return {
    apiVersion: "v1",
    kind: "ServiceAccount",
    metadata: { name: namesFor(o).serviceAccount, namespace: o.namespace, labels: operatorLabels(o.release, "rbac") },
  };
}

/**
 * The rules the components declare (`requirements`, rbac-values.ts `declaredRbac`), as provision
 * grants them: `namespaced` joins the Role `R-extra` (the chart's Role for `extraNamespacedRules`),
 * `cluster` is `extraRules` plus, when asked, the chart's Kubernetes resource access — a ClusterRole,
 * as the chart grants both.
 */
export function declaredReleaseRules(o: Pick<ProvisionOptions, "components">): { namespaced: PolicyRule[]; cluster: PolicyRule[] } {
  const declared = declaredRbac(o.components ?? []);
  return { namespaced: declared.namespaced, cluster: [...(declared.resourceAccess ? kubernetesResourceAccessRules() : []), ...declared.cluster] };
}

/**
 * The module's RBAC, each Role followed by its RoleBinding: `R-manager-role`,
 * `R-leader-election-role`, `R-extra` (rules: rbac.ts, pinned to the release's names, then the
 * components' declared namespaced rules and Secret reads), and — only when a component declares
 * cluster-wide rules — the ClusterRole `<R-N>-extra` with its ClusterRoleBinding.
 */
export function releaseRbac(o: ProvisionOptions): ManifestObject[] {
  const names = namesFor(o);
  const rbacLabels = operatorLabels(o.release, "rbac");
  const extraLabels = { ...commonLabels(o.release), "app.kubernetes.io/component": "rbac" };
  const rules = moduleRbacRules({ withCrHelpers: o.withCrHelpers, names: pinnedNamesFor(o) });
  const declared = declaredReleaseRules(o);
  const out = [
    role(names.managerRole, o.namespace, rbacLabels, rules.manager),
    binding(names.managerRoleBinding, names.managerRole, o, rbacLabels),
    role(names.leaderElectionRole, o.namespace, rbacLabels, rules.leaderElection),
    binding(names.leaderElectionRoleBinding, names.leaderElectionRole, o, rbacLabels),
    role(names.extraRole, o.namespace, extraLabels, [...rules.expose, ...declared.namespaced]),
    binding(names.extraRoleBinding, names.extraRole, o, extraLabels),
  ];
  if (declared.cluster.length > 0) {
    out.push(
      {
        apiVersion: "rbac.authorization.k8s.io/v1",
        kind: "ClusterRole",
        metadata: { name: names.extraClusterRole, labels: extraLabels },
        rules: declared.cluster,
      },
      {
        apiVersion: "rbac.authorization.k8s.io/v1",
        kind: "ClusterRoleBinding",
        metadata: { name: names.extraClusterRole, labels: extraLabels },
        roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name: names.extraClusterRole },
        subjects: [{ kind: "ServiceAccount", name: names.serviceAccount, namespace: o.namespace }],
      },
    );
  }
  return out;
}

/** The API resource of each RBAC kind {@link releaseRbac} renders. */
const RBAC_RESOURCES: Record<string, ResourceDescriptor<KubeObject>> = {
  Role: roles as ResourceDescriptor<KubeObject>,
  RoleBinding: roleBindings as ResourceDescriptor<KubeObject>,
  ClusterRole: clusterRoles as ResourceDescriptor<KubeObject>,
  ClusterRoleBinding: clusterRoleBindings as ResourceDescriptor<KubeObject>,
};

/** The manager Service: one `grpc` port (the only entry tinyhost owns; ExposePort's `port<N>` entries survive re-applies). */
export function managerService(o: ProvisionOptions): ManifestObject {
  const names = namesFor(o);
  return {
    apiVersion: "v1",
    kind: "Service",
    metadata: { name: names.service, namespace: o.namespace, labels: { ...commonLabels(o.release), "app.kubernetes.io/component": "manager" } },
    spec: {
      type: "ClusterIP",
      // The chart's template repeats keys; the effective (and emitted) selector is these three (provision.md §5.1).
      selector: podLabels(o.release),
      ports: [{ name: "grpc", port: GRPC_PORT, protocol: "TCP", targetPort: "grpc" }],
    },
  };
}

/**
 * The manager Ingress: class, annotations, and a default backend that routes nothing — a
 * `resource` backend naming the module's TinyModule, which no ingress controller serves — so the
 * Ingress is valid (networking/v1 needs a default backend or rules) while only the rules
 * ExposePort adds carry traffic. The chart's placeholder (Service port 80) names a port the Service
 * does not have, and the one it has (gRPC) must not face the outside. Never `rules` or `tls`, which
 * ExposePort owns (atomic lists: applying them would erase its routes; provision.md §8).
 */
export function managerIngress(o: ProvisionOptions): ManifestObject {
  const names = namesFor(o);
  return {
    apiVersion: "networking.k8s.io/v1",
    kind: "Ingress",
    metadata: {
      name: names.ingress,
      namespace: o.namespace,
      labels: commonLabels(o.release),
      ...(o.ingressSuffix ? { annotations: { [INGRESS_SUFFIX_ANNOTATION]: o.ingressSuffix } } : {}),
    },
    spec: {
      ingressClassName: o.ingressClass,
      defaultBackend: { resource: { apiGroup: "operator.tinysystems.io", kind: "TinyModule", name: pinnedNamesFor(o).tinyModule } },
    },
  };
}

/** Seconds between startup probes when the module may wait for its broker. */
export const STARTUP_PROBE_PERIOD_SECONDS = 5;
/** What the startup probe allows on top of the connect wait: the rest of the start (first node list, listeners), ms. */
export const STARTUP_AFTER_CONNECT_MS = 30_000;

/**
 * A startup probe on /healthz when the module may wait for its broker (`TINYHOST_NATS_CONNECT_WAIT_MS`):
 * its health server starts once the wire is open, and the chart's liveness probe (15 s, then 3
 * failures 20 s apart) would restart a module still waiting after ~55 s. Kubernetes runs neither
 * liveness nor readiness until the startup probe passes ("Protect slow starting containers"), so
 * it allows the wait plus {@link STARTUP_AFTER_CONNECT_MS}. None otherwise (the chart's probes).
 */
function startupProbe(o: ProvisionOptions, inputs: ReleaseInputs): { startupProbe?: Record<string, unknown> } {
  if (!inputs.nats || o.natsConnectWaitMs === 0) return {};
  const failureThreshold = Math.ceil((o.natsConnectWaitMs + STARTUP_AFTER_CONNECT_MS) / (STARTUP_PROBE_PERIOD_SECONDS * 1000));
  return { startupProbe: { httpGet: { path: "/healthz", port: HEALTH_PORT }, periodSeconds: STARTUP_PROBE_PERIOD_SECONDS, failureThreshold } };
}

/**
 * The controller-manager Deployment (runtime-spec §12): the chart's container (`/manager run …`,
 * probes, port `grpc`, uid 65532) under Pod Security "restricted", with an emptyDir
 * at `/tmp` as the only writable path.
 */
export function managerDeployment(o: ProvisionOptions, inputs: ReleaseInputs): ManifestObject {
  const names = namesFor(o);
  const pod = podLabels(o.release);
  return {
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: {
      name: names.deployment,
      namespace: o.namespace,
      labels: { ...operatorLabels(o.release, "manager"), "control-plane": "controller-manager" },
      annotations: { [MODULE_IMAGE_ANNOTATION]: o.image, [MODULE_VERSION_ANNOTATION]: o.version },
    },
    spec: {
      // Autoscaled: KEDA's HPA owns the replica count; applying one would fight it on every provision
      // (Kubernetes docs "Horizontal Pod Autoscaling › Migrating Deployments to use autoscaling").
      ...(o.autoscale ? {} : { replicas: 1 }),
      strategy: { type: "RollingUpdate", rollingUpdate: { maxUnavailable: 0, maxSurge: 1 } },
      selector: { matchLabels: pod },
      template: {
        metadata: { labels: pod, annotations: { "kubectl.kubernetes.io/default-container": "manager" } },
        spec: {
          securityContext: podSecurityContext(MODULE_UID),
          serviceAccountName: names.serviceAccount,
          terminationGracePeriodSeconds: MODULE_GRACE_SECONDS,
          containers: [
            {
              name: "manager",
              image: o.image,
              imagePullPolicy: "IfNotPresent",
              command: [MODULE_BINARY],
              args: managerArgs(o),
              ports: [{ name: "grpc", containerPort: GRPC_PORT, protocol: "TCP" }],
              env: managerEnv(o, inputs),
              ...startupProbe(o, inputs),
              livenessProbe: { httpGet: { path: "/healthz", port: HEALTH_PORT }, initialDelaySeconds: 15, periodSeconds: 20 },
              readinessProbe: { httpGet: { path: "/readyz", port: HEALTH_PORT }, initialDelaySeconds: 5, periodSeconds: 10 },
              resources: { requests: { cpu: "10m", memory: "64Mi" }, limits: { cpu: "500m", memory: MODULE_MEMORY_LIMIT } },
              securityContext: restrictedContainerSecurityContext(),
              volumeMounts: [{ name: "tmp", mountPath: MODULE_TMP_DIR }],
            },
          ],
          volumes: [{ name: "tmp", emptyDir: { sizeLimit: "64Mi" } }],
        },
      },
    },
  };
}

/**
 * Every object of the release, in apply order (provision.md §8): ServiceAccount → Roles/bindings
 * (and the declared ClusterRole/binding) →
 * Service → Ingress → Deployment. The Service and Ingress are applied without force (the module
 * edits them); the rest with force.
 */
export function releaseManifests(o: ProvisionOptions, inputs: ReleaseInputs): Manifest[] {
  const force = "apply-force" as const;
  const rbac = releaseRbac(o).map((object): Manifest => ({ resource: RBAC_RESOURCES[object.kind]!, policy: force, object }));
  return [
    { resource: serviceAccounts, policy: force, object: managerServiceAccount(o) },
    ...rbac,
    { resource: services, policy: "apply", object: managerService(o) },
    { resource: ingresses, policy: "apply", object: managerIngress(o) },
    { resource: deployments, policy: force, object: managerDeployment(o, inputs) },
  ];
}
