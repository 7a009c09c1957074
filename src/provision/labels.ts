/**
 * Names and labels of provisioned objects. Labels follow the tinysystems-operator chart's common
 * set (provision.md §5.1 "L"; runtime-spec §12) with `managed-by: tinyhost` instead of Helm and no
 * `helm.sh/chart`; the running module and `tiny` find objects by these, so keys and values must
 * stay byte-compatible (provision.md §8).
 */
import { version as tinyhostVersion } from "../core/version.ts";

/** `app.kubernetes.io/name` of every module-release object: the chart name. */
export const OPERATOR_CHART_NAME = "tinysystems-operator";
/** `app.kubernetes.io/managed-by` of every object this provisioner applies. */
export const MANAGED_BY = "tinyhost";
/** Server-side-apply field manager of every write. */
export const FIELD_MANAGER = "tinyhost";
/**
 * `app.kubernetes.io/version` of module-release objects: the harness version (the chart uses its
 * appVersion; ours is the tinyhost version), never the module version — so a module upgrade
 * changes only the Deployment.
 */
export const HARNESS_VERSION: string = tinyhostVersion;

/** Namespace label the operator's pre-install check requires (runtime-spec §9 `pre-install`). */
export const MANAGED_NAMESPACE_LABEL = "tinysystems.io/managed";
/** Ingress annotation ExposePort reads to build `<name>-<suffix>` hostnames (provision.md §8). */
export const INGRESS_SUFFIX_ANNOTATION = "tinysystems.io/ingress-hostname-suffix";
/** Deployment annotation: the image applied (the publisher guard compares its repository). */
export const MODULE_IMAGE_ANNOTATION = "tinyhost.io/module-image";
/** Deployment annotation: the module version applied. */
export const MODULE_VERSION_ANNOTATION = "tinyhost.io/module-version";

/** The common label set L of one release, without a component. */
export function commonLabels(release: string): Record<string, string> {
  return {
    "app.kubernetes.io/name": OPERATOR_CHART_NAME,
    "app.kubernetes.io/instance": release,
    "app.kubernetes.io/version": HARNESS_VERSION,
    "app.kubernetes.io/managed-by": MANAGED_BY,
  };
}

/** Selector labels Sel: name + instance (provision.md §5.1). */
export function selectorLabels(release: string): Record<string, string> {
  return { "app.kubernetes.io/name": OPERATOR_CHART_NAME, "app.kubernetes.io/instance": release };
}

/** Labels of the controller-manager pods and the Deployment selector: `control-plane` + Sel. */
export function podLabels(release: string): Record<string, string> {
  return { "control-plane": "controller-manager", ...selectorLabels(release) };
}

/** L plus `component`, `created-by: operator`, `part-of: operator` (SA, RBAC, Deployment). */
export function operatorLabels(release: string, component: string): Record<string, string> {
  return {
    ...commonLabels(release),
    "app.kubernetes.io/component": component,
    "app.kubernetes.io/created-by": "operator",
    "app.kubernetes.io/part-of": "operator",
  };
}

/** Labels of a shared add-on (broker, collector): name = instance = its fixed release name. */
export function addonLabels(name: string, version: string, component: string): Record<string, string> {
  return {
    "app.kubernetes.io/name": name,
    "app.kubernetes.io/instance": name,
    "app.kubernetes.io/version": version,
    "app.kubernetes.io/component": component,
    "app.kubernetes.io/managed-by": MANAGED_BY,
  };
}

/** Object names of one module release R in namespace N (provision.md §5.1 table). */
export interface ReleaseNames {
  serviceAccount: string;
  /** Role (namespaced; the chart's is the ClusterRole `<R-N>-manager-role`). */
  managerRole: string;
  managerRoleBinding: string;
  leaderElectionRole: string;
  leaderElectionRoleBinding: string;
  extraRole: string;
  extraRoleBinding: string;
  service: string;
  ingress: string;
  deployment: string;
  /** ClusterRole (and its binding, same name) of the rules components declare cluster-wide (`requirements.rbac.extraRules`): `<R-N>-extra`. */
  extraClusterRole: string;
  /** ClusterRole earlier tinyhost versions applied (`<R-N>-manager-role`); provision removes it. */
  legacyClusterRole: string;
  /** Its ClusterRoleBinding (`<R-N>-manager-rolebinding`). */
  legacyClusterRoleBinding: string;
}

/**
 * The chart's object names: `R-controller-manager` (SA, Deployment), `R-manager-role` /
 * `-rolebinding` (namespaced here), `R-leader-election-role` / `-rolebinding`, `R-extra`,
 * `R-manager-service`, `R-manager-ingress`; `<R-N>-extra` for declared cluster-wide rules; and the
 * cluster-scoped names of before (`clusterScopedName`).
 * @param release - R. @param scoped - `clusterScopedName(R, N)`.
 */
export function releaseNames(release: string, scoped: string): ReleaseNames {
  return {
    serviceAccount: `${release}-controller-manager`,
    managerRole: `${release}-manager-role`,
    managerRoleBinding: `${release}-manager-rolebinding`,
    leaderElectionRole: `${release}-leader-election-role`,
    leaderElectionRoleBinding: `${release}-leader-election-rolebinding`,
    extraRole: `${release}-extra`,
    extraRoleBinding: `${release}-extra`,
    service: `${release}-manager-service`,
    ingress: `${release}-manager-ingress`,
    deployment: `${release}-controller-manager`,
    extraClusterRole: `${scoped}-extra`,
    legacyClusterRole: `${scoped}-manager-role`,
    legacyClusterRoleBinding: `${scoped}-manager-rolebinding`,
  };
}
