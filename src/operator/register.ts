/**
 * Registers the running module as a TinyModule at start-up (runtime-spec §5.2, §7.3): every replica
 * calls it; an existing object is fine. Unlike Go, which never touches an existing object (§16
 * item 21), an existing TinyModule whose `spec.image` names another version is patched to
 * `"<name>:<version>"`, so an upgrade shows (docs/compatibility.md).
 */
import { sanitizeResourceName } from "../k8s/api/index.ts";
import type { KubeClient } from "../k8s/client/index.ts";
import { tinyModules } from "../k8s/controllers/index.ts";
import type { ModuleIdentity } from "../k8s/resources/index.ts";

/** What {@link ensureTinyModule} did. */
export type ModuleRegistration = "created" | "unchanged" | "image-updated";

/**
 * Creates TinyModule `<sanitized name>` or brings its `spec.image` up to date.
 * @param create - the resource manager's `createModule` (true when it created the object).
 * @throws KubeApiError from the API (e.g. Forbidden), InvalidArgumentError for an empty name/version.
 */
export async function ensureTinyModule(
  kube: KubeClient,
  namespace: string,
  module: ModuleIdentity,
  create: (module: ModuleIdentity) => Promise<boolean>,
): Promise<ModuleRegistration> {
  if (await create(module)) return "created";
  const name = sanitizeResourceName(module.name);
  const image = `${module.name}:${module.version}`;
  const current = await kube.get(tinyModules, name, namespace);
  if (current.spec?.image === image) return "unchanged";
  await kube.mergePatch(tinyModules, name, { spec: { image } }, { namespace });
  return "image-updated";
}
