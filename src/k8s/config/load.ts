/**
 * Chooses where the client configuration comes from. Order (controller-runtime `GetConfig`):
 * an explicit path → `$KUBECONFIG` (first file) → in-cluster when `KUBERNETES_SERVICE_HOST` is set
 * → `~/.kube/config`.
 */
import { existsSync } from "node:fs";
import { homedir } from "node:os";
import { delimiter, join } from "node:path";
import { KubeConfigError } from "./errors.ts";
import { loadInClusterConfig, type InClusterOptions } from "./in-cluster.ts";
import { readKubeConfigFile } from "./kubeconfig.ts";
import type { ClusterConnection } from "./types.ts";

/** Options of {@link loadKubeConfig}. */
export interface LoadKubeConfigOptions {
  /** Explicit kubeconfig path (the `--kubeconfig` flag); wins over everything else. */
  kubeconfig?: string;
  /** Context to use instead of the file's `current-context` (ignored in-cluster). */
  context?: string;
  /** Environment (`KUBECONFIG`, `KUBERNETES_SERVICE_HOST`/`_PORT`, exec plugin env). Default `process.env`. */
  env?: Record<string, string | undefined>;
  /** Home folder for `~/.kube/config`. Default `os.homedir()`. */
  homeDir?: string;
  /** Service-account file paths, for tests. */
  inCluster?: Omit<InClusterOptions, "env" | "now">;
  /** Clock in ms for token/exec caches (tests). Default `Date.now`. */
  now?: () => number;
}

/**
 * Loads the connection to the apiserver.
 * `$KUBECONFIG` may list several files (`:`-separated); only the first non-empty entry is used
 * (docs/compatibility.md, "k8s client": no merging).
 * @throws KubeConfigError naming the file and field that is missing or bad, or listing the places
 * tried when no configuration exists at all.
 */
export async function loadKubeConfig(options: LoadKubeConfigOptions = {}): Promise<ClusterConnection> {
  const env = options.env ?? process.env;
  const common = {
    ...(options.context ? { context: options.context } : {}),
    ...(options.now ? { now: options.now } : {}),
    env,
  };
  if (options.kubeconfig) return readKubeConfigFile(options.kubeconfig, common);

  const fromEnv = (env.KUBECONFIG ?? "").split(delimiter).find((p) => p.trim() !== "");
  if (fromEnv) return readKubeConfigFile(fromEnv, common);

  if (env.KUBERNETES_SERVICE_HOST) {
    return loadInClusterConfig({ ...options.inCluster, env, ...(options.now ? { now: options.now } : {}) });
  }

  const home = join(options.homeDir ?? homedir(), ".kube", "config");
  if (existsSync(home)) return readKubeConfigFile(home, common);
  throw new KubeConfigError(home, "", "does not exist, and neither a kubeconfig path, $KUBECONFIG nor KUBERNETES_SERVICE_HOST (in-cluster) is set");
}
