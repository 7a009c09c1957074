/**
 * The runtime namespace, labelled `tinysystems.io/managed=true` — what `tiny`'s EnsureNamespace
 * does, and what the operator's pre-install check requires (provision.md §2 step 4, runtime-spec §9).
 * Applied with force: tinyhost owns only that label, so other labels and annotations stay.
 */
import { namespaces } from "../k8s/client/index.ts";
import { MANAGED_NAMESPACE_LABEL } from "./labels.ts";
import type { Manifest } from "./manifest.ts";

/** The Namespace manifest for `namespace`. */
export function namespaceManifest(namespace: string): Manifest {
  return {
    resource: namespaces,
    policy: "apply-force",
    object: { apiVersion: "v1", kind: "Namespace", metadata: { name: namespace, labels: { [MANAGED_NAMESPACE_LABEL]: "true" } } },
  };
}
