/**
 * The provisioner: what `tinyhost provision` and `tinyhost rbac` build and apply — the runtime
 * namespace, the CRDs, the NATS broker, the OTEL collector and one module release, equivalent to
 * `tiny up` + `tiny install` without Helm (provision.md §2, §5, §8).
 *
 * ```ts
 * const o = resolveOptions({ namespace: "tinysystems", name: "shop", image: "ghcr.io/me/shop:1.2.0" });
 * console.log(toYamlStream(planManifests(dryRunPlan(o)).map((m) => m.object)));  // --dry-run
 * await provision(await createKubeClient(), o);                                    // apply
 * ```
 */
export {
  provision,
  applyManifest,
  waitForCrds,
  checkReleaseImage,
  pruneLegacy,
  type ApplyResult,
  type AppliedObject,
  type ProvisionResult,
  type ProvisionRunOptions,
} from "./apply.ts";
export { brokerUrl, readBrokerUrl, redactBrokerUrl, NATS_AUTH_SECRET, NATS_NAME, NATS_TOKEN_KEY, NATS_CLIENT_PORT } from "./broker-url.ts";
export { crdManifests, crdObjects } from "./crds.ts";
export { ProvisionError, ProvisionInputError, ReleaseImageMismatchError, CrdNotEstablishedError, ApplyObjectError, KedaMissingError } from "./errors.ts";
export * from "./labels.ts";
export { describeManifest, type Manifest, type ManifestObject, type WritePolicy } from "./manifest.ts";
export { namespaceManifest } from "./namespace.ts";
export { natsManifests, natsAuthSecret, natsSecretManifest, natsConfig, NATS_IMAGE, NATS_STORAGE, NATS_UID, NATS_MEMORY_LIMIT, DRY_RUN_TOKEN } from "./nats.ts";
export {
  resolveOptions,
  splitImage,
  DEFAULT_NAMESPACE,
  DEFAULT_RELEASE,
  DEFAULT_IMAGE,
  DEFAULT_INGRESS_CLASS,
  RESERVED_NAMESPACES,
  DEFAULT_PROVISION_STOP_DELAY_MS,
  MAX_PROVISION_STOP_DELAY_MS,
  DEFAULT_PROVISION_NATS_CONNECT_WAIT_MS,
  type ProvisionInput,
  type ProvisionOptions,
} from "./options.ts";
export { otelManifests, OTEL_NAME, OTEL_IMAGE, OTEL_PORT } from "./otel.ts";
export { buildPlan, dryRunPlan, planManifests, type ProvisionPlan, type PlanInputs } from "./plan.ts";
export { moduleRbacRules, crHelperRules, exposeRules, type ModuleRbacRules, type PinnedNames, type RbacOptions } from "./rbac.ts";
export { chartRbacValues, type ChartRbacValues, type ComponentNeeds } from "./rbac-values.ts";
export { podSecurityContext, restrictedContainerSecurityContext } from "./security.ts";
export { uninstall, uninstallTargets, type UninstallOptions } from "./uninstall.ts";
export { deleteManaged, scalingTargets, type DeletionTarget } from "./deletion.ts";
export { checkInstallNamespace, checkNamespaceName, InstallCheckError, type InstallCheckCode } from "./hooks/install-check.ts";
export { deleteTinyModule, PRE_DELETE_TIMEOUT_MS, type ModuleRemoval } from "./hooks/module-removal.ts";
export { whoAmI, parseServiceAccountUser, moduleNameFromAccount, MANAGER_ACCOUNT_SUFFIX, type ServiceAccountIdentity } from "./hooks/identity.ts";
export {
  releaseManifests,
  releaseRbac,
  managerServiceAccount,
  pinnedNamesFor,
  managerDeployment,
  managerService,
  managerIngress,
  managerArgs,
  managerEnv,
  namesFor,
  GRPC_PORT,
  HEALTH_PORT,
  MODULE_UID,
  MODULE_BINARY,
  OTLP_DSN,
  NATS_TOKEN_ENV,
  MODULE_TMP_DIR,
  MODULE_MEMORY_LIMIT,
  MODULE_JSC_RAM_BYTES,
  type EnvVar,
  type ReleaseInputs,
} from "./release.ts";
export { sanitizeReleaseName, clusterScopedName, MAX_RELEASE_NAME_LENGTH } from "./sanitize.ts";
export { generateToken, TOKEN_LENGTH } from "./token.ts";
export { toYamlStream } from "./yaml.ts";
