/**
 * Who this process is to the apiserver: a SelfSubjectReview (authentication.k8s.io/v1, GA in
 * Kubernetes 1.28; what `kubectl auth whoami` sends). The chart runs its pre-delete Job without
 * `--name` but as ServiceAccount `<fullname>-controller-manager`, and `<fullname>` is the chart's
 * default module name, so the account names the module (templates/jobs.yaml, deployment.yaml).
 */
import type { KubeClient } from "../../k8s/client/index.ts";

/** Suffix of the manager ServiceAccount the chart names `<fullname>-controller-manager`. */
export const MANAGER_ACCOUNT_SUFFIX = "-controller-manager";

/** A service-account identity. */
export interface ServiceAccountIdentity {
  namespace: string;
  name: string;
}

/**
 * Parses `system:serviceaccount:<namespace>:<name>` (Kubernetes docs "Service account tokens").
 * @returns the parts, or undefined for any other user name.
 */
export function parseServiceAccountUser(username: string): ServiceAccountIdentity | undefined {
  const m = /^system:serviceaccount:([^:]+):([^:]+)$/.exec(username);
  return m ? { namespace: m[1]!, name: m[2]! } : undefined;
}

/**
 * The module name the chart gives a release whose manager account is `account`: the account
 * name without {@link MANAGER_ACCOUNT_SUFFIX}. Undefined when the account is not a chart manager.
 */
export function moduleNameFromAccount(account: string): string | undefined {
  if (!account.endsWith(MANAGER_ACCOUNT_SUFFIX) || account.length === MANAGER_ACCOUNT_SUFFIX.length) return undefined;
  return account.slice(0, -MANAGER_ACCOUNT_SUFFIX.length);
}

/**
 * The user name of this client's credentials.
 * @throws KubeApiError (e.g. 404 on an apiserver older than 1.28), KubeConnectionError.
 */
export async function whoAmI(kube: KubeClient): Promise<string> {
  const review = await kube.request<{ status?: { userInfo?: { username?: string } } }>({
    method: "POST",
    path: "/apis/authentication.k8s.io/v1/selfsubjectreviews",
    body: { apiVersion: "authentication.k8s.io/v1", kind: "SelfSubjectReview" },
  });
  return review?.status?.userInfo?.username ?? "";
}
