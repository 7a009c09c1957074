/**
 * What a loaded configuration gives the REST client: where the apiserver is, how to trust it, and
 * where credentials come from. Produced by {@link loadKubeConfig} (kubeconfig or in-cluster).
 */

/**
 * The credentials to put on one request. Any combination may be present: a bearer token goes in
 * `Authorization`, a client certificate in the TLS handshake, basic auth in `Authorization` when no
 * token is set (Kubernetes docs, "Authenticating").
 */
export interface Credentials {
  /** Bearer token. */
  token?: string;
  /** PEM client certificate (chain) for mutual TLS. */
  clientCertPem?: string;
  /** PEM private key matching {@link clientCertPem}. */
  clientKeyPem?: string;
  /** kubeconfig `username`/`password` (HTTP basic). Only used when there is no token. */
  basic?: { username: string; password: string };
}

/**
 * A source of {@link Credentials} that may change over time: static values, a token file that is
 * re-read when it changes, the in-cluster service-account token, or an exec credential plugin.
 */
export interface CredentialSource {
  /**
   * The credentials to use now. May read a file or run a plugin; concurrent callers share one run.
   * @throws KubeConfigError when a file cannot be read or a plugin fails.
   */
  current(): Promise<Credentials>;
  /**
   * Drops any cached value after the server answered 401, so the next {@link current} fetches fresh
   * credentials. @returns true when fresh credentials may differ (worth one retry), false for static ones.
   */
  invalidate(): boolean;
}

/**
 * A resolved connection to one apiserver: the result of loading a kubeconfig context or the
 * in-cluster service account.
 */
export interface ClusterConnection {
  /** Base URL of the apiserver, e.g. `https://127.0.0.1:6443` (no trailing slash; may carry a path prefix). */
  server: string;
  /** PEM bundle of CAs that sign the server certificate; undefined means the system trust store. */
  caPem?: string;
  /** kubeconfig `insecure-skip-tls-verify`: do not verify the server certificate. */
  insecureSkipTlsVerify: boolean;
  /** kubeconfig `tls-server-name`: the name checked against the server certificate instead of the URL host. */
  tlsServerName?: string;
  /** kubeconfig `proxy-url`: HTTP(S) proxy for every request. */
  proxyUrl?: string;
  /** Default namespace: the context's `namespace`, the service account's namespace, or `default`. */
  namespace: string;
  /** Where the request credentials come from. */
  credentials: CredentialSource;
  /** Where this came from: a kubeconfig path or `in-cluster`; used in error messages. */
  source: string;
  /** The kubeconfig context name, when loaded from a kubeconfig. */
  context?: string;
}
