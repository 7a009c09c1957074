/**
 * Test bed for running tinyhost the way the platform's tinysystems-operator chart runs a module:
 * the real chart from the Go SDK (v0.13.125, in the Go module cache after the Go test tools are
 * built) rendered by a real `helm template` (helm v4.3.2 from the Go module proxy,
 * scripts/build-go-tools.sh), its RBAC applied to the test apiserver, and each rendered container
 * started as the kubelet would start it: `command` (`/manager` = the compiled binary) and `args`
 * as rendered, only the env the pod spec gives plus what the kubelet adds (HOSTNAME,
 * KUBERNETES_SERVICE_HOST/PORT, PATH, HOME), `valueFrom` resolved (fieldRef, secretKeyRef), a
 * projected service-account token + `ca.crt` + `namespace` in a directory standing for
 * /var/run/secrets/kubernetes.io/serviceaccount (TINYHOST_SERVICE_ACCOUNT_DIR), and the pod's
 * `runAsUser` (setpriv, when the test runs as root).
 *
 * Not a test file (no `.test.ts`): chart-*.test.ts import it.
 */
import { chmodSync, copyFileSync, cpSync, existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import YAML from "yaml";
import type { ControlPlane } from "../support/control-plane.ts";
import { goTool } from "../support/go-tools.ts";
import { startProcess, type ManagedProcess } from "../support/process.ts";
import {
  clusterRoleBindings,
  clusterRoles,
  ingresses,
  roleBindings,
  roles,
  secrets,
  serviceAccounts,
  services,
  type ApplyConfiguration,
  type KubeClient,
  type KubeObject,
  type ResourceDescriptor,
} from "../../src/k8s/client/index.ts";

const ROOT = resolve(import.meta.dir, "../..");
/** The SDK version whose chart is rendered (test/go/go.mod pins the same). */
export const SDK_VERSION = "v0.13.125";
/** The compiled binary (`npm run build`). */
export const BINARY = join(ROOT, "dist/tinyhost");

/** A rendered manifest object. */
export interface RenderedObject extends KubeObject {
  apiVersion: string;
  kind: string;
  metadata: KubeObject["metadata"] & { name: string; annotations?: Record<string, string> };
  spec?: Record<string, unknown>;
}

/** A container of a rendered pod template. */
export interface RenderedContainer {
  name: string;
  image: string;
  command?: string[];
  args?: string[];
  env?: { name: string; value?: string; valueFrom?: { fieldRef?: { fieldPath: string }; secretKeyRef?: { name: string; key: string } } }[];
  securityContext?: Record<string, unknown>;
  resources?: { limits?: Record<string, string>; requests?: Record<string, string> };
}

/** A rendered pod template's spec (the fields these tests read). */
export interface RenderedPodSpec {
  serviceAccountName?: string;
  securityContext?: { runAsUser?: number; runAsGroup?: number };
  containers: RenderedContainer[];
}

/** The pod template spec of a Deployment, StatefulSet or Job. */
export function podSpecOf(o: RenderedObject): RenderedPodSpec {
  return (o.spec as { template: { spec: RenderedPodSpec } }).template.spec;
}

/**
 * The tinysystems-operator chart of the SDK, copied to a temp dir. Only change: the `postgresql`
 * (pgvector bundle) dependency is dropped from Chart.yaml — it is disabled by default
 * (`pgvector.enabled: false`) and lives in a remote repository `helm dependency build` cannot reach
 * here; every template is the SDK's own.
 * @throws Error when the SDK is not in the Go module cache.
 */
export async function prepareChart(): Promise<string> {
  await goTool("hooks"); // building the Go tools downloads the SDK module into the cache
  const proc = Bun.spawnSync(["go", "env", "GOMODCACHE"], { stdout: "pipe" });
  const cache = proc.stdout.toString().trim();
  const source = join(cache, `github.com/tiny-systems/module@${SDK_VERSION}/charts/tinysystems-operator`);
  if (!existsSync(source)) throw new Error(`the SDK's chart is not at ${source}`);
  const dir = mkdtempSync(join(process.env.TINYHOST_TEST_TMP ?? tmpdir(), "chart-"));
  cpSync(source, dir, { recursive: true });
  for (const f of [join(dir, "Chart.yaml"), join(dir, "Chart.lock")]) chmodSync(f, 0o644);
  const chart = YAML.parse(readFileSync(join(dir, "Chart.yaml"), "utf8")) as { dependencies?: { name: string }[] };
  chart.dependencies = (chart.dependencies ?? []).filter((d) => d.name !== "postgresql");
  writeFileSync(join(dir, "Chart.yaml"), YAML.stringify(chart));
  rmSync(join(dir, "Chart.lock"));
  return dir;
}

/**
 * `helm template <release> <chart> --namespace <ns> [--set k=v …] [-f file …]`, parsed. The chart's
 * manager Service repeats selector keys, so duplicate keys are allowed (the later one wins, as in
 * Helm's own YAML decoding).
 * @throws Error with helm's stderr when rendering fails.
 */
export async function helmTemplate(
  chartDir: string,
  release: string,
  namespace: string,
  values: string[] = [],
  files: string[] = [],
): Promise<RenderedObject[]> {
  const helm = await goTool("helm");
  const home = mkdtempSync(join(tmpdir(), "helm-home-"));
  try {
    const r = Bun.spawnSync(
      [helm, "template", release, chartDir, "--namespace", namespace, ...values.flatMap((v) => ["--set", v]), ...files.flatMap((f) => ["-f", f])],
      {
        stdout: "pipe",
        stderr: "pipe",
        env: {
          PATH: process.env.PATH ?? "",
          HOME: home,
          HELM_CACHE_HOME: join(home, "cache"),
          HELM_CONFIG_HOME: join(home, "config"),
          HELM_DATA_HOME: join(home, "data"),
        },
      },
    );
    if (r.exitCode !== 0) throw new Error(`helm template failed (exit ${r.exitCode}): ${r.stderr.toString()}`);
    return YAML.parseAllDocuments(r.stdout.toString(), { uniqueKeys: false })
      .map((d) => d.toJSON() as RenderedObject | null)
      .filter((o): o is RenderedObject => o !== null && typeof o === "object" && typeof o.kind === "string");
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
}

/** The one rendered object of `kind` whose name ends with `suffix`. */
export function findRendered(objects: RenderedObject[], kind: string, suffix: string): RenderedObject {
  const found = objects.filter((o) => o.kind === kind && o.metadata.name.endsWith(suffix));
  if (found.length !== 1) throw new Error(`expected one ${kind} *${suffix}, found ${found.map((o) => o.metadata.name).join(", ") || "none"}`);
  return found[0]!;
}

const RBAC_KINDS: Record<string, ResourceDescriptor<KubeObject>> = {
  ServiceAccount: serviceAccounts as ResourceDescriptor<KubeObject>,
  ClusterRole: clusterRoles as ResourceDescriptor<KubeObject>,
  ClusterRoleBinding: clusterRoleBindings as ResourceDescriptor<KubeObject>,
  Role: roles as ResourceDescriptor<KubeObject>,
  RoleBinding: roleBindings as ResourceDescriptor<KubeObject>,
  Service: services as ResourceDescriptor<KubeObject>,
  Ingress: ingresses as ResourceDescriptor<KubeObject>,
};

/**
 * Applies the rendered ServiceAccounts, RBAC, Service and Ingress (server-side apply, as the test
 * admin) into `namespace`; workloads are left out (no controller manager runs them: the tests
 * start their containers themselves).
 * @returns the kinds/names applied.
 */
export async function applyRendered(kube: KubeClient, objects: RenderedObject[], namespace: string): Promise<string[]> {
  const applied: string[] = [];
  for (const o of objects) {
    const res = RBAC_KINDS[o.kind];
    if (!res) continue;
    const object = { ...o, metadata: { ...o.metadata, ...(res.namespaced ? { namespace } : {}) } };
    await kube.apply(res, object as unknown as ApplyConfiguration<KubeObject>, { fieldManager: "helm", force: true, ...(res.namespaced ? { namespace } : {}) });
    applied.push(`${o.kind}/${o.metadata.name}`);
  }
  return applied;
}

/** What the kubelet would mount for a pod's service account: a directory with token, ca.crt, namespace. */
export interface ServiceAccountMount {
  dir: string;
  token: string;
  /** A kubeconfig with the same token (for the Go oracle, whose in-cluster path is fixed). */
  kubeconfig: string;
}

/**
 * Mints a token for ServiceAccount `name` in `namespace` with the TokenRequest API (the projected
 * token a pod gets) and writes the mount. Files are world-readable so the pod's uid can read them.
 * @throws Error with the apiserver's answer.
 */
export async function mountServiceAccount(cp: ControlPlane, namespace: string, name: string): Promise<ServiceAccountMount> {
  const res = await cp.request("POST", `/api/v1/namespaces/${namespace}/serviceaccounts/${name}/token`, {
    apiVersion: "authentication.k8s.io/v1",
    kind: "TokenRequest",
    spec: { expirationSeconds: 3600 },
  });
  if (!res.ok) throw new Error(`TokenRequest for ${namespace}/${name}: HTTP ${res.status} ${await res.text()}`);
  const token = ((await res.json()) as { status: { token: string } }).status.token;
  const dir = mkdtempSync(join(podReadableTmp(), "sa-"));
  chmodSync(dir, 0o755);
  made.push(dir);
  writeFileSync(join(dir, "token"), token, { mode: 0o644 });
  writeFileSync(join(dir, "ca.crt"), cp.caPem, { mode: 0o644 });
  writeFileSync(join(dir, "namespace"), namespace, { mode: 0o644 });
  const kubeconfig = join(dir, "kubeconfig");
  writeFileSync(
    kubeconfig,
    YAML.stringify({
      apiVersion: "v1",
      kind: "Config",
      clusters: [{ name: "c", cluster: { server: cp.server, "certificate-authority-data": Buffer.from(cp.caPem).toString("base64") } }],
      users: [{ name: "sa", user: { token } }],
      contexts: [{ name: "c", context: { cluster: "c", user: "sa", namespace } }],
      "current-context": "c",
    }),
    { mode: 0o644 },
  );
  return { dir, token, kubeconfig };
}

/**
 * A parent directory the pod's uid can traverse: the system temp dir (the suite's run dir is
 * private to root). Directories made here are removed by {@link cleanupPodDirs}.
 */
function podReadableTmp(): string {
  return tmpdir();
}

const made: string[] = [];

/** Removes the service-account mounts and binary copies made by this process. */
export function cleanupPodDirs(): void {
  for (const d of made.splice(0)) rmSync(d, { recursive: true, force: true });
}

/**
 * The image's binary (default: dist/tinyhost), copied where the pod's uid can execute it (the
 * worktree and the cache under a private home may not be readable by it).
 */
export function imageBinary(source = BINARY): string {
  if (!existsSync(source)) throw new Error(`${source} is missing: build it first (scripts/build.ts)`);
  const dir = mkdtempSync(join(podReadableTmp(), "image-"));
  chmodSync(dir, 0o755);
  made.push(dir);
  const path = join(dir, "manager");
  copyFileSync(source, path);
  chmodSync(path, 0o755);
  if ((statSync(path).mode & 0o005) !== 0o005) throw new Error(`${path} is not world-executable`);
  return path;
}

/** The image's user (Dockerfile `USER 65532:65532`): what a container runs as when the pod sets no runAsUser. */
export const IMAGE_UID = 65532;

/** Where a container runs: the pod's identity and the apiserver it sees. */
export interface PodContext {
  cp: ControlPlane;
  kube: KubeClient;
  namespace: string;
  /** Pod name: HOSTNAME and `metadata.name`. */
  podName: string;
  /** The compiled binary standing for the image's `/manager`. */
  binary: string;
  mount: ServiceAccountMount;
  /** uid/gid from the pod's securityContext, else the image's USER (applied with setpriv when the test runs as root). */
  runAsUser?: number;
  runAsGroup?: number;
}

/** The container's argv and environment as the kubelet would build them. */
export interface ContainerCommand {
  argv: string[];
  env: Record<string, string>;
}

/**
 * Builds argv and env of a rendered container: `command` + `args` with `/manager` resolved to the
 * binary; env values, `fieldRef` (metadata.namespace, metadata.name) and `secretKeyRef` (read from
 * the apiserver) resolved, `$(VAR)` references expanded (Kubernetes "Define Dependent Environment
 * Variables"); then the kubelet's own variables.
 * @throws Error for a valueFrom the bed does not know.
 */
export async function containerCommand(c: RenderedContainer, ctx: PodContext): Promise<ContainerCommand> {
  const env: Record<string, string> = {};
  for (const e of c.env ?? []) {
    if (e.value !== undefined) env[e.name] = e.value.replace(/\$\(([A-Za-z_][A-Za-z0-9_]*)\)/g, (m, v: string) => env[v] ?? m);
    else if (e.valueFrom?.fieldRef?.fieldPath === "metadata.namespace") env[e.name] = ctx.namespace;
    else if (e.valueFrom?.fieldRef?.fieldPath === "metadata.name") env[e.name] = ctx.podName;
    else if (e.valueFrom?.secretKeyRef) {
      const s = await ctx.kube.get(secrets, e.valueFrom.secretKeyRef.name, ctx.namespace);
      env[e.name] = Buffer.from(s.data?.[e.valueFrom.secretKeyRef.key] ?? "", "base64").toString("utf8");
    } else throw new Error(`env ${e.name}: valueFrom ${JSON.stringify(e.valueFrom)} is not supported by the test bed`);
  }
  const url = new URL(ctx.cp.server);
  Object.assign(env, {
    PATH: "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
    HOME: "/",
    HOSTNAME: ctx.podName,
    KUBERNETES_SERVICE_HOST: url.hostname,
    KUBERNETES_SERVICE_PORT: url.port,
    TINYHOST_SERVICE_ACCOUNT_DIR: ctx.mount.dir,
  });
  const command = (c.command ?? []).map((p) => (p === "/manager" ? ctx.binary : p));
  return { argv: [...command, ...(c.args ?? [])], env };
}

/** argv prefix that clears the environment and, as root, switches to the pod's uid/gid. */
function launcher(ctx: PodContext, env: Record<string, string>): string[] {
  const asUser =
    process.getuid?.() === 0 && ctx.runAsUser !== undefined
      ? ["setpriv", `--reuid=${ctx.runAsUser}`, `--regid=${ctx.runAsGroup ?? ctx.runAsUser}`, "--clear-groups"]
      : [];
  return [...asUser, "env", "-i", ...Object.entries(env).map(([k, v]) => `${k}=${v}`)];
}

/** Result of a Job container. */
export interface JobResult {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * Runs a Job's container to completion (60 s limit), from `/` like a container with no WORKDIR.
 * @param extraEnv - added after the kubelet's variables (e.g. a log level).
 */
export async function runJobContainer(c: RenderedContainer, ctx: PodContext, extraEnv: Record<string, string> = {}): Promise<JobResult> {
  const { argv, env } = await containerCommand(c, ctx);
  const r = Bun.spawnSync([...launcher(ctx, { ...env, ...extraEnv }), ...argv], { cwd: "/", stdout: "pipe", stderr: "pipe", timeout: 60_000 });
  return { code: r.exitCode ?? -1, stdout: r.stdout.toString(), stderr: r.stderr.toString() };
}

/**
 * Starts a long-running container (the Deployment's manager) with its output in `logFile`.
 * @param argvEdit - optional edit of argv (a test moves fixed ports that are taken on this machine).
 */
export async function startContainer(
  c: RenderedContainer,
  ctx: PodContext,
  logFile: string,
  argvEdit: (argv: string[]) => string[] = (a) => a,
): Promise<ManagedProcess> {
  const { argv, env } = await containerCommand(c, ctx);
  return startProcess({ name: `container ${c.name}`, cmd: [...launcher(ctx, env), ...argvEdit(argv)], logFile, cwd: "/" });
}

/** Lines of a process's stderr that are not JSON log lines (what a person reads in `kubectl logs`). */
export function messageLines(stderr: string): string {
  return stderr
    .split("\n")
    .filter((l) => l.trim() !== "" && !l.startsWith("{"))
    .join("\n");
}
