/**
 * Kubernetes client configuration: kubeconfig and in-cluster loading, credential sources.
 * The REST client (src/k8s/client) takes the {@link ClusterConnection} these produce.
 */
export { KubeConfigError } from "./errors.ts";
export type { ClusterConnection, Credentials, CredentialSource } from "./types.ts";
export { StaticCredentials, TokenFileCredentials, type TokenFileOptions } from "./credentials.ts";
export {
  ExecCredentials,
  parseExecCredential,
  EXEC_API_VERSIONS,
  type ExecApiVersion,
  type ExecConfig,
  type ExecClusterInfo,
  type ExecCredentialOptions,
} from "./exec-credential.ts";
export { parseKubeConfig, readKubeConfigFile, type ParseKubeConfigOptions } from "./kubeconfig.ts";
export { loadInClusterConfig, SERVICE_ACCOUNT_DIR, IN_CLUSTER_TOKEN_MAX_AGE_MS, type InClusterOptions } from "./in-cluster.ts";
export { loadKubeConfig, type LoadKubeConfigOptions } from "./load.ts";
