/**
 * The Kubernetes REST client: one import for everything other tinyhost code calls.
 *
 * ```ts
 * const kube = await createKubeClient();              // kubeconfig / in-cluster
 * const cm = await kube.get(configMaps, "settings");   // typed ConfigMap
 * for await (const ev of kube.watch(configMaps, { resourceVersion, signal })) { ... }
 * ```
 */
import { loadKubeConfig, type LoadKubeConfigOptions } from "../config/load.ts";
import { KubeClient, type KubeClientOptions } from "./client.ts";

export {
  KubeClient,
  DEFAULT_TIMEOUT_MS,
  DEFAULT_PAGE_SIZE,
  type KubeClientOptions,
  type KubeVerb,
  type RequestStats,
  type CallOptions,
  type GetOptions,
  type ListOptions,
  type WriteOptions,
  type ApplyOptions,
  type DeleteOptions,
  type WatchOptions,
  type RawRequest,
  type QueryValue,
} from "./client.ts";
export {
  KubeApiError,
  KubeConnectionError,
  KubeInputError,
  KubeDecodeError,
  isNotFound,
  isConflict,
  isAlreadyExists,
  isGone,
  isStatus,
  reasonForCode,
  ConflictRetriesExhaustedError,
} from "./errors.ts";
export { retryOnConflict, CONFLICT_RETRY, type ConflictRetry, type ConflictRetryResult } from "./conflict.ts";
export { apiVersionOf, resourcePath } from "./paths.ts";
export { decodeWatchEvents, parseWatchLine } from "./watch-stream.ts";
export * from "./resources.ts";
export type * from "./types.ts";

/**
 * Loads the configuration (see `loadKubeConfig` for the order) and returns a client for it.
 * @throws KubeConfigError when no usable configuration is found.
 */
export async function createKubeClient(options: LoadKubeConfigOptions & KubeClientOptions = {}): Promise<KubeClient> {
  const connection = await loadKubeConfig(options);
  return new KubeClient(connection, {
    ...(options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {}),
    ...(options.userAgent !== undefined ? { userAgent: options.userAgent } : {}),
  });
}
