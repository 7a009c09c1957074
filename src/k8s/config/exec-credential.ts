/**
 * The exec credential plugin: run a command named in the kubeconfig, read an `ExecCredential` from
 * its stdout, cache it until `status.expirationTimestamp`, run it again after a 401.
 * Rule: Kubernetes docs "client-go credential plugins" (client.authentication.k8s.io v1 and v1beta1).
 */
import { KubeConfigError } from "./errors.ts";
import type { Credentials, CredentialSource } from "./types.ts";
import { startTimer } from "../../core/timer.ts";
import { isPlainObject } from "../../core/plain-object.ts";

/** The `ExecCredential` API versions this client speaks; v1alpha1 was removed in Kubernetes 1.24. */
export const EXEC_API_VERSIONS = ["client.authentication.k8s.io/v1", "client.authentication.k8s.io/v1beta1"] as const;

/** One of {@link EXEC_API_VERSIONS}. */
export type ExecApiVersion = (typeof EXEC_API_VERSIONS)[number];

/** The kubeconfig `users[].user.exec` block, validated. */
export interface ExecConfig {
  /** `ExecCredential` version requested from and expected back from the plugin. */
  apiVersion: ExecApiVersion;
  /** The program to run (already resolved against the kubeconfig's folder when relative with a slash). */
  command: string;
  /** Its arguments. */
  args: string[];
  /** Extra environment variables, added to this process's environment. */
  env: { name: string; value: string }[];
  /** Printed in the error when the command cannot be started. */
  installHint?: string;
  /** When true, `KUBERNETES_EXEC_INFO` carries `spec.cluster`. */
  provideClusterInfo: boolean;
  /** v1 `interactiveMode`; we never have a terminal to offer, so `Always` fails. */
  interactiveMode?: "Never" | "IfAvailable" | "Always";
}

/** The cluster description passed in `spec.cluster` when `provideClusterInfo` is set (field names as in the docs). */
export interface ExecClusterInfo {
  server: string;
  "tls-server-name"?: string;
  "insecure-skip-tls-verify"?: boolean;
  /** base64 of the CA PEM. */
  "certificate-authority-data"?: string;
  "proxy-url"?: string;
  /** kubeconfig `clusters[].cluster.extensions[name=client.authentication.k8s.io/exec].extension`. */
  config?: unknown;
}

/** Options of {@link ExecCredentials}. */
export interface ExecCredentialOptions {
  /** The validated exec block. */
  exec: ExecConfig;
  /** kubeconfig path, for errors. */
  source: string;
  /** Field path of the exec block, for errors, e.g. `users[name="eks"].user.exec`. */
  field: string;
  /** Cluster info for `KUBERNETES_EXEC_INFO` (used only when `provideClusterInfo`). */
  cluster?: ExecClusterInfo;
  /** Longest time the plugin may run, ms. Default 60,000. */
  timeoutMs?: number;
  /** Clock in ms, injectable for tests. Default `Date.now`. */
  now?: () => number;
  /** Environment the plugin inherits. Default `process.env`. */
  baseEnv?: Record<string, string | undefined>;
}

/**
 * Credentials from an exec plugin. The result is cached until its `expirationTimestamp` (forever
 * when absent) and dropped on {@link invalidate} (after a 401). Concurrent callers share one run.
 */
export class ExecCredentials implements CredentialSource {
  readonly #opts: ExecCredentialOptions;
  #cached: { creds: Credentials; expiresAt: number } | undefined;
  #running: Promise<Credentials> | undefined;
  /** How many times the plugin has been started; read by tests and diagnostics. */
  runs = 0;

  /** @param opts - see {@link ExecCredentialOptions}. */
  constructor(opts: ExecCredentialOptions) {
    this.#opts = opts;
  }

  /**
   * @returns the cached credentials while unexpired, else runs the plugin.
   * @throws KubeConfigError naming the kubeconfig and exec field when the plugin cannot start,
   * exits non-zero, times out, or prints something that is not a valid `ExecCredential`.
   */
  current(): Promise<Credentials> {
    const now = (this.#opts.now ?? Date.now)();
    if (this.#cached && now < this.#cached.expiresAt) return Promise.resolve(this.#cached.creds);
    this.#running ??= this.#run().finally(() => {
      this.#running = undefined;
    });
    return this.#running;
  }

  /** Drops the cached credential. @returns true: the plugin may return a new one. */
  invalidate(): boolean {
    this.#cached = undefined;
    return true;
  }

  async #run(): Promise<Credentials> {
    const { exec, source, field } = this.#opts;
    if (exec.interactiveMode === "Always") {
      throw new KubeConfigError(source, `${field}.interactiveMode`, `is "Always", but tinyhost runs without a terminal`);
    }
    const execInfo = {
      apiVersion: exec.apiVersion,
      kind: "ExecCredential",
      spec: { interactive: false, ...(exec.provideClusterInfo && this.#opts.cluster ? { cluster: this.#opts.cluster } : {}) },
    };
    const env: Record<string, string> = {};
    for (const [k, v] of Object.entries(this.#opts.baseEnv ?? process.env)) if (v !== undefined) env[k] = v;
    for (const { name, value } of exec.env) env[name] = value;
    env.KUBERNETES_EXEC_INFO = JSON.stringify(execInfo);

    let proc: ReturnType<typeof Bun.spawn<"ignore", "pipe", "pipe">>;
    this.runs++;
    try {
      proc = Bun.spawn([exec.command, ...exec.args], { env, stdin: "ignore", stdout: "pipe", stderr: "pipe" });
    } catch (cause) {
      const hint = exec.installHint ? ` (${exec.installHint.trim()})` : "";
      throw new KubeConfigError(source, `${field}.command`, `${JSON.stringify(exec.command)} cannot be started${hint}`, { cause });
    }
    const timeoutMs = this.#opts.timeoutMs ?? 60_000;
    const timer = startTimer(timeoutMs, () => proc.kill());
    const [stdout, stderr, exitCode] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]).finally(() =>
      timer.cancel(),
    );
    if (proc.signalCode) {
      throw new KubeConfigError(source, `${field}.command`, `${JSON.stringify(exec.command)} was stopped by ${proc.signalCode} (timeout ${timeoutMs} ms)`);
    }
    if (exitCode !== 0) {
      throw new KubeConfigError(source, `${field}.command`, `${JSON.stringify(exec.command)} exited with code ${exitCode}: ${stderr.trim().slice(0, 500)}`);
    }
    const { creds, expiresAt } = parseExecCredential(stdout, exec.apiVersion, source, field);
    this.#cached = { creds, expiresAt };
    return creds;
  }
}

/**
 * Parses and checks a plugin's stdout.
 * @param stdout - the text the plugin printed.
 * @param apiVersion - the version we asked for; the answer must carry the same.
 * @param source - kubeconfig path, for errors. @param field - exec field path, for errors.
 * @returns the credentials and their expiry in ms since the epoch (`Infinity` when none).
 * @throws KubeConfigError naming what is missing or malformed.
 */
export function parseExecCredential(stdout: string, apiVersion: ExecApiVersion, source: string, field: string): { creds: Credentials; expiresAt: number } {
  const bad = (what: string) => new KubeConfigError(source, field, `plugin output: ${what}`);
  let doc: unknown;
  try {
    doc = JSON.parse(stdout);
  } catch {
    throw bad(`is not JSON: ${JSON.stringify(stdout.slice(0, 200))}`);
  }
  if (!isPlainObject(doc)) throw bad("is not a JSON object");
  if (doc.kind !== "ExecCredential") throw bad(`kind is ${JSON.stringify(doc.kind)}, want "ExecCredential"`);
  if (doc.apiVersion !== apiVersion) throw bad(`apiVersion is ${JSON.stringify(doc.apiVersion)}, want ${JSON.stringify(apiVersion)}`);
  const status = doc.status;
  if (!isPlainObject(status)) throw bad("status is missing");
  const token = optionalString(status.token, "status.token", bad);
  const cert = optionalString(status.clientCertificateData, "status.clientCertificateData", bad);
  const key = optionalString(status.clientKeyData, "status.clientKeyData", bad);
  if ((cert === undefined) !== (key === undefined)) throw bad("status.clientCertificateData and status.clientKeyData must be given together");
  if (token === undefined && cert === undefined) throw bad("status has neither token nor clientCertificateData/clientKeyData");
  let expiresAt = Number.POSITIVE_INFINITY;
  const exp = optionalString(status.expirationTimestamp, "status.expirationTimestamp", bad);
  if (exp !== undefined) {
    expiresAt = Date.parse(exp);
    if (Number.isNaN(expiresAt)) throw bad(`status.expirationTimestamp ${JSON.stringify(exp)} is not an RFC 3339 time`);
  }
  const creds: Credentials = {};
  if (token !== undefined) creds.token = token;
  if (cert !== undefined && key !== undefined) {
    creds.clientCertPem = cert;
    creds.clientKeyPem = key;
  }
  return { creds, expiresAt };
}

function optionalString(v: unknown, name: string, bad: (what: string) => Error): string | undefined {
  if (v === undefined || v === null || v === "") return undefined;
  if (typeof v !== "string") throw bad(`${name} is not a string`);
  return v;
}
