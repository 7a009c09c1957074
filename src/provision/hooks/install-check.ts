/**
 * The chart's pre-install check (`/manager pre-install`, runtime-spec §9; Go cli/pre-install.go):
 * before any release object lands, refuse a reserved namespace and one not labelled
 * `tinysystems.io/managed=true`. The texts are the Go SDK's, word for word, because Helm shows
 * them to whoever runs `helm install` (test/integration/chart-install.test.ts compares them with the
 * SDK's own binary).
 */
import { isNotFound, namespaces, type KubeClient, KubeApiError } from "../../k8s/client/index.ts";
import { MANAGED_NAMESPACE_LABEL } from "../labels.ts";
import { RESERVED_NAMESPACES } from "../options.ts";
import { TinyError, messageOf } from "../../core/errors.ts";

/** Why the check refused. Each is one `code`; `message` is the Go SDK's text. */
export type InstallCheckCode =
  | "NAMESPACE_EMPTY"
  | "NAMESPACE_RESERVED"
  | "KUBECONFIG"
  | "NAMESPACE_NOT_FOUND"
  | "NAMESPACE_FORBIDDEN"
  | "NAMESPACE_READ"
  | "NAMESPACE_NOT_MANAGED";

/** The install namespace is not usable for a module. `message` is what the hook prints on stderr. */
export class InstallCheckError extends TinyError<InstallCheckCode> {
  /** The namespace checked. */
  readonly namespace: string;

  /** @param code - why. @param namespace - the namespace. @param message - the Go SDK's text. */
  constructor(code: InstallCheckCode, namespace: string, message: string, options?: { cause?: unknown }) {
    super(code, message, options);
    this.namespace = namespace;
  }
}

/**
 * The refusals that need no cluster: an empty namespace (the Job spec did not inject
 * `RELEASE_NAMESPACE`) and the reserved ones (`default`, `kube-system`, `kube-public`, `kube-node-lease`).
 * @throws InstallCheckError `NAMESPACE_EMPTY` / `NAMESPACE_RESERVED`.
 */
export function checkNamespaceName(namespace: string): void {
  if (namespace === "") {
    throw new InstallCheckError("NAMESPACE_EMPTY", namespace, "pre-install: RELEASE_NAMESPACE is empty — chart Job spec must inject it via the downward API");
  }
  if (RESERVED_NAMESPACES.includes(namespace)) {
    throw new InstallCheckError(
      "NAMESPACE_RESERVED",
      namespace,
      `pre-install: refusing to install into reserved namespace ${JSON.stringify(namespace)}. Create a dedicated namespace:\n` +
        "  kubectl create namespace tinysystems\n" +
        `  kubectl label namespace tinysystems ${MANAGED_NAMESPACE_LABEL}=true`,
    );
  }
}

/** The text a kubeconfig failure is reported with (Go: "failed to load in-cluster config: …"). */
export function kubeconfigFailure(namespace: string, cause: unknown): InstallCheckError {
  return new InstallCheckError("KUBECONFIG", namespace, `pre-install: failed to load in-cluster config: ${errorText(cause)}`, { cause });
}

/**
 * The whole check: {@link checkNamespaceName}, then a `get` of the Namespace (the chart's hook
 * ServiceAccount may read exactly that one, `resourceNames: [N]`) and its label.
 * @throws InstallCheckError naming the namespace: not found, forbidden (the hook's RBAC is
 *   missing), another read failure, or the label is not `"true"`.
 */
export async function checkInstallNamespace(kube: KubeClient, namespace: string): Promise<void> {
  checkNamespaceName(namespace);
  let labels: Record<string, string> | undefined;
  try {
    labels = (await kube.get(namespaces, namespace)).metadata.labels;
  } catch (e) {
    if (isNotFound(e)) {
      throw new InstallCheckError(
        "NAMESPACE_NOT_FOUND",
        namespace,
        `pre-install: namespace ${JSON.stringify(namespace)} not found — should have been created by helm --create-namespace`,
        { cause: e },
      );
    }
    if (e instanceof KubeApiError && e.reason === "Forbidden") {
      throw new InstallCheckError(
        "NAMESPACE_FORBIDDEN",
        namespace,
        `pre-install: pod ServiceAccount lacks 'get' on namespaces — chart must grant a ClusterRole with resourceNames=[${JSON.stringify(namespace)}]. Underlying error: ${errorText(e)}`,
        { cause: e },
      );
    }
    throw new InstallCheckError("NAMESPACE_READ", namespace, `pre-install: get namespace ${namespace}: ${errorText(e)}`, { cause: e });
  }
  if (labels?.[MANAGED_NAMESPACE_LABEL] !== "true") {
    throw new InstallCheckError(
      "NAMESPACE_NOT_MANAGED",
      namespace,
      `pre-install: namespace ${JSON.stringify(namespace)} is not labeled for tinysystems. Either label this namespace to dedicate it:\n` +
        `  kubectl label namespace ${namespace} ${MANAGED_NAMESPACE_LABEL}=true\n` +
        "or pick a different namespace already labeled. This prevents accidentally installing modules into namespaces shared with unrelated workloads.",
    );
  }
}

/** An API error as client-go prints it (the server's message); anything else by its message. */
function errorText(e: unknown): string {
  if (e instanceof KubeApiError && e.serverMessage) return e.serverMessage;
  return messageOf(e);
}
