/**
 * In-cluster configuration: the apiserver from `KUBERNETES_SERVICE_HOST`/`_PORT`, trust and
 * identity from the mounted service account. Rule: Kubernetes docs "Accessing the Kubernetes API
 * from a Pod" and client-go `rest.InClusterConfig`.
 */
import { readFile } from "node:fs/promises";
import { KubeConfigError } from "./errors.ts";
import { TokenFileCredentials } from "./credentials.ts";
import type { ClusterConnection } from "./types.ts";

/** Folder where the kubelet mounts the service-account token, CA and namespace. */
export const SERVICE_ACCOUNT_DIR = "/var/run/secrets/kubernetes.io/serviceaccount";

/**
 * Environment variable that moves {@link SERVICE_ACCOUNT_DIR} for tests only: a test that runs the
 * compiled binary "as in a pod" writes a projected token and `ca.crt` into a temp dir standing for
 * the mount. Unset (every pod) = the kubelet's path.
 */
export const SERVICE_ACCOUNT_DIR_ENV = "TINYHOST_SERVICE_ACCOUNT_DIR";

/**
 * The service-account mount folder: `$TINYHOST_SERVICE_ACCOUNT_DIR` when set and non-empty, else
 * {@link SERVICE_ACCOUNT_DIR}.
 * @param env - environment to read. Default `process.env`.
 */
export function serviceAccountDir(env: Record<string, string | undefined> = process.env): string {
  const override = env[SERVICE_ACCOUNT_DIR_ENV];
  return override && override.trim() !== "" ? override : SERVICE_ACCOUNT_DIR;
}

/** Options of {@link loadInClusterConfig}; every path is injectable for tests. */
export interface InClusterOptions {
  /** Environment to read `KUBERNETES_SERVICE_HOST`/`KUBERNETES_SERVICE_PORT` from. Default `process.env`. */
  env?: Record<string, string | undefined>;
  /** Token file. Default `<serviceAccountDir()>/token`. */
  tokenPath?: string;
  /** CA bundle. Default `<serviceAccountDir()>/ca.crt`. */
  caPath?: string;
  /** Namespace file. Default `<serviceAccountDir()>/namespace`. */
  namespacePath?: string;
  /** Clock in ms for the token cache. Default `Date.now`. */
  now?: () => number;
}

/** Longest time an in-cluster token is used without re-reading the file, ms (client-go: one minute). */
export const IN_CLUSTER_TOKEN_MAX_AGE_MS = 60_000;

/**
 * Loads the in-cluster connection. The token is re-read when the file changes (checked at most once
 * per second) and at least every {@link IN_CLUSTER_TOKEN_MAX_AGE_MS}, because projected tokens
 * rotate (kubernetes/kubernetes#68164). The namespace falls back to `default` when its file is absent.
 * @throws KubeConfigError (file `in-cluster`) when the env variables are unset or the token/CA cannot be read.
 */
export async function loadInClusterConfig(options: InClusterOptions = {}): Promise<ClusterConnection> {
  const env = options.env ?? process.env;
  const host = env.KUBERNETES_SERVICE_HOST;
  const port = env.KUBERNETES_SERVICE_PORT;
  if (!host) throw new KubeConfigError("in-cluster", "KUBERNETES_SERVICE_HOST", "is not set (not running in a pod?)");
  if (!port) throw new KubeConfigError("in-cluster", "KUBERNETES_SERVICE_PORT", "is not set (not running in a pod?)");
  if (!/^\d{1,5}$/.test(port)) throw new KubeConfigError("in-cluster", "KUBERNETES_SERVICE_PORT", `${JSON.stringify(port)} is not a port number`);
  const dir = serviceAccountDir(env);
  const tokenPath = options.tokenPath ?? `${dir}/token`;
  const caPath = options.caPath ?? `${dir}/ca.crt`;
  const namespacePath = options.namespacePath ?? `${dir}/namespace`;

  let caPem: string;
  try {
    caPem = await readFile(caPath, "utf8");
  } catch (cause) {
    throw new KubeConfigError("in-cluster", caPath, "cannot be read (service-account CA)", { cause });
  }
  const credentials = new TokenFileCredentials({
    path: tokenPath,
    source: "in-cluster",
    field: "service-account token",
    maxAgeMs: IN_CLUSTER_TOKEN_MAX_AGE_MS,
    ...(options.now ? { now: options.now } : {}),
  });
  await credentials.current(); // fail now, naming the file, rather than on the first request

  let namespace = "default";
  try {
    namespace = (await readFile(namespacePath, "utf8")).trim() || "default";
  } catch {
    // client-go falls back to "default" too when the namespace file is absent.
  }
  const hostPart = host.includes(":") ? `[${host}]` : host; // IPv6 service IPs need brackets in a URL
  return {
    server: `https://${hostPart}:${port}`,
    caPem,
    insecureSkipTlsVerify: false,
    namespace,
    credentials,
    source: "in-cluster",
  };
}
