/**
 * The least-privilege RBAC rules a tinyhost module needs, built once and used by `tinyhost rbac`,
 * `tinyhost provision` and `tinyhost tools rbac-values`. Each rule comes from a call the runtime
 * makes (src/operator, src/k8s/controllers, src/k8s/runtime/leader, src/k8s/resources), checked
 * against the chart (runtime-spec §12 RBAC, provision.md §5.1, §3.3):
 *
 * - everything the module touches lives in its own namespace (the watches, the Lease, its
 *   TinyModule, the release Service and Ingress), so every rule is a namespaced Role — no
 *   ClusterRole at all;
 * - writes to one named object are pinned with `resourceNames` (the module's TinyModule, the
 *   `<module>-lock` Lease, the release Service and Ingress). `create`, `list` and `watch` cannot
 *   be pinned (the authorizer sees no name for them — Kubernetes docs "Using RBAC Authorization ›
 *   Referring to resources"), so they stay namespace-wide: the TinyModule watch (other modules'
 *   addresses), the TinyModule `create` at start-up, the Lease `create`, and the label-selector
 *   `list` that finds the release Service and Ingress (runtime-spec §7.1);
 * - nothing the runtime never calls: no events (tinyhost records none), no configmaps (the Lease
 *   is the lock), no secrets, no delete on TinyModules.
 */
import type { PolicyRule } from "../k8s/client/index.ts";

const CRD_GROUP = "operator.tinysystems.io";
const READ = ["get", "list", "watch"];
const STATUS = ["get", "patch", "update"];

/** Names of the objects a release's rules are pinned to; absent = not pinned (chart overlays). */
export interface PinnedNames {
  /** TinyModule name: the SDK-sanitized module name (runtime-spec §5.2). */
  tinyModule: string;
  /** Lease `<sanitized module>-lock` (runtime-spec §6). */
  lease: string;
  /** Release Service `R-manager-service`. */
  service: string;
  /** Release Ingress `R-manager-ingress`. */
  ingress: string;
}

/** The three rule sets of a module release, each a namespaced Role. */
export interface ModuleRbacRules {
  /** Role `R-manager-role`: TinyNodes, the module's TinyModule (+ the CR-helper kinds when asked). */
  manager: PolicyRule[];
  /** Role `R-leader-election-role`: the `<module>-lock` Lease. */
  leaderElection: PolicyRule[];
  /** Role `R-extra`: what ExposePort/DisclosePort do to the release's pod, Service and Ingress. */
  expose: PolicyRule[];
}

/** Options of {@link moduleRbacRules}. */
export interface RbacOptions {
  /**
   * The module's components use the CR helpers (nodes/flows/projects/pages/scenarios of the
   * resource manager): adds tinyflows, tinyprojects, tinywidgetpages, tinyscenarios and create /
   * delete / deletecollection on tinynodes. The Go chart grants none of the four kinds
   * (runtime-spec §12), so `CreateNode` with a flow label is forbidden there; docs/compatibility.md.
   */
  withCrHelpers?: boolean;
  /** Pin single-object writes to these names (provision); absent = unpinned (chart values overlay). */
  names?: PinnedNames;
}

/** `resourceNames: [name]` when pinned. */
function pinned(names: PinnedNames | undefined, pick: (n: PinnedNames) => string): Pick<PolicyRule, "resourceNames"> {
  return names ? { resourceNames: [pick(names)] } : {};
}

/** The rules of the CR helpers (kinds the chart does not grant). */
export function crHelperRules(): PolicyRule[] {
  return [
    {
      apiGroups: [CRD_GROUP],
      resources: ["tinyflows", "tinyprojects", "tinywidgetpages", "tinyscenarios"],
      verbs: ["get", "list", "watch", "create", "update", "patch", "delete"],
    },
    { apiGroups: [CRD_GROUP], resources: ["tinynodes"], verbs: ["create", "delete", "deletecollection"] },
  ];
}

/**
 * What the chart grants a module with `rbac.enableKubernetesResourceAccess` (its manager ClusterRole,
 * provision.md §5.1): deployments, pods, services and ingresses get/list/patch/update/watch.
 */
export function kubernetesResourceAccessRules(): PolicyRule[] {
  const verbs = ["get", "list", "patch", "update", "watch"];
  return [
    { apiGroups: ["apps"], resources: ["deployments"], verbs: [...verbs] },
    { apiGroups: [""], resources: ["pods", "services"], verbs: [...verbs] },
    { apiGroups: ["networking.k8s.io"], resources: ["ingresses"], verbs: [...verbs] },
  ];
}

/**
 * What ExposePort/DisclosePort call (src/k8s/resources/release.ts, release-updates.ts): `get` of
 * the pod named HOSTNAME (its name is random, so unpinned), a label-selector `list` of Services and
 * Ingresses, then `get` + `update` (and `patch`, for a merge-patch writer) of the two found.
 */
export function exposeRules(names?: PinnedNames): PolicyRule[] {
  return [
    { apiGroups: [""], resources: ["pods"], verbs: ["get"] },
    { apiGroups: [""], resources: ["services"], verbs: ["list"] },
    { apiGroups: [""], resources: ["services"], verbs: ["get", "update", "patch"], ...pinned(names, (n) => n.service) },
    { apiGroups: ["networking.k8s.io"], resources: ["ingresses"], verbs: ["list"] },
    { apiGroups: ["networking.k8s.io"], resources: ["ingresses"], verbs: ["get", "update", "patch"], ...pinned(names, (n) => n.ingress) },
  ];
}

/**
 * Builds the rules. TinyNodes: get/list/watch/update/patch (the controller, finalizers and the
 * status writer touch any node of the module, named by the platform) + status + finalizers.
 * TinyModules: list/watch (every module's address), create (each pod registers its own), and
 * get/update/patch + status + finalizers of the module's own object only. TinyComponents: read,
 * status and finalizers (the script runtime's controller). Lease: create, and
 * get/update of `<module>-lock` only.
 * @returns fresh arrays (callers may edit them).
 */
export function moduleRbacRules(options: RbacOptions = {}): ModuleRbacRules {
  const names = options.names;
  const own = pinned(names, (n) => n.tinyModule);
  const manager: PolicyRule[] = [
    { apiGroups: [CRD_GROUP], resources: ["tinynodes"], verbs: [...READ, "update", "patch"] },
    { apiGroups: [CRD_GROUP], resources: ["tinynodes/status"], verbs: [...STATUS] },
    { apiGroups: [CRD_GROUP], resources: ["tinynodes/finalizers"], verbs: ["update"] },
    { apiGroups: [CRD_GROUP], resources: ["tinymodules"], verbs: ["list", "watch", "create"] },
    { apiGroups: [CRD_GROUP], resources: ["tinymodules"], verbs: ["get", "update", "patch"], ...own },
    { apiGroups: [CRD_GROUP], resources: ["tinymodules/status"], verbs: [...STATUS], ...own },
    { apiGroups: [CRD_GROUP], resources: ["tinymodules/finalizers"], verbs: ["update"], ...own },
    // TinyComponents: the controller reads them and the leader writes their status (operator chart 0.2.13).
    { apiGroups: [CRD_GROUP], resources: ["tinycomponents"], verbs: [...READ] },
    { apiGroups: [CRD_GROUP], resources: ["tinycomponents/status"], verbs: [...STATUS] },
    { apiGroups: [CRD_GROUP], resources: ["tinycomponents/finalizers"], verbs: ["update"] },
    ...(options.withCrHelpers ? crHelperRules() : []),
  ];
  const leaderElection: PolicyRule[] = [
    { apiGroups: ["coordination.k8s.io"], resources: ["leases"], verbs: ["create"] },
    { apiGroups: ["coordination.k8s.io"], resources: ["leases"], verbs: ["get", "update"], ...pinned(names, (n) => n.lease) },
  ];
  return { manager, leaderElection, expose: exposeRules(names) };
}
