/**
 * What every resource-manager operation needs: the client, the manager namespace, the pod name
 * (for the release lookup), the process-local lock and a logger. Built once per manager.
 */
import type { KubeClient } from "../client/index.ts";
import { logger, type Logger } from "../../telemetry/log.ts";
import { PodNameUnknownError } from "./errors.ts";
import { Mutex } from "./mutex.ts";
import { findReleaseName } from "./release.ts";

/** How long a lock is valid without its holder releasing it, ms. An expose/disclose takes a few requests. */
export const DEFAULT_EXPOSE_LOCK_TTL_MS = 30_000;

/** Shared state of one resource manager. */
export interface ResourceContext {
  /** The raw Kubernetes client. */
  readonly kube: KubeClient;
  /** Namespace the module runs in (the Go manager's `namespace`). */
  readonly namespace: string;
  /** This pod's name (HOSTNAME), or undefined when unknown. */
  readonly podName: string | undefined;
  /** Serializes exposePort/disclosePort within the process. */
  readonly lock: Mutex;
  /** Logger for warnings (e.g. an ignored auto hostname). */
  readonly log: Logger;
  /** Time-to-live of the expose lock this manager takes, ms (expose-lock.ts). */
  readonly lockTtlMs: number;
  /**
   * The Helm release name, read from the pod once and then cached (a pod's labels do not move
   * it to another release).
   * @throws PodNameUnknownError, ReleaseNotFoundError.
   */
  release(): Promise<string>;
}

/** Options of {@link createResourceContext}. */
export interface ResourceContextOptions {
  /** The Kubernetes client. */
  kube: KubeClient;
  /** Manager namespace; default the client's namespace. */
  namespace?: string;
  /** This pod's name; default `env.HOSTNAME` (set by the kubelet). Empty = unknown. */
  podName?: string;
  /** Environment to read HOSTNAME from; default `process.env`. */
  env?: Record<string, string | undefined>;
  /** Logger; default the root logger's `resources` child. */
  log?: Logger;
  /** Time-to-live of the expose lock, ms; default {@link DEFAULT_EXPOSE_LOCK_TTL_MS} (30 s). */
  lockTtlMs?: number;
}

/** Builds the shared state (no requests are sent). */
export function createResourceContext(options: ResourceContextOptions): ResourceContext {
  const kube = options.kube;
  const namespace = options.namespace || kube.namespace;
  const podName = options.podName ?? (options.env ?? process.env).HOSTNAME;
  let cached: string | undefined;
  return {
    kube,
    namespace,
    podName: podName || undefined,
    lock: new Mutex(),
    log: options.log ?? logger.child({ component: "resources" }),
    lockTtlMs: options.lockTtlMs ?? DEFAULT_EXPOSE_LOCK_TTL_MS,
    async release() {
      if (cached !== undefined) return cached;
      if (!podName) throw new PodNameUnknownError();
      cached = await findReleaseName(kube, namespace, podName);
      return cached;
    },
  };
}
