/**
 * `tinyhost tools rbac-values`: the tinysystems-operator chart's values overlay (the `rbac:` block)
 * that a tinyhost module's components need on top of the chart's own RBAC — what a module
 * repository index puts in the module's `values.yaml` (Go cli/rbac-values.go; provision.md §3.3
 * "Module overlays").
 *
 * The chart's base rules already cover the runtime (TinyNodes, TinyModules, the Lease). On top:
 * - a component with an `onClient` hook receives the resource manager, whose ExposePort/DisclosePort
 *   read the pod and edit the release Service and Ingress: rbac.ts `exposeRules` as
 *   `rbac.extraNamespacedRules` (the chart's Role `R-extra` in the release namespace; the names are
 *   only known at install time, so they are not pinned);
 * - the CR helpers (asked for explicitly: which helpers a component calls is not visible from its
 *   definition) need tinyflows, tinyprojects, tinywidgetpages and tinyscenarios, which the chart
 *   does not grant (tinynodes create/delete it does).
 * - what components declare in `requirements` (src/core/requirements.ts; Go `registry.SetRequirements`):
 *   `enableKubernetesResourceAccess`, `extraRules` (a ClusterRole) and `extraNamespacedRules` as Go
 *   emits them, and the Secrets named in `secrets.names` as one namespaced `get` rule pinned to
 *   those names (Go's chart grants `secrets.enabled` get/list/watch on every Secret of the namespace;
 *   a placeholder needs only `get` of the Secrets it names).
 * Keys in Go's order. Nothing is printed when nothing is needed (Go prints nothing then, so the index has no values file).
 */
import type { PolicyRule } from "../k8s/client/index.ts";
import { crHelperRules, exposeRules } from "./rbac.ts";
import type { RequiredRule, Requirements } from "../core/requirements.ts";

/** What the overlay is derived from, per component. */
export interface ComponentNeeds {
  /** Component name, for messages. */
  name: string;
  /** The component declares `onClient` (it may call ExposePort/DisclosePort). */
  usesClient: boolean;
  /** What the component declared (defineComponent `requirements`). */
  requirements?: Readonly<Requirements>;
}

/** The overlay: the chart's `.Values.rbac` keys (templates/manager-rbac.yaml). */
export interface ChartRbacValues {
  rbac: { enableKubernetesResourceAccess?: boolean; extraRules?: PolicyRule[]; extraNamespacedRules?: PolicyRule[] };
}

/**
 * Builds the overlay.
 * @param components - the module's components. @param options.withCrHelpers - add the CR-helper kinds.
 * @returns the overlay, or undefined when the chart's rules already suffice.
 */
export function chartRbacValues(components: readonly ComponentNeeds[], options: { withCrHelpers?: boolean } = {}): ChartRbacValues | undefined {
  const namespaced: PolicyRule[] = [];
  if (components.some((c) => c.usesClient)) namespaced.push(...exposeRules());
  if (options.withCrHelpers) namespaced.push(...crHelperRules().filter((r) => !r.resources?.includes("tinynodes")));
  const declared = declaredRbac(components);
  namespaced.push(...declared.namespaced);
  const cluster = declared.cluster;
  const base = declared.resourceAccess;
  if (!base && cluster.length === 0 && namespaced.length === 0) return undefined;
  return {
    rbac: {
      ...(base ? { enableKubernetesResourceAccess: true } : {}),
      ...(cluster.length > 0 ? { extraRules: cluster } : {}),
      ...(namespaced.length > 0 ? { extraNamespacedRules: unique(namespaced) } : {}),
    },
  };
}

/** What the components declare in `requirements`, merged: the rules both the chart overlay and `provision` grant. */
export interface DeclaredRbac {
  /** Some component asks for `enableKubernetesResourceAccess` (the chart's read/write of pods, services, deployments, ingresses). */
  resourceAccess: boolean;
  /** `extraRules` of every component, without repeats: cluster-wide (a ClusterRole). */
  cluster: PolicyRule[];
  /** `extraNamespacedRules` of every component, then the Secret `get` rule ({@link secretReadRule}), without repeats. */
  namespaced: PolicyRule[];
}

/** Merges the components' declared requirements into the rules they need (fresh arrays). */
export function declaredRbac(components: readonly Pick<ComponentNeeds, "requirements">[]): DeclaredRbac {
  const declared = components.map((c) => c.requirements?.rbac).filter((r) => r !== undefined);
  const namespaced = declared.flatMap((r) => r.extraNamespacedRules ?? []).map(copyRule);
  const secretRule = secretReadRule(components);
  if (secretRule) namespaced.push(secretRule);
  return {
    resourceAccess: declared.some((r) => r.enableKubernetesResourceAccess === true),
    cluster: unique(declared.flatMap((r) => r.extraRules ?? []).map(copyRule)),
    namespaced: unique(namespaced),
  };
}

/** `get` on the Secrets the components name in `requirements.secrets.names` (sorted), or undefined when none. */
export function secretReadRule(components: readonly Pick<ComponentNeeds, "requirements">[]): PolicyRule | undefined {
  const names = [...new Set(components.flatMap((c) => c.requirements?.secrets?.names ?? []))].sort();
  return names.length === 0 ? undefined : { apiGroups: [""], resources: ["secrets"], verbs: ["get"], resourceNames: names };
}

function copyRule(r: RequiredRule): PolicyRule {
  return { apiGroups: [...r.apiGroups], resources: [...r.resources], verbs: [...r.verbs], ...(r.resourceNames ? { resourceNames: [...r.resourceNames] } : {}) };
}

/** `rules` without repeats (two components declaring one rule grant it once). */
function unique(rules: PolicyRule[]): PolicyRule[] {
  const seen = new Set<string>();
  return rules.filter((r) => {
    const k = JSON.stringify(r);
    return seen.has(k) ? false : (seen.add(k), true);
  });
}
