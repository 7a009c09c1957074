/**
 * Finds the objects of this module's Helm release the way the Go runtime does (runtime-spec §7.1
 * steps 2–4, §12; provision.md §5.1): the release name is the `app.kubernetes.io/instance` label of
 * the pod named HOSTNAME; the Service and Ingress are found by label, and exactly one must match.
 */
import { ingresses, isNotFound, pods, services, type Ingress, type KubeClient, type Service } from "../client/index.ts";
import { ReleaseNotFoundError, ReleaseObjectLookupError } from "./errors.ts";
import { messageOf } from "../../core/errors.ts";

/** Label holding the Helm release name (chart common labels). */
export const INSTANCE_LABEL = "app.kubernetes.io/instance";
/** Label holding the chart name. */
export const NAME_LABEL = "app.kubernetes.io/name";
/** Label holding the object's role in the chart. */
export const COMPONENT_LABEL = "app.kubernetes.io/component";
/** Chart name of the module harness: the value of {@link NAME_LABEL} the Go runtime selects on. */
export const OPERATOR_CHART_NAME = "tinysystems-operator";
/** Value of {@link COMPONENT_LABEL} on the manager Service. */
export const MANAGER_COMPONENT = "manager";

/** Labels that select the manager Service of a release (runtime-spec §7.1 step 3). */
export function managerServiceLabels(release: string): Record<string, string> {
  return { [INSTANCE_LABEL]: release, [NAME_LABEL]: OPERATOR_CHART_NAME, [COMPONENT_LABEL]: MANAGER_COMPONENT };
}

/** Labels that select the manager Ingress of a release (runtime-spec §7.1 step 4; the chart gives it no component label). */
export function managerIngressLabels(release: string): Record<string, string> {
  return { [INSTANCE_LABEL]: release, [NAME_LABEL]: OPERATOR_CHART_NAME };
}

/** `k=v,k=v` label selector text, in the given key order. */
export function labelSelector(labels: Record<string, string>): string {
  return Object.entries(labels)
    .map(([k, v]) => `${k}=${v}`)
    .join(",");
}

/**
 * Reads the release name from the pod's `app.kubernetes.io/instance` label.
 * @throws ReleaseNotFoundError when the pod cannot be read or has no such label.
 */
export async function findReleaseName(kube: KubeClient, namespace: string, podName: string): Promise<string> {
  let pod;
  try {
    pod = await kube.get(pods, podName, namespace);
  } catch (e) {
    const why = isNotFound(e) ? "the pod does not exist" : messageOf(e);
    throw new ReleaseNotFoundError(namespace, podName, why, e);
  }
  const release = pod.metadata.labels?.[INSTANCE_LABEL];
  if (!release) throw new ReleaseNotFoundError(namespace, podName, `the pod has no ${INSTANCE_LABEL} label`);
  return release;
}

async function findOne<T extends Service | Ingress>(
  kube: KubeClient,
  kind: "Service" | "Ingress",
  namespace: string,
  labels: Record<string, string>,
): Promise<T> {
  const selector = labelSelector(labels);
  const res = kind === "Service" ? services : ingresses;
  const list = await kube.listAll(res, { namespace, labelSelector: selector });
  if (list.items.length !== 1) {
    throw new ReleaseObjectLookupError(kind, namespace, selector, list.items.map((o) => o.metadata.name ?? "").sort());
  }
  return list.items[0] as T;
}

/**
 * The single manager Service of the release.
 * @throws ReleaseObjectLookupError (`SERVICE_NOT_FOUND` / `SERVICE_AMBIGUOUS`) naming the selector
 *   and the matches; KubeApiError when listing fails.
 */
export function findManagerService(kube: KubeClient, namespace: string, release: string): Promise<Service> {
  return findOne<Service>(kube, "Service", namespace, managerServiceLabels(release));
}

/**
 * The single manager Ingress of the release. Go swallows list errors and reports "no ingress";
 * we pass them on.
 * @throws ReleaseObjectLookupError (`INGRESS_NOT_FOUND` / `INGRESS_AMBIGUOUS`); KubeApiError.
 */
export function findManagerIngress(kube: KubeClient, namespace: string, release: string): Promise<Ingress> {
  return findOne<Ingress>(kube, "Ingress", namespace, managerIngressLabels(release));
}
