/**
 * Registers the running module as a TinyModule at start-up (runtime-spec §5.2, §7.3): every replica
 * calls it; an existing object is fine. Unlike Go, which never touches an existing object (§16
 * item 21), an existing TinyModule whose `spec.image` names another version is patched to
 * `"<name>:<version>"`, so an upgrade shows (docs/compatibility.md).
 *
 * The object also carries the annotation {@link TINYHOST_VERSION_ANNOTATION}: `status.sdkVersion`
 * holds the Go SDK version whose behaviour we implement (as a Go module writes its SDK version,
 * src/core/version.ts `SDK_VERSION`), so tinyhost's own version goes where a human sees it.
 *
 * At start-up the request is sent as soon as the kube client exists and the manager waits for it
 * in group `controllers` ({@link ownModuleRegistration}).
 */
import { sanitizeResourceName } from "../core/api/index.ts";
import type { KubeClient } from "../k8s/client/index.ts";
import { tinyModules } from "../k8s/controllers/types.ts";
import { bindKinds } from "../k8s/resources/kinds.ts";
import { createModule, type ModuleIdentity } from "../k8s/resources/modules.ts";
import { task, type Runnable } from "../manager/index.ts";
import type { Logger } from "../telemetry/log.ts";

/** Annotation on the own TinyModule with the tinyhost version that runs it (e.g. `0.1.0`). Ours; Go writes none. */
export const TINYHOST_VERSION_ANNOTATION = "tinyhost.io/version";

/** What {@link ensureTinyModule} did: created it, found it up to date, or patched `spec.image` and/or the annotation. */
export type ModuleRegistration = "created" | "unchanged" | "updated";

/**
 * Creates TinyModule `<sanitized name>` (image and {@link TINYHOST_VERSION_ANNOTATION} in the one
 * create request: a first start costs one round trip) or, when it exists, brings its
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

/** Options of {@link ownModuleRegistration}. */
export interface OwnModuleRegistrationOptions {
  kube: KubeClient;
  /** Namespace of the TinyModule. */
  namespace: string;
  /** Unsanitized name and version (`--name`, `--version`). */
  module: ModuleIdentity;
  /** The tinyhost version to annotate. */
  runtimeVersion: string;
  log: Logger;
}

/**
 * Sends the registration ({@link ensureTinyModule}) now — at start-up it leaves with the Lease get
 * and the TinyNode list — and returns a runnable (group `controllers`) whose start waits
 * for its outcome, so a failure still fails start-up (named by the manager); until then a rejection
 * is held, not unhandled.
 */
export function ownModuleRegistration(o: OwnModuleRegistrationOptions): Runnable {
  // createModule straight from its file, not through the resource manager: this runs before the
  // rest of the module is loaded (src/operator/early.ts), and the manager's module graph holds the logger.
  const create = (m: ModuleIdentity, annotations?: Record<string, string>) => createModule(bindKinds(o.kube), o.namespace, m, annotations);
  const registered = ensureTinyModule(o.kube, o.namespace, o.module, create, o.runtimeVersion);
  registered.catch(() => {});
  return task("own TinyModule", async () =>
    o.log.info({ tinymodule: sanitizeResourceName(o.module.name), result: await registered }, "own TinyModule registered"),
  );
}
