/**
 * Registers the running module as a TinyModule at start-up (runtime-spec §5.2, §7.3): every replica
 * calls it; an existing object is fine. Unlike Go, which never touches an existing object (§16
 * item 21), an existing TinyModule whose `spec.image` names another version is patched to
 * `"<name>:<version>"`, so an upgrade shows (docs/compatibility.md).
 *
 * The object also carries the annotation {@link TINYHOST_VERSION_ANNOTATION}: `status.sdkVersion`
 * holds the Go SDK version whose behaviour we implement (as a Go module writes its SDK version,
 * src/cli/version.ts `SDK_VERSION`), so tinyhost's own version goes where a human sees it.
 */
import { sanitizeResourceName } from "../k8s/api/index.ts";
import type { KubeClient } from "../k8s/client/index.ts";
import { tinyModules } from "../k8s/controllers/index.ts";
import type { ModuleIdentity } from "../k8s/resources/index.ts";

/** Annotation on the own TinyModule with the tinyhost version that runs it (e.g. `0.1.0`). Ours; Go writes none. */
export const TINYHOST_VERSION_ANNOTATION = "tinyhost.io/version";

/** What {@link ensureTinyModule} did: created it, found it up to date, or patched `spec.image` and/or the annotation. */
export type ModuleRegistration = "created" | "unchanged" | "updated";

/**
 * Creates TinyModule `<sanitized name>` (image and {@link TINYHOST_VERSION_ANNOTATION} in the one
 * create request: a first start costs one round trip, issue 19) or, when it exists, brings its
 * `spec.image` and the annotation up to date (one merge patch when either differs).
 * @param create - the resource manager's `createModule` (true when it created the object).
 * @param runtimeVersion - the tinyhost version to annotate.
 * @throws KubeApiError from the API (e.g. Forbidden), InvalidArgumentError for an empty name/version.
 */
export async function ensureTinyModule(
  kube: KubeClient,
  namespace: string,
  module: ModuleIdentity,
  create: (module: ModuleIdentity, annotations?: Record<string, string>) => Promise<boolean>,
  runtimeVersion: string,
): Promise<ModuleRegistration> {
  if (await create(module, { [TINYHOST_VERSION_ANNOTATION]: runtimeVersion })) return "created";
  const name = sanitizeResourceName(module.name);
  const image = `${module.name}:${module.version}`;
  const current = await kube.get(tinyModules, name, namespace);
  const imageStale = current.spec?.image !== image;
  const annotationStale = current.metadata.annotations?.[TINYHOST_VERSION_ANNOTATION] !== runtimeVersion;
  if (!imageStale && !annotationStale) return "unchanged";
  const patch: { metadata?: object; spec?: object } = {};
  if (annotationStale) patch.metadata = { annotations: { [TINYHOST_VERSION_ANNOTATION]: runtimeVersion } };
  if (imageStale) patch.spec = { image };
  await kube.mergePatch(tinyModules, name, patch, { namespace });
  return "updated";
}
