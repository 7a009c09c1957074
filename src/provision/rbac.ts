/**
 * The least-privilege RBAC rules a tinyhost module needs, built once and used by both
 * `tinyhost rbac` and `tinyhost provision`. Sources of each rule: what the runtime calls
 * (src/k8s/controllers, src/operator, src/k8s/resources) checked against the chart
 * (runtime-spec §12 RBAC, provision.md §5.1, the http-module overlay in provision.md §3.3).
 */
import type { PolicyRule } from "../k8s/client/index.ts";

const CRD_GROUP = "operator.tinysystems.io";
const READ = ["get", "list", "watch"];
const STATUS = ["get", "patch", "update"];

/** The three rule sets of a module release. */
export interface ModuleRbacRules {
  /**
   * ClusterRole `<R-N>-manager-role`: TinySystems CRDs and events. Cluster-wide as in the chart,
   * because the CR helpers take a namespace argument.
   */
  cluster: PolicyRule[];
  /** Role `R-leader-election-role`: leases (the `R-lock` Lease) and configmaps, events. */
  leaderElection: PolicyRule[];
  /** Role `R-extra`: what ExposePort/DisclosePort do to the release's pod, Service and Ingress. */
  namespaced: PolicyRule[];
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
}

/**
 * Builds the rules. Without CR helpers, tinynodes get only what the controller and status writer
 * use (get/list/watch/update/patch + status + finalizers); tinymodules add `create` (every pod
 * registers its own TinyModule). Neither grants `delete`: no tinyhost code path deletes them.
 * Leader election: `coordination.k8s.io` leases and configmaps get/list/watch/create/update/patch/delete,
 * events create/patch (the chart's Role without `deletecollection`). ExposePort: pods get; services
 * and ingresses get/list/update (http-module's overlay, provision.md §3.3).
 * @returns fresh arrays (callers may edit them).
 */
export function moduleRbacRules(options: RbacOptions = {}): ModuleRbacRules {
  const nodeVerbs = ["get", "list", "watch", "update", "patch", ...(options.withCrHelpers ? ["create", "delete", "deletecollection"] : [])];
  const cluster: PolicyRule[] = [
    { apiGroups: [""], resources: ["events"], verbs: ["create", "patch"] },
    { apiGroups: [CRD_GROUP], resources: ["tinycomponents"], verbs: [...READ] },
    { apiGroups: [CRD_GROUP], resources: ["tinycomponents/status"], verbs: [...STATUS] },
    { apiGroups: [CRD_GROUP], resources: ["tinymodules"], verbs: ["create", "get", "list", "watch", "update", "patch"] },
    { apiGroups: [CRD_GROUP], resources: ["tinymodules/status"], verbs: [...STATUS] },
    { apiGroups: [CRD_GROUP], resources: ["tinymodules/finalizers"], verbs: ["update"] },
    { apiGroups: [CRD_GROUP], resources: ["tinynodes"], verbs: nodeVerbs },
    { apiGroups: [CRD_GROUP], resources: ["tinynodes/status"], verbs: [...STATUS] },
    { apiGroups: [CRD_GROUP], resources: ["tinynodes/finalizers"], verbs: ["update"] },
  ];
  if (options.withCrHelpers) {
    cluster.push({
      apiGroups: [CRD_GROUP],
      resources: ["tinyflows", "tinyprojects", "tinywidgetpages", "tinyscenarios"],
      verbs: ["get", "list", "watch", "create", "update", "patch", "delete"],
    });
  }
  const leaderElection: PolicyRule[] = [
    { apiGroups: ["coordination.k8s.io"], resources: ["leases"], verbs: ["get", "list", "watch", "create", "update", "patch", "delete"] },
    { apiGroups: [""], resources: ["configmaps"], verbs: ["get", "list", "watch", "create", "update", "patch", "delete"] },
    { apiGroups: [""], resources: ["events"], verbs: ["create", "patch"] },
  ];
  const namespaced: PolicyRule[] = [
    { apiGroups: [""], resources: ["pods"], verbs: ["get"] },
    { apiGroups: [""], resources: ["services"], verbs: ["get", "list", "update"] },
    { apiGroups: ["networking.k8s.io"], resources: ["ingresses"], verbs: ["get", "list", "update"] },
  ];
  return { cluster, leaderElection, namespaced };
}
