/**
 * `tinyhost uninstall`: reverses `tinyhost provision` for one release. Order: the pre-delete step
 * first (TinyModule `<module>` — as the chart's pre-delete hook, while the module still runs), then
 * the release objects in reverse apply order (Deployment → Ingress → Service → RBAC →
 * ServiceAccount, then the ClusterRole of declared cluster-wide rules and the cluster-scoped role of
 * earlier versions); with `addons`, the collector and
 * the broker in reverse order too; the Namespace only when asked.
 *
 * The module's pods keep running for up to their grace period after the Deployment is deleted and,
 * on SIGTERM, release their leader-election Lease through their own ServiceAccount and Role: so the
 * RBAC and the ServiceAccount go only once those pods are gone (or after {@link PODS_GONE_TIMEOUT_MS}),
 * else the release is refused and the Lease keeps naming a dead holder.
 *
 * Never deleted: the CRDs (they hold every module's flows in the cluster) and, unless the namespace
 * goes, the broker's auth Secret and its volume claims (the token other modules use; durable runs).
 * An object not labelled `app.kubernetes.io/managed-by=tinyhost` (say, a Helm release of the same
 * name) is left and reported `kept`.
 */
import { sleep } from "../core/timer.ts";
import { namespaces, pods, type KubeClient, type KubeObject, type ResourceDescriptor } from "../k8s/client/index.ts";
import type { AppliedObject } from "./applied.ts";
import { deleteManaged, scalingTargets, target, type DeletionTarget } from "./deletion.ts";
import { clusterRoleBindings, clusterRoles } from "../k8s/client/index.ts";
import { deleteTinyModule } from "./hooks/module-removal.ts";
import { podLabels } from "./labels.ts";
import { natsManifests } from "./nats.ts";
import type { ProvisionOptions } from "./options.ts";
import { otelManifests } from "./otel.ts";
import { MODULE_GRACE_SECONDS, namesFor, releaseManifests } from "./release.ts";

/** Longest wait for the module's pods to exit after their Deployment is deleted: the grace period and a margin. */
export const PODS_GONE_TIMEOUT_MS = (MODULE_GRACE_SECONDS + 20) * 1000;

/** What to remove besides the release. */
export interface UninstallOptions {
  /** Also the OTEL collector and the NATS broker (shared by every module of the namespace). */
  addons?: boolean;
  /** Also the Namespace, and with it everything left inside. */
  deleteNamespace?: boolean;
  /** Called after each object (the CLI prints a line). */
  onObject?: (o: AppliedObject) => void;
  /** Longest wait for the module's pods to exit before the RBAC goes (default {@link PODS_GONE_TIMEOUT_MS}). */
  podsGoneTimeoutMs?: number;
  /** Poll interval of that wait (default 250 ms). */
  podsGonePollMs?: number;
}

/**
 * The objects uninstall deletes after the TinyModule, in order (see the file header).
 * @param o - the release, as provision was given it.
 */
export function uninstallTargets(o: ProvisionOptions, options: Pick<UninstallOptions, "addons" | "deleteNamespace"> = {}): DeletionTarget[] {
  const names = namesFor(o);
  // The declared cluster-wide role goes after the ServiceAccount, whether or not these options name
  // components (the uninstall command loads none): absent is reported as such.
  // KEDA's objects first (they would scale the Deployment back up).
  const out = [
    ...scalingTargets(o),
    ...releaseManifests(o, { nats: o.nats })
      .map(target)
      .filter((t) => t.kind !== "ClusterRole" && t.kind !== "ClusterRoleBinding")
      .reverse(),
  ];
  out.push(
    { resource: clusterRoleBindings as ResourceDescriptor<KubeObject>, kind: "ClusterRoleBinding", name: names.extraClusterRole },
    { resource: clusterRoles as ResourceDescriptor<KubeObject>, kind: "ClusterRole", name: names.extraClusterRole },
    { resource: clusterRoleBindings as ResourceDescriptor<KubeObject>, kind: "ClusterRoleBinding", name: names.legacyClusterRoleBinding },
    { resource: clusterRoles as ResourceDescriptor<KubeObject>, kind: "ClusterRole", name: names.legacyClusterRole },
  );
  if (options.addons) {
    out.push(...otelManifests(o.namespace).map(target).reverse(), ...natsManifests(o.namespace).map(target).reverse());
  }
  if (options.deleteNamespace) out.push({ resource: namespaces as ResourceDescriptor<KubeObject>, kind: "Namespace", name: o.namespace });
  return out;
}

/**
 * Uninstalls the release (see the file header).
 * @returns every object touched, in order, the TinyModule first.
 * @throws KubeApiError / KubeConnectionError from the TinyModule deletion or any object (what was
 *   deleted before stays deleted; re-run to finish).
 */
export async function uninstall(kube: KubeClient, o: ProvisionOptions, options: UninstallOptions = {}): Promise<AppliedObject[]> {
  const out: AppliedObject[] = [];
  const record = (r: AppliedObject) => {
    out.push(r);
    options.onObject?.(r);
  };
  const removal = await deleteTinyModule(kube, o.release, o.namespace);
  record({ kind: "TinyModule", name: removal.name, namespace: o.namespace, result: removal.result, resourceVersion: "" });
  for (const t of uninstallTargets(o, options)) {
    const r = await deleteManaged(kube, t);
    record(r);
    if (t.kind === "Deployment" && r.result === "deleted" && t.name === namesFor(o).deployment) {
      await modulePodsGone(kube, o, options.podsGoneTimeoutMs ?? PODS_GONE_TIMEOUT_MS, options.podsGonePollMs ?? 250);
    }
  }
  return out;
}

/**
 * Waits until no pod of the release's Deployment is left in the namespace, or `timeoutMs` passed
 * (then uninstall goes on: a stuck pod must not stop it).
 * @throws KubeApiError / KubeConnectionError from the pod list.
 */
async function modulePodsGone(kube: KubeClient, o: ProvisionOptions, timeoutMs: number, pollMs: number): Promise<void> {
  const labelSelector = Object.entries(podLabels(o.release))
    .map(([k, v]) => `${k}=${v}`)
    .join(",");
  const deadline = Date.now() + timeoutMs;
  while ((await kube.list(pods, { namespace: o.namespace, labelSelector })).items.length > 0 && Date.now() < deadline) {
    await sleep(pollMs);
  }
}
