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
 * Nothing is printed when nothing is needed (Go prints nothing then, so the index has no values file).
 */
import type { PolicyRule } from "../k8s/client/index.ts";
import { crHelperRules, exposeRules } from "./rbac.ts";

/** What the overlay is derived from, per component. */
export interface ComponentNeeds {
  /** Component name, for messages. */
  name: string;
  /** The component declares `onClient` (it may call ExposePort/DisclosePort). */
  usesClient: boolean;
}

/** The overlay: the chart's `.Values.rbac` keys (templates/manager-rbac.yaml). */
export interface ChartRbacValues {
  rbac: { extraNamespacedRules?: PolicyRule[]; extraRules?: PolicyRule[] };
}

/**
 * Builds the overlay.
 * @param components - the module's components. @param options.withCrHelpers - add the CR-helper kinds.
 * @returns the overlay, or undefined when the chart's rules already suffice.
 */
export function chartRbacValues(components: readonly ComponentNeeds[], options: { withCrHelpers?: boolean } = {}): ChartRbacValues | undefined {
  const rules: PolicyRule[] = [];
  if (components.some((c) => c.usesClient)) rules.push(...exposeRules());
  if (options.withCrHelpers) rules.push(...crHelperRules().filter((r) => !r.resources?.includes("tinynodes")));
  return rules.length === 0 ? undefined : { rbac: { extraNamespacedRules: rules } };
}
