/**
 * Parses a kubeconfig file (clusters, users, contexts, current-context) into a
 * {@link ClusterConnection}. Rule: Kubernetes docs "Organizing cluster access using kubeconfig
 * files" and the `clientcmd/api/v1` field names; relative file paths are relative to the
 * kubeconfig's folder, as in clientcmd.
 */
import { readFile } from "node:fs/promises";
import { dirname, isAbsolute, resolve } from "node:path";
import { KubeConfigError } from "./errors.ts";
import { StaticCredentials, TokenFileCredentials } from "./credentials.ts";
import { EXEC_API_VERSIONS, ExecCredentials, type ExecApiVersion, type ExecClusterInfo, type ExecConfig } from "./exec-credential.ts";
import type { ClusterConnection, Credentials, CredentialSource } from "./types.ts";

/** Options of {@link parseKubeConfig}. */
export interface ParseKubeConfigOptions {
  /** The kubeconfig's path: named in errors; relative paths inside resolve against its folder. */
  path: string;
  /** Context to use instead of `current-context`. */
  context?: string;
  /** Clock in ms for token-file and exec caches (tests). Default `Date.now`. */
  now?: () => number;
  /** Environment for exec plugins. Default `process.env`. */
  env?: Record<string, string | undefined>;
}

type Rec = Record<string, unknown>;

/**
 * Reads and parses a kubeconfig file.
 * @param path - kubeconfig path.
 * @param context - context name overriding `current-context`.
 * @throws KubeConfigError naming the file (and field) when it cannot be read or is invalid.
 */
export async function readKubeConfigFile(path: string, options: Omit<ParseKubeConfigOptions, "path"> = {}): Promise<ClusterConnection> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (cause) {
    throw new KubeConfigError(path, "", `cannot be read: ${(cause as Error).message}`, { cause });
  }
  return parseKubeConfig(text, { ...options, path });
}

/**
 * Parses kubeconfig YAML text and resolves the chosen context. Files it names (CA, client cert and
 * key) are read now; a `tokenFile` is read on first use and again whenever it changes.
 * @param text - the YAML (or JSON) text.
 * @throws KubeConfigError naming `options.path` and the field that is missing or bad.
 */
export async function parseKubeConfig(text: string, options: ParseKubeConfigOptions): Promise<ClusterConnection> {
  const file = options.path;
  const dir = dirname(resolve(file));
  const fail = (field: string, problem: string): never => {
    throw new KubeConfigError(file, field, problem);
  };

  let doc: unknown;
  try {
    doc = await parseYaml(text);
  } catch (cause) {
    throw new KubeConfigError(file, "", `is not valid YAML: ${(cause as Error).message}`, { cause });
  }
  if (!isRec(doc)) return fail("", "is not a kubeconfig (expected a mapping at the top level)");

  const contextName = options.context ?? str(doc["current-context"], "current-context", fail);
  if (!contextName) return fail("current-context", "is missing and no context was chosen");
  const contextField = `contexts[name=${JSON.stringify(contextName)}]`;
  const context = rec(findNamed(doc.contexts, "contexts", contextName, fail)?.context, `${contextField}.context`, fail);
  if (!context) return fail(contextField, options.context ? "does not exist (chosen with --context)" : "does not exist (named by current-context)");

  const clusterName = str(context.cluster, `${contextField}.context.cluster`, fail);
  if (!clusterName) return fail(`${contextField}.context.cluster`, "is missing");
  const clusterField = `clusters[name=${JSON.stringify(clusterName)}]`;
  const cluster = rec(findNamed(doc.clusters, "clusters", clusterName, fail)?.cluster, `${clusterField}.cluster`, fail);
  if (!cluster) return fail(clusterField, `does not exist (named by ${contextField}.context.cluster)`);

  const server = str(cluster.server, `${clusterField}.cluster.server`, fail);
  if (!server) return fail(`${clusterField}.cluster.server`, "is missing");
  let serverUrl: URL;
  try {
    serverUrl = new URL(server);
  } catch {
    return fail(`${clusterField}.cluster.server`, `${JSON.stringify(server)} is not a URL`);
  }
  if (serverUrl.protocol !== "https:" && serverUrl.protocol !== "http:") {
    fail(`${clusterField}.cluster.server`, `${JSON.stringify(server)} is not an http(s) URL`);
  }

  const insecure = bool(cluster["insecure-skip-tls-verify"], `${clusterField}.cluster.insecure-skip-tls-verify`, fail);
  const caPem = await pemFrom(cluster, "certificate-authority", `${clusterField}.cluster`, file, dir, fail);
  if (insecure && caPem) {
    // Same refusal as clientcmd: trusting a CA and skipping verification contradict each other.
    fail(`${clusterField}.cluster.insecure-skip-tls-verify`, "is true while a certificate-authority is also set; choose one");
  }
  const tlsServerName = str(cluster["tls-server-name"], `${clusterField}.cluster.tls-server-name`, fail);
  const proxyUrl = str(cluster["proxy-url"], `${clusterField}.cluster.proxy-url`, fail);

  const userName = str(context.user, `${contextField}.context.user`, fail);
  let credentials: CredentialSource = new StaticCredentials({});
  if (userName) {
    const userField = `users[name=${JSON.stringify(userName)}]`;
    const user = rec(findNamed(doc.users, "users", userName, fail)?.user, `${userField}.user`, fail);
    if (!user) return fail(userField, `does not exist (named by ${contextField}.context.user)`);
    const clusterInfo: ExecClusterInfo = {
      server: serverUrl.toString().replace(/\/$/, ""),
      ...(tlsServerName ? { "tls-server-name": tlsServerName } : {}),
      ...(insecure ? { "insecure-skip-tls-verify": true } : {}),
      ...(caPem ? { "certificate-authority-data": Buffer.from(caPem).toString("base64") } : {}),
      ...(proxyUrl ? { "proxy-url": proxyUrl } : {}),
      ...execExtension(cluster.extensions),
    };
    credentials = await userCredentials(user, `${userField}.user`, { file, dir, fail, clusterInfo, options });
  }

  const namespace = str(context.namespace, `${contextField}.context.namespace`, fail) || "default";
  return {
    server: serverUrl.toString().replace(/\/$/, ""),
    ...(caPem ? { caPem } : {}),
    insecureSkipTlsVerify: insecure,
    ...(tlsServerName ? { tlsServerName } : {}),
    ...(proxyUrl ? { proxyUrl } : {}),
    namespace,
    credentials,
    source: file,
    context: contextName,
  };
}

type Fail = (field: string, problem: string) => never;

async function userCredentials(
  user: Rec,
  field: string,
  ctx: { file: string; dir: string; fail: Fail; clusterInfo: ExecClusterInfo; options: ParseKubeConfigOptions },
): Promise<CredentialSource> {
  const { file, dir, fail } = ctx;
  for (const unsupported of ["auth-provider", "as", "as-uid", "as-groups", "as-user-extra"]) {
    if (user[unsupported] !== undefined && user[unsupported] !== null) {
      fail(
        `${field}.${unsupported}`,
        unsupported === "auth-provider"
          ? "is not supported (auth-provider plugins were removed in Kubernetes 1.26; use an exec plugin)"
          : "is not supported (impersonation)",
      );
    }
  }
  const base: Credentials = {};
  const cert = await pemFrom(user, "client-certificate", field, file, dir, fail);
  const key = await pemFrom(user, "client-key", field, file, dir, fail);
  if (cert && !key) fail(`${field}.client-key`, "is missing while client-certificate is set");
  if (key && !cert) fail(`${field}.client-certificate`, "is missing while client-key is set");
  if (cert && key) {
    base.clientCertPem = cert;
    base.clientKeyPem = key;
  }
  const username = str(user.username, `${field}.username`, fail);
  const password = str(user.password, `${field}.password`, fail);
  if (username) base.basic = { username, password: password ?? "" };

  const token = str(user.token, `${field}.token`, fail);
  const tokenFile = str(user.tokenFile, `${field}.tokenFile`, fail);
  const exec = rec(user.exec, `${field}.exec`, fail);
  if (exec) {
    if (token || tokenFile) fail(`${field}.exec`, "is set together with token/tokenFile; choose one");
    return new ExecCredentials({
      exec: execConfig(exec, `${field}.exec`, dir, fail),
      source: file,
      field: `${field}.exec`,
      cluster: ctx.clusterInfo,
      ...(ctx.options.now ? { now: ctx.options.now } : {}),
      ...(ctx.options.env ? { baseEnv: ctx.options.env } : {}),
    });
  }
  if (token) return new StaticCredentials({ ...base, token });
  if (tokenFile) {
    const path = isAbsolute(tokenFile) ? tokenFile : resolve(dir, tokenFile);
    const source = new TokenFileCredentials({ path, source: file, field: `${field}.tokenFile`, base, ...(ctx.options.now ? { now: ctx.options.now } : {}) });
    await source.current(); // fail at load time, naming the field, when the file is missing
    return source;
  }
  return new StaticCredentials(base);
}

function execConfig(exec: Rec, field: string, dir: string, fail: Fail): ExecConfig {
  const apiVersion = str(exec.apiVersion, `${field}.apiVersion`, fail);
  if (!apiVersion) return fail(`${field}.apiVersion`, "is missing");
  if (!(EXEC_API_VERSIONS as readonly string[]).includes(apiVersion)) {
    fail(`${field}.apiVersion`, `${JSON.stringify(apiVersion)} is not supported (use ${EXEC_API_VERSIONS.join(" or ")})`);
  }
  let command = str(exec.command, `${field}.command`, fail);
  if (!command) return fail(`${field}.command`, "is missing");
  // clientcmd: a relative command containing a slash is relative to the kubeconfig's folder.
  if (!isAbsolute(command) && command.includes("/")) command = resolve(dir, command);
  const args = exec.args ?? [];
  if (!Array.isArray(args) || !args.every((a) => typeof a === "string")) fail(`${field}.args`, "must be a list of strings");
  const envList = exec.env ?? [];
  if (!Array.isArray(envList)) return fail(`${field}.env`, "must be a list of {name, value}");
  const env = envList.map((e, i) => {
    if (!isRec(e) || typeof e.name !== "string" || !e.name) return fail(`${field}.env[${i}].name`, "is missing");
    if (typeof e.value !== "string") return fail(`${field}.env[${i}].value`, "must be a string");
    return { name: e.name, value: e.value };
  });
  const mode = exec.interactiveMode;
  if (mode !== undefined && mode !== null && mode !== "Never" && mode !== "IfAvailable" && mode !== "Always") {
    fail(`${field}.interactiveMode`, `${JSON.stringify(mode)} is not one of Never, IfAvailable, Always`);
  }
  const installHint = str(exec.installHint, `${field}.installHint`, fail);
  return {
    apiVersion: apiVersion as ExecApiVersion,
    command,
    args: args as string[],
    env,
    ...(installHint ? { installHint } : {}),
    provideClusterInfo: bool(exec.provideClusterInfo, `${field}.provideClusterInfo`, fail),
    ...(mode ? { interactiveMode: mode as ExecConfig["interactiveMode"] } : {}),
  };
}

/** The `client.authentication.k8s.io/exec` cluster extension, passed to exec plugins as `config`. */
function execExtension(extensions: unknown): { config?: unknown } {
  if (!Array.isArray(extensions)) return {};
  const ext = extensions.find((e) => isRec(e) && e.name === "client.authentication.k8s.io/exec");
  return isRec(ext) && ext.extension !== undefined ? { config: ext.extension } : {};
}

/** Reads `<name>-data` (base64 PEM) or `<name>` (a file path) from `obj`; data wins, as in clientcmd. */
async function pemFrom(obj: Rec, name: string, field: string, file: string, dir: string, fail: Fail): Promise<string | undefined> {
  const data = str(obj[`${name}-data`], `${field}.${name}-data`, fail);
  if (data) {
    const pem = Buffer.from(data, "base64").toString("utf8");
    if (!pem.includes("-----BEGIN")) fail(`${field}.${name}-data`, "is not base64 of a PEM block");
    return pem;
  }
  const path = str(obj[name], `${field}.${name}`, fail);
  if (!path) return undefined;
  const full = isAbsolute(path) ? path : resolve(dir, path);
  let pem: string;
  try {
    pem = await readFile(full, "utf8");
  } catch (cause) {
    throw new KubeConfigError(file, `${field}.${name}`, `names ${JSON.stringify(full)}, which cannot be read`, { cause });
  }
  if (!pem.includes("-----BEGIN")) fail(`${field}.${name}`, `names ${JSON.stringify(full)}, which holds no PEM block`);
  return pem;
}

function findNamed(list: unknown, listField: string, name: string, fail: Fail): Rec | undefined {
  if (list === undefined || list === null) return undefined;
  if (!Array.isArray(list)) return fail(listField, "must be a list");
  return list.find((e): e is Rec => isRec(e) && e.name === name);
}

function isRec(v: unknown): v is Rec {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function rec(v: unknown, field: string, fail: Fail): Rec | undefined {
  if (v === undefined || v === null) return undefined;
  if (!isRec(v)) return fail(field, "must be a mapping");
  return v;
}

function str(v: unknown, field: string, fail: Fail): string | undefined {
  if (v === undefined || v === null) return undefined;
  if (typeof v !== "string") return fail(field, `must be a string, got ${JSON.stringify(v)}`);
  return v;
}

function bool(v: unknown, field: string, fail: Fail): boolean {
  if (v === undefined || v === null) return false;
  if (typeof v !== "boolean") return fail(field, `must be true or false, got ${JSON.stringify(v)}`);
  return v;
}

/**
 * YAML text → value. Bun's native parser (Bun.YAML, YAML 1.2 core schema, as the `yaml` package's
 * default) does it without evaluating the 220 KB `yaml` package on the start path (start →
 * ready). Bun's errors carry no position ("Unexpected token"), so on a failure the `yaml` package
 * parses the text again: its error (line and column) is the one thrown, and a text only it accepts
 * is still read. One difference stays: Bun keeps the last of duplicate mapping keys where `yaml`
 * refuses them.
 * @throws the `yaml` package's parse error.
 */
async function parseYaml(text: string): Promise<unknown> {
  try {
    return Bun.YAML.parse(text);
  } catch {
    const { parse } = await import("yaml");
    return parse(text);
  }
}
