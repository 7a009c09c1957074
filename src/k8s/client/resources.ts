/**
 * Descriptors for the built-in resources tinyhost touches, with light object types (the fields we
 * read or write; everything else passes through untouched). Group/version/plural/kind as in the
 * Kubernetes API reference. CRD types live in src/core/api.
 */
import type { KubeObject, ResourceDescriptor } from "./types.ts";

/**
 * Declares a resource descriptor typed with its object type.
 * @example const tinyNodes = defineResource<TinyNode>({ group: "operator.tinysystems.io", version: "v1alpha1", plural: "tinynodes", namespaced: true, kind: "TinyNode" });
 */
export function defineResource<T extends KubeObject>(d: {
  group: string;
  version: string;
  plural: string;
  namespaced: boolean;
  kind: string;
}): ResourceDescriptor<T> {
  return Object.freeze({ ...d });
}

/** An object whose spec/status this client does not model. */
export interface GenericObject extends KubeObject {
  spec?: Record<string, unknown>;
  status?: Record<string, unknown>;
}

/** core/v1 Namespace. */
export interface Namespace extends KubeObject {
  spec?: { finalizers?: string[] };
  status?: { phase?: "Active" | "Terminating" };
}

/** core/v1 ConfigMap. */
export interface ConfigMap extends KubeObject {
  data?: Record<string, string>;
  /** base64 values. */
  binaryData?: Record<string, string>;
  immutable?: boolean;
}

/** core/v1 Secret. `data` values are base64; `stringData` is write-only plain text. */
export interface Secret extends KubeObject {
  type?: string;
  data?: Record<string, string>;
  stringData?: Record<string, string>;
  immutable?: boolean;
}

/** core/v1 ServicePort. */
export interface ServicePort {
  name?: string;
  protocol?: "TCP" | "UDP" | "SCTP";
  port: number;
  targetPort?: number | string;
  nodePort?: number;
}

/** core/v1 Service. */
export interface Service extends KubeObject {
  spec?: {
    type?: "ClusterIP" | "NodePort" | "LoadBalancer" | "ExternalName";
    selector?: Record<string, string>;
    ports?: ServicePort[];
    clusterIP?: string;
    [field: string]: unknown;
  };
  status?: Record<string, unknown>;
}

/** core/v1 Pod (spec left open). */
export interface Pod extends KubeObject {
  spec?: Record<string, unknown>;
  status?: { phase?: string; podIP?: string; [field: string]: unknown };
}

/** core/v1 ServiceAccount. */
export interface ServiceAccount extends KubeObject {
  secrets?: { name?: string }[];
  automountServiceAccountToken?: boolean;
}

/** core/v1 Event (the legacy events API that `kubectl describe` shows). */
export interface CoreEvent extends KubeObject {
  involvedObject: { apiVersion?: string; kind?: string; name?: string; namespace?: string; uid?: string; resourceVersion?: string; fieldPath?: string };
  reason?: string;
  message?: string;
  type?: "Normal" | "Warning";
  count?: number;
  /** RFC 3339 time. */
  firstTimestamp?: string;
  /** RFC 3339 time. */
  lastTimestamp?: string;
  source?: { component?: string; host?: string };
  reportingComponent?: string;
  reportingInstance?: string;
}

/** coordination.k8s.io/v1 Lease: the leader-election record (times are RFC 3339 MicroTime). */
export interface Lease extends KubeObject {
  spec?: {
    holderIdentity?: string;
    /** Seconds. */
    leaseDurationSeconds?: number;
    acquireTime?: string;
    renewTime?: string;
    leaseTransitions?: number;
  };
}

/** networking.k8s.io/v1 Ingress (rules kept open). */
export interface Ingress extends KubeObject {
  spec?: {
    ingressClassName?: string;
    rules?: Record<string, unknown>[];
    tls?: { hosts?: string[]; secretName?: string }[];
    [field: string]: unknown;
  };
  status?: Record<string, unknown>;
}

/** rbac.authorization.k8s.io/v1 PolicyRule. */
export interface PolicyRule {
  apiGroups?: string[];
  resources?: string[];
  resourceNames?: string[];
  verbs: string[];
  nonResourceURLs?: string[];
}

/** rbac.authorization.k8s.io/v1 Role and ClusterRole. */
export interface Role extends KubeObject {
  rules?: PolicyRule[];
}

/** rbac.authorization.k8s.io/v1 RoleBinding and ClusterRoleBinding. */
export interface RoleBinding extends KubeObject {
  subjects?: { kind: string; name: string; namespace?: string; apiGroup?: string }[];
  roleRef: { apiGroup: string; kind: string; name: string };
}

/** core/v1 Namespaces (cluster-scoped). */
export const namespaces = defineResource<Namespace>({ group: "", version: "v1", plural: "namespaces", namespaced: false, kind: "Namespace" });
/** core/v1 ConfigMaps. */
export const configMaps = defineResource<ConfigMap>({ group: "", version: "v1", plural: "configmaps", namespaced: true, kind: "ConfigMap" });
/** core/v1 Secrets. */
export const secrets = defineResource<Secret>({ group: "", version: "v1", plural: "secrets", namespaced: true, kind: "Secret" });
/** core/v1 Services. */
export const services = defineResource<Service>({ group: "", version: "v1", plural: "services", namespaced: true, kind: "Service" });
/** core/v1 Pods. */
export const pods = defineResource<Pod>({ group: "", version: "v1", plural: "pods", namespaced: true, kind: "Pod" });
/** core/v1 Events. */
export const events = defineResource<CoreEvent>({ group: "", version: "v1", plural: "events", namespaced: true, kind: "Event" });
/** core/v1 ServiceAccounts. */
export const serviceAccounts = defineResource<ServiceAccount>({
  group: "",
  version: "v1",
  plural: "serviceaccounts",
  namespaced: true,
  kind: "ServiceAccount",
});
/** coordination.k8s.io/v1 Leases. */
export const leases = defineResource<Lease>({ group: "coordination.k8s.io", version: "v1", plural: "leases", namespaced: true, kind: "Lease" });
/** networking.k8s.io/v1 Ingresses. */
export const ingresses = defineResource<Ingress>({ group: "networking.k8s.io", version: "v1", plural: "ingresses", namespaced: true, kind: "Ingress" });
/** apiextensions.k8s.io/v1 CustomResourceDefinitions (cluster-scoped). */
export const customResourceDefinitions = defineResource<GenericObject>({
  group: "apiextensions.k8s.io",
  version: "v1",
  plural: "customresourcedefinitions",
  namespaced: false,
  kind: "CustomResourceDefinition",
});
/** apps/v1 Deployments. */
export const deployments = defineResource<GenericObject>({ group: "apps", version: "v1", plural: "deployments", namespaced: true, kind: "Deployment" });
/** apps/v1 StatefulSets. */
export const statefulSets = defineResource<GenericObject>({ group: "apps", version: "v1", plural: "statefulsets", namespaced: true, kind: "StatefulSet" });
/** rbac.authorization.k8s.io/v1 Roles. */
export const roles = defineResource<Role>({ group: "rbac.authorization.k8s.io", version: "v1", plural: "roles", namespaced: true, kind: "Role" });
/** rbac.authorization.k8s.io/v1 RoleBindings. */
export const roleBindings = defineResource<RoleBinding>({
  group: "rbac.authorization.k8s.io",
  version: "v1",
  plural: "rolebindings",
  namespaced: true,
  kind: "RoleBinding",
});
/** rbac.authorization.k8s.io/v1 ClusterRoles (cluster-scoped). */
export const clusterRoles = defineResource<Role>({
  group: "rbac.authorization.k8s.io",
  version: "v1",
  plural: "clusterroles",
  namespaced: false,
  kind: "ClusterRole",
});
/** rbac.authorization.k8s.io/v1 ClusterRoleBindings (cluster-scoped). */
export const clusterRoleBindings = defineResource<RoleBinding>({
  group: "rbac.authorization.k8s.io",
  version: "v1",
  plural: "clusterrolebindings",
  namespaced: false,
  kind: "ClusterRoleBinding",
});
