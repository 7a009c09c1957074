/**
 * The objects of one module release, equivalent to the tinysystems-operator chart 0.2.13 with the
 * values `tiny` sets (provision.md §3.3, §5.1; runtime-spec §12): ServiceAccount, ClusterRole +
 * binding, leader-election Role + binding, ExposePort Role + binding, manager Service, manager
 * Ingress, controller-manager Deployment. No Helm hooks: the namespace check is done by ensuring
 * the label (provision.md §8).
 */
import {
  clusterRoleBindings,
  clusterRoles,
  deployments,
  ingresses,
  roleBindings,
  roles,
  serviceAccounts,
  services,
  type PolicyRule,
} from "../k8s/client/index.ts";
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
import { moduleRbacRules } from "./rbac.ts";
import { clusterScopedName } from "./sanitize.ts";

/** Port of the module's gRPC server, named `grpc` (runtime-spec §12). */
export const GRPC_PORT = 8483;
/** Port of /healthz and /readyz (`--health-probe-bind-address=:8081`). */
export const HEALTH_PORT = 8081;
/** User and group id the module runs as (chart securityContext; distroless `nonroot`). */
export const MODULE_UID = 65532;
/** Path of the binary in the image (Dockerfile). */
export const MODULE_BINARY = "/usr/local/bin/tinyhost";
/** OTLP DSN the chart's `extraEnv` sets (provision.md §3.3). */
export const OTLP_DSN = "http://token@tinysystems-otel-collector:2345";

/** What the release objects depend on besides the options. */
export interface ReleaseInputs {
  /** `TINY_NATS_URL` value; absent = no NATS (the module falls back to gRPC, runtime-spec §4.1). */
  brokerUrl?: string;
}

/** Names of the release objects for the options (provision.md §5.1). */
export function namesFor(o: Pick<ProvisionOptions, "release" | "namespace">): ReleaseNames {
  return releaseNames(o.release, clusterScopedName(o.release, o.namespace));
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

/**
 * Env of the manager container, in the chart's order: extraEnv (OTLP_DSN, TINY_NATS_TRANSPORT),
 * RELEASE_NAME, RELEASE_NAMESPACE, KUBERNETES_CLUSTER_DOMAIN, SELF_SERVICE_HOST, TINY_NATS_URL.
 * `TINY_NATS_TRANSPORT=jetstream` as `tiny`'s BaseValues sets it (provision.md §3.3).
 */
export function managerEnv(o: ProvisionOptions, inputs: ReleaseInputs): { name: string; value: string }[] {
  const names = namesFor(o);
  const env: { name: string; value: string }[] = [];
  if (o.otel) env.push({ name: "OTLP_DSN", value: OTLP_DSN });
  if (inputs.brokerUrl) env.push({ name: "TINY_NATS_TRANSPORT", value: "jetstream" });
  env.push(
    { name: "RELEASE_NAME", value: o.release },
    { name: "RELEASE_NAMESPACE", value: o.namespace },
    { name: "KUBERNETES_CLUSTER_DOMAIN", value: "cluster.local" },
    { name: "SELF_SERVICE_HOST", value: `${names.service}:${GRPC_PORT}` },
  );
  if (inputs.brokerUrl) env.push({ name: "TINY_NATS_URL", value: inputs.brokerUrl });
  return env;
}

function role(kind: "Role" | "ClusterRole", name: string, namespace: string | undefined, labels: Record<string, string>, rules: PolicyRule[]): ManifestObject {
  return {
    apiVersion: "rbac.authorization.k8s.io/v1",
    kind,
    metadata: { name, ...(namespace ? { namespace } : {}), labels },
    rules,
  };
}

function binding(kind: "RoleBinding" | "ClusterRoleBinding", name: string, roleName: string, o: ProvisionOptions, labels: Record<string, string>): ManifestObject {
  return {
    apiVersion: "rbac.authorization.k8s.io/v1",
    kind,
    metadata: { name, ...(kind === "RoleBinding" ? { namespace: o.namespace } : {}), labels },
    roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: kind === "RoleBinding" ? "Role" : "ClusterRole", name: roleName },
    subjects: [{ kind: "ServiceAccount", name: namesFor(o).serviceAccount, namespace: o.namespace }],
  };
}

/**
 * The roles only (no bindings, no account): what `tinyhost rbac` prints — ClusterRole
 * `<R-N>-manager-role`, Role `R-leader-election-role`, Role `R-extra`.
 */
export function releaseRoles(o: ProvisionOptions): ManifestObject[] {
  const names = namesFor(o);
  const rbacLabels = operatorLabels(o.release, "rbac");
  const rules = moduleRbacRules({ withCrHelpers: o.withCrHelpers });
  return [
    role("ClusterRole", names.clusterRole, undefined, commonLabels(o.release), rules.cluster),
    role("Role", names.leaderElectionRole, o.namespace, rbacLabels, rules.leaderElection),
    role("Role", names.extraRole, o.namespace, { ...commonLabels(o.release), "app.kubernetes.io/component": "rbac" }, rules.namespaced),
  ];
}

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
 * The manager Ingress: class, annotations and the chart's placeholder defaultBackend (service port
 * 80) — never `rules` or `tls`, which ExposePort owns (atomic lists: applying them would erase its
 * routes; provision.md §8).
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
      defaultBackend: { service: { name: names.service, port: { number: 80 } } },
    },
  };
}

/** The controller-manager Deployment (runtime-spec §12). */
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
      replicas: 1,
      strategy: { type: "RollingUpdate", rollingUpdate: { maxUnavailable: 0, maxSurge: 1 } },
      selector: { matchLabels: pod },
      template: {
        metadata: { labels: pod, annotations: { "kubectl.kubernetes.io/default-container": "manager" } },
        spec: {
          securityContext: { runAsNonRoot: true, runAsUser: MODULE_UID, runAsGroup: MODULE_UID, fsGroup: MODULE_UID },
          serviceAccountName: names.serviceAccount,
          terminationGracePeriodSeconds: 10,
          containers: [
            {
              name: "manager",
              image: o.image,
              imagePullPolicy: "IfNotPresent",
              command: [MODULE_BINARY],
              args: managerArgs(o),
              ports: [{ name: "grpc", containerPort: GRPC_PORT, protocol: "TCP" }],
              env: managerEnv(o, inputs),
              livenessProbe: { httpGet: { path: "/healthz", port: HEALTH_PORT }, initialDelaySeconds: 15, periodSeconds: 20 },
              readinessProbe: { httpGet: { path: "/readyz", port: HEALTH_PORT }, initialDelaySeconds: 5, periodSeconds: 10 },
              resources: { requests: { cpu: "10m", memory: "64Mi" }, limits: { cpu: "500m", memory: "256Mi" } },
              securityContext: { allowPrivilegeEscalation: false, capabilities: { drop: ["ALL"] } },
            },
          ],
        },
      },
    },
  };
}

/**
 * Every object of the release, in apply order (provision.md §8): ServiceAccount → ClusterRole/
 * binding → Roles/bindings → Service → Ingress → Deployment. The Service and Ingress are applied
 * without force (the module edits them); the rest with force.
 */
export function releaseManifests(o: ProvisionOptions, inputs: ReleaseInputs): Manifest[] {
  const names = namesFor(o);
  const rbacLabels = operatorLabels(o.release, "rbac");
  const [clusterRole, leaderRole, extraRole] = releaseRoles(o) as [ManifestObject, ManifestObject, ManifestObject];
  const force = "apply-force" as const;
  return [
    {
      resource: serviceAccounts,
      policy: force,
      object: { apiVersion: "v1", kind: "ServiceAccount", metadata: { name: names.serviceAccount, namespace: o.namespace, labels: rbacLabels } },
    },
    { resource: clusterRoles, policy: force, object: clusterRole },
    { resource: clusterRoleBindings, policy: force, object: binding("ClusterRoleBinding", names.clusterRoleBinding, names.clusterRole, o, rbacLabels) },
    { resource: roles, policy: force, object: leaderRole },
    { resource: roleBindings, policy: force, object: binding("RoleBinding", names.leaderElectionRoleBinding, names.leaderElectionRole, o, rbacLabels) },
    { resource: roles, policy: force, object: extraRole },
    { resource: roleBindings, policy: force, object: binding("RoleBinding", names.extraRoleBinding, names.extraRole, o, { ...commonLabels(o.release), "app.kubernetes.io/component": "rbac" }) },
    { resource: services, policy: "apply", object: managerService(o) },
    { resource: ingresses, policy: "apply", object: managerIngress(o) },
    { resource: deployments, policy: force, object: managerDeployment(o, inputs) },
  ];
}

