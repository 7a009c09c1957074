/**
 * The chart's pre-delete step (`/manager pre-delete`, runtime-spec §9; Go cli/pre-delete.go):
 * delete the module's TinyModule before Helm removes the Deployment, so the platform stops
 * listing a module that is gone. Also the first step of `tinyhost uninstall`.
 */
import { sanitizeResourceName } from "../../core/api/index.ts";
import { isNotFound, type KubeClient } from "../../k8s/client/index.ts";
import { tinyModules } from "../../k8s/controllers/index.ts";

/** Longest time the deletion may take, ms (Go: a 30 s context). */
export const PRE_DELETE_TIMEOUT_MS = 30_000;

/** What {@link deleteTinyModule} found. */
export interface ModuleRemoval {
  /** TinyModule name: the SDK-sanitized module name (runtime-spec §5.2). */
  name: string;
  namespace: string;
  /** `deleted`, or `absent` when there was none (not an error, as in Go). */
  result: "deleted" | "absent";
}

/**
 * Deletes TinyModule `sanitize(module)` in `namespace`; a missing one is fine.
 * @param module - the unsanitized module name (`--name`).
 * @throws KubeApiError other than NotFound (e.g. Forbidden), KubeConnectionError — including the
 *   abort after {@link PRE_DELETE_TIMEOUT_MS}.
 */
export async function deleteTinyModule(kube: KubeClient, module: string, namespace: string, timeoutMs = PRE_DELETE_TIMEOUT_MS): Promise<ModuleRemoval> {
  const name = sanitizeResourceName(module);
  try {
    await kube.delete(tinyModules, name, { namespace, signal: AbortSignal.timeout(timeoutMs) });
    return { name, namespace, result: "deleted" };
  } catch (e) {
    if (isNotFound(e)) return { name, namespace, result: "absent" };
    throw e;
  }
}
