/**
 * The resource manager (runtime-spec §7): exposePort/disclosePort on the release Service and
 * Ingress, TinySystems custom-resource helpers, and TinyNode status patches. Components receive a
 * {@link ClusterModuleClient} (the cluster implementation of the SDK's `ModuleClient`) in `onClient`.
 *
 * ```ts
 * const client = createResourceManager({ kube, namespace });          // podName from HOSTNAME
 * const hosts = await client.exposePort({ port: 8080, autoHostName: "shop" });
 * await client.nodes.patch(nodeName, (n) => { n.status!.metadata = { k: "v" }; });
 * ```
 */
export { createResourceManager, type ClusterModuleClient, type ResourceManagerOptions } from "./manager.ts";
export { createResourceContext, DEFAULT_EXPOSE_LOCK_TTL_MS, type ResourceContext, type ResourceContextOptions } from "./context.ts";
export { exposePort, type ExposePortRequest } from "./expose.ts";
export { disclosePort } from "./disclose.ts";
export {
  ResourceManagerError,
  PodNameUnknownError,
  ReleaseNotFoundError,
  ReleaseObjectLookupError,
  InvalidHostnameError,
  InvalidPortError,
  NoHostnamesError,
  InvalidArgumentError,
  OwnerLookupError,
  ExposeConflictError,
  WouldBeEmptyError,
  OwnershipRecordError,
  PartialWriteError,
  ExposeLockTimeoutError,
  type ExposeConflict,
} from "./errors.ts";
export {
  normalizeHostname,
  normalizeHostnames,
  autoHostname,
  tlsSecretName,
  validatePort,
  MAX_HOSTNAME_LENGTH,
  MAX_LABEL_LENGTH,
  TLS_SECRET_SUFFIX,
  WILDCARD_SECRET_LABEL,
} from "./hostnames.ts";
export {
  exposeOnService,
  discloseOnService,
  revertServiceExpose,
  exposedServicePort,
  isExposedServicePort,
  describeServicePort,
  servicePortName,
  type ServiceEdit,
  type ServiceExposeChange,
  type ServiceDiscloseChange,
} from "./service-ports.ts";
export {
  exposeOnIngress,
  discloseOnIngress,
  revertIngressDisclose,
  exposedPath,
  isExposedPath,
  describePath,
  type IngressEdit,
  EXPOSED_PATH,
  EXPOSED_PATH_TYPE,
  type IngressRouting,
  type IngressRule,
  type IngressTls,
  type HttpIngressPath,
  type IngressServiceBackend,
} from "./ingress-rules.ts";
export {
  findReleaseName,
  findManagerService,
  findManagerIngress,
  managerServiceLabels,
  managerIngressLabels,
  labelSelector,
  INSTANCE_LABEL,
  NAME_LABEL,
  COMPONENT_LABEL,
  OPERATOR_CHART_NAME,
  MANAGER_COMPONENT,
} from "./release.ts";
export {
  SERVICE_RECORD_ANNOTATION,
  INGRESS_RECORD_ANNOTATION,
  readServiceRecord,
  readIngressRecord,
  withRecord,
  withAnnotation,
  type Claim,
  type HostClaim,
  type ServiceRecord,
  type IngressRecord,
} from "./ownership.ts";
export { servicePortManagers } from "./field-managers.ts";
export {
  withExposeLock,
  decideLock,
  parseExposeLock,
  EXPOSE_LOCK_ANNOTATION,
  EXPOSE_LOCK_GRACE_MS,
  type ExposeLock,
  type LockObservation,
} from "./expose-lock.ts";
export { writeBoth, type TwoWrites } from "./two-writes.ts";
export { updateService, updateIngress, undoEdit, describeObject, EXPOSE_FIELD_MANAGER, type ReleaseUpdate } from "./release-updates.ts";
export { createMergePatch } from "./merge-patch.ts";
export { patchNode } from "./patch-node.ts";
export type { TinyNodeApi, NodeStatusMergePatch, PatchNodeResult } from "./node-api.ts";
export { crdApi, type CrdApi } from "./crd-api.ts";
export { bindKinds, type Kinds } from "./kinds.ts";
export { controllerReference, ownerReferenceTo } from "./owner.ts";
export { createModule, type ModuleIdentity } from "./modules.ts";
export { tinyNodeApi } from "./nodes.ts";
export { flowHelpers, type FlowHelpers } from "./flows.ts";
export { projectHelpers, type ProjectHelpers } from "./projects.ts";
export { pageHelpers, type PageHelpers } from "./pages.ts";
export { scenarioHelpers, type ScenarioHelpers } from "./scenarios.ts";
export { Mutex } from "./mutex.ts";
