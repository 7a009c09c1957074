/**
 * A tinyhost image installed with the platform's own tinysystems-operator chart, unchanged
 * (issue 15): the real chart of the Go SDK rendered by a real `helm template`, its RBAC applied to
 * the test apiserver, and the compiled binary started exactly as the rendered pre-install Job, the
 * Deployment and the pre-delete Job say (command `/manager`, args, env, the pod's uid, a projected
 * service-account token, in-cluster config) — chart-pod.ts. The module therefore runs with the
 * chart's own permissions, nothing more.
 *
 * The hooks are compared with the real Go SDK's (test/go/hooks, the SDK's cli behind a module-style
 * main): same messages and exit codes where Go checks; where the chart's default hook args make Go
 * stop before checking (cobra: required flag "name"), the test pins that too — docs/compatibility.md
 * "Chart hooks".
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { getControlPlane, type ControlPlane } from "../support/control-plane.ts";
import { goTool } from "../support/go-tools.ts";
import { freePort, tail, waitUntil, type ManagedProcess } from "../support/process.ts";
import { createKubeClient, isNotFound, namespaces, type KubeClient } from "../../src/k8s/client/index.ts";
import { sanitizeResourceName } from "../../src/core/api/index.ts";
import type { TinyNode } from "../../src/core/api/index.ts";
import { tinyModules, tinyNodes } from "../../src/k8s/controllers/index.ts";
import {
  applyRendered,
  cleanupPodDirs,
  findRendered,
  IMAGE_UID,
  helmTemplate,
  imageBinary,
  messageLines,
  mountServiceAccount,
  podSpecOf,
  prepareChart,
  runJobContainer,
  startContainer,
  type PodContext,
  type RenderedContainer,
  type RenderedObject,
} from "./chart-pod.ts";

const ROOT = resolve(import.meta.dir, "../..");
/** Helm release name; the chart's fullname (and default module name) is `<release>-tinysystems-operator`. */
const RELEASE = "shop";
const FULLNAME = `${RELEASE}-tinysystems-operator`;
/** What the platform passes (js-module README: only the image repository). */
const IMAGE_VALUES = ["controllerManager.manager.image.repository=registry.example.com/acme/shop", "controllerManager.manager.image.tag=1.2.0"];

let cp: ControlPlane;
let kube: KubeClient;
let chart: string;
let binary: string;
let hooks: string;
let work: string;
const running: ManagedProcess[] = [];

beforeAll(async () => {
  cp = await getControlPlane();
  kube = await createKubeClient({ kubeconfig: cp.tokenKubeconfig, env: {} });
  const build = Bun.spawnSync([process.execPath, "scripts/build.ts"], { cwd: ROOT, stdout: "pipe", stderr: "pipe" });
  if (build.exitCode !== 0) throw new Error(`npm run build failed:\n${build.stderr.toString()}`);
  [chart, hooks] = await Promise.all([prepareChart(), goTool("hooks")]);
  binary = imageBinary();
  hooks = imageBinary(hooks);
  work = mkdtempSync(join(process.env.TINYHOST_TEST_TMP ?? tmpdir(), "chart-run-"));
}, 900_000);

afterAll(async () => {
  await Promise.all(running.map((p) => p.stop(9_000)));
  cleanupPodDirs();
});

/** A namespace, labelled `tinysystems.io/managed=true` unless `managed` is false. */
async function namespace(prefix: string, managed = true): Promise<string> {
  const ns = await cp.newNamespace(prefix);
  if (managed) await kube.mergePatch(namespaces, ns, { metadata: { labels: { "tinysystems.io/managed": "true" } } });
  return ns;
}

/** Renders the chart into `ns` and applies its accounts and RBAC; returns the rendered objects. */
async function install(ns: string, values: string[] = []): Promise<RenderedObject[]> {
  const objects = await helmTemplate(chart, RELEASE, ns, [...IMAGE_VALUES, ...values]);
  await applyRendered(kube, objects, ns);
  return objects;
}

/** The pod a rendered workload would make: its service account mounted, its uid, a pod name. */
async function pod(workload: RenderedObject, ns: string, podName: string): Promise<PodContext & { container: RenderedContainer }> {
  const spec = podSpecOf(workload);
  const account = spec.serviceAccountName ?? "default";
  return {
    cp,
    kube,
    namespace: ns,
    podName,
    binary,
    mount: await mountServiceAccount(cp, ns, account),
    runAsUser: spec.securityContext?.runAsUser ?? IMAGE_UID,
    runAsGroup: spec.securityContext?.runAsGroup ?? spec.securityContext?.runAsUser ?? IMAGE_UID,
    container: spec.containers[0]!,
  };
}

/** The same container run with the Go SDK's binary as `/manager` (its in-cluster path is fixed, so it gets the token as KUBECONFIG). */
async function runGo(ctx: PodContext & { container: RenderedContainer }, args?: string[]) {
  const container = { ...ctx.container, ...(args ? { args } : {}) };
  return runJobContainer(container, { ...ctx, binary: hooks }, { KUBECONFIG: ctx.mount.kubeconfig });
}

describe("the chart's pre-install hook Job", () => {
  test("renders `/manager pre-install` with RELEASE_NAMESPACE from the pod and the hook's own ServiceAccount", async () => {
    const ns = await namespace("chart-pi-shape");
    const job = findRendered(await install(ns), "Job", "-pre-install-hook");
    expect(job.metadata.annotations?.["helm.sh/hook"]).toBe("pre-install,pre-upgrade");
    const spec = podSpecOf(job);
    expect(spec.serviceAccountName).toBe(`${FULLNAME}-pre-install`);
    expect(spec.containers[0]!.command).toEqual(["/manager"]);
    expect(spec.containers[0]!.args).toEqual(["pre-install"]);
    expect(spec.containers[0]!.env).toEqual([{ name: "RELEASE_NAMESPACE", valueFrom: { fieldRef: { fieldPath: "metadata.namespace" } } }]);
  });

  test("accepts a namespace labelled tinysystems.io/managed=true (exit 0) with the hook's pinned namespace read", async () => {
    const ns = await namespace("chart-pi-ok");
    const ctx = await pod(findRendered(await install(ns), "Job", "-pre-install-hook"), ns, "pre-install-ok");
    const r = await runJobContainer(ctx.container, ctx);
    expect({ code: r.code, message: messageLines(r.stderr) }).toEqual({ code: 0, message: "" });
  });

  test("refuses a namespace without the label, exit 1, with the Go SDK's message — Go itself only when given --name", async () => {
    const ns = await namespace("chart-pi-unlabelled", false);
    const ctx = await pod(findRendered(await install(ns), "Job", "-pre-install-hook"), ns, "pre-install-no-label");
    const ours = await runJobContainer(ctx.container, ctx);
    expect(ours.code).toBe(1);
    expect(messageLines(ours.stderr)).toBe(
      `pre-install: namespace "${ns}" is not labeled for tinysystems. Either label this namespace to dedicate it:\n` +
        `  kubectl label namespace ${ns} tinysystems.io/managed=true\n` +
        "or pick a different namespace already labeled. This prevents accidentally installing modules into namespaces shared with unrelated workloads.",
    );
    // The chart's default args: Go's cobra stops at the required --name flag and the module's main exits 0 — the check never runs.
    const goDefault = await runGo(ctx);
    expect({ code: goDefault.code, out: goDefault.stdout.trim() }).toEqual({ code: 0, out: 'command execute error: required flag(s) "name" not set' });
    // With the args `tiny install` sets (installArgs: pre-install --name=R --namespace=N) Go checks, and says the same as we do.
    const tinyArgs = ["pre-install", `--name=${RELEASE}`, `--namespace=${ns}`];
    const goTiny = await runGo(ctx, tinyArgs);
    const oursTiny = await runJobContainer({ ...ctx.container, args: tinyArgs }, ctx);
    expect({ code: oursTiny.code, message: messageLines(oursTiny.stderr) }).toEqual({ code: goTiny.code, message: messageLines(goTiny.stderr) });
    expect(goTiny.code).toBe(1);
  });

  test("refuses kube-system, exit 1, with the Go SDK's message", async () => {
    const ctx = await pod(findRendered(await install("kube-system"), "Job", "-pre-install-hook"), "kube-system", "pre-install-reserved");
    const ours = await runJobContainer(ctx.container, ctx);
    const go = await runGo(ctx, ["pre-install", `--name=${RELEASE}`]);
    expect(ours.code).toBe(1);
    expect(messageLines(ours.stderr)).toBe(
      'pre-install: refusing to install into reserved namespace "kube-system". Create a dedicated namespace:\n' +
        "  kubectl create namespace tinysystems\n" +
        "  kubectl label namespace tinysystems tinysystems.io/managed=true",
    );
    expect({ code: ours.code, message: messageLines(ours.stderr) }).toEqual({ code: go.code, message: messageLines(go.stderr) });
  });
});

describe("the chart's Deployment and pre-delete hook", () => {
  let ns: string;
  let objects: RenderedObject[];
  let health: string;
  let manager: ManagedProcess;
  const moduleName = FULLNAME; // --name={{ moduleName | default fullname }}

  beforeAll(async () => {
    ns = await namespace("chart-run");
    const natsUrl = process.env.TINYHOST_TEST_NATS_URL;
    objects = await install(ns, natsUrl ? [`natsURL=${natsUrl}`] : []);
    const deployment = findRendered(objects, "Deployment", "-controller-manager");
    const ctx = await pod(deployment, ns, `${FULLNAME}-controller-manager-6d4cf56db6-x2x7k`);
    // The chart's ports are fixed (8081 probes, 8080 metrics, 8483 gRPC); on a shared machine one may be
    // taken, so a taken one moves to a free port — nothing else of the rendered argv changes.
    const moved = new Map<string, number>();
    const argvEdit = (argv: string[]) =>
      argv.map((a) => {
        const m = /^(--[a-z-]+-bind-address=(?:[\d.]*)):(\d+)$/.exec(a);
        if (!m) return a;
        const port = Number(m[2]);
        const probe = Bun.spawnSync(["bash", "-c", `exec 3<>/dev/tcp/127.0.0.1/${port}`], { stderr: "ignore" });
        if (probe.exitCode !== 0) return a; // nothing listens: use the chart's port
        const free = freePort();
        moved.set(m[1]!, free);
        return `${m[1]}:${free}`;
      });
    manager = await startContainer(ctx.container, ctx, join(work, "manager.log"), argvEdit);
    running.push(manager);
    const probePort = moved.get("--health-probe-bind-address=") ?? 8081;
    health = `http://127.0.0.1:${probePort}`;
    await waitUntil(
      "the manager's /readyz",
      async () => {
        const gone = await Promise.race([manager.exited.then(() => true), Bun.sleep(0).then(() => false)]);
        if (gone) throw new Error(`the manager exited:\n${await tail(join(work, "manager.log"), 30)}`);
        return (await fetch(`${health}/readyz`)).ok;
      },
      60_000,
      200,
    );
  }, 120_000);

  test("the rendered container is `/manager run` with the chart's args and env, as uid 65532 with a 128Mi limit", () => {
    const spec = podSpecOf(findRendered(objects, "Deployment", "-controller-manager"));
    const c = spec.containers[0]!;
    expect(c.command).toEqual(["/manager"]);
    expect(c.args).toEqual([
      "run",
      "--health-probe-bind-address=:8081",
      "--metrics-bind-address=127.0.0.1:8080",
      "--grpc-server-bind-address=:8483",
      `--name=${FULLNAME}`,
      "--version=1.2.0",
      `--namespace=${ns}`,
    ]);
    expect((c.env ?? []).map((e) => e.name)).toEqual([
      "OTLP_DSN",
      "RELEASE_NAME",
      "RELEASE_NAMESPACE",
      "KUBERNETES_CLUSTER_DOMAIN",
      "SELF_SERVICE_HOST",
      ...(process.env.TINYHOST_TEST_NATS_URL ? ["TINY_NATS_URL"] : []),
    ]);
    expect(spec.securityContext).toMatchObject({ runAsUser: 65532, runAsNonRoot: true });
    expect(c.resources?.limits?.memory).toBe("128Mi");
  });

  test("becomes ready and registers its TinyModule with the chart's permissions only", async () => {
    expect((await fetch(`${health}/healthz`)).status).toBe(200);
    let mod;
    await waitUntil(
      "TinyModule status written by the leader",
      async () => {
        mod = await kube.get(tinyModules, sanitizeResourceName(moduleName), ns);
        return (mod.status?.addr ?? "") !== "";
      },
      30_000,
    );
    expect(mod!.spec?.image).toBe(`${moduleName}:1.2.0`);
    expect(mod!.status?.name).toBe(moduleName);
    expect(mod!.status?.version).toBe("1.2.0");
    expect((mod!.status?.components ?? []).length).toBeGreaterThanOrEqual(12);
  });

  test("reconciles a TinyNode of the module (finalizer and OK status) under the chart's RBAC", async () => {
    const name = `a1b2c3d4.${sanitizeResourceName(moduleName)}.ticker-chart1`;
    await kube.create(tinyNodes, { metadata: { name, namespace: ns }, spec: { module: moduleName, component: "ticker", ports: [] } } as never, {
      namespace: ns,
    });
    let node: TinyNode | undefined;
    await waitUntil(
      "the node's status",
      async () => {
        node = await kube.get(tinyNodes, name, ns);
        return node.status?.observedGeneration === node.metadata.generation && node.status?.status === "OK";
      },
      30_000,
    ).catch(async (e: Error) => {
      throw new Error(`${e.message}; node: ${JSON.stringify(node)}\nmanager log:\n${await tail(join(work, "manager.log"), 40)}`);
    });
    expect(node!.metadata.finalizers).toContain("io.tinysystems/node-finalizer");
  });

  test("the pre-delete Job deletes the TinyModule (Go's SDK, with the chart's default args, leaves it)", async () => {
    const job = findRendered(objects, "Job", "-pre-delete-hook");
    expect(job.metadata.annotations?.["helm.sh/hook"]).toBe("pre-delete");
    const ctx = await pod(job, ns, `${FULLNAME}-pre-delete-hook-7xkq2`);
    expect(ctx.container.args).toEqual(["pre-delete"]);
    expect(podSpecOf(job).serviceAccountName).toBe(`${FULLNAME}-controller-manager`);

    const go = await runGo(ctx);
    expect({ code: go.code, out: go.stdout.trim() }).toEqual({ code: 0, out: 'command execute error: required flag(s) "name" not set' });
    await kube.get(tinyModules, sanitizeResourceName(moduleName), ns); // still there

    const ours = await runJobContainer(ctx.container, ctx);
    expect(ours.code).toBe(0);
    let gone = false;
    try {
      await kube.get(tinyModules, sanitizeResourceName(moduleName), ns);
    } catch (e) {
      gone = isNotFound(e);
    }
    expect(gone).toBe(true);
    // Helm deletes the Deployment next: the module stops cleanly.
    await manager.stop(9_000);
    const code = await manager.exited;
    if (code !== 0) throw new Error(`the manager exited ${code}:\n${await tail(join(work, "manager.log"), 25)}`);
  });
});

describe("tools rbac-values", () => {
  test("the overlay renders through the chart into the R-extra Role, unchanged", async () => {
    const r = Bun.spawnSync([binary, "tools", "rbac-values"], {
      stdout: "pipe",
      stderr: "pipe",
      env: { TINYHOST_LOG_LEVEL: "silent", PATH: process.env.PATH ?? "" },
    });
    expect(r.exitCode).toBe(0);
    const file = join(work, "rbac-values.yaml");
    writeFileSync(file, r.stdout.toString());
    const { chartRbacValues } = await import("../../src/provision/index.ts");
    const expected = chartRbacValues([{ name: "http_server", usesClient: true }])!;
    const objects = await helmTemplate(chart, RELEASE, "chart-values", IMAGE_VALUES, [file]);
    const extra = findRendered(objects, "Role", "-extra");
    expect((extra as unknown as { rules: unknown }).rules).toEqual(expected.rbac.extraNamespacedRules);
  });
});

describe("tools keda-values --chart-values", () => {
  /** The container env as the kubelet resolves it: the last entry of a name wins. */
  const effectiveEnv = (c: RenderedContainer) => new Map((c.env ?? []).map((e) => [e.name, e]));

  test("the overlay renders through the chart: JetStream, the token by secretKeyRef before the URL that uses it, no credential in any value or arg", async () => {
    const r = Bun.spawnSync(
      [
        binary,
        "tools",
        "keda-values",
        "--release",
        RELEASE,
        "--chart-values",
        "--autoscale",
        "min=0,max=4",
        "--nats-url",
        "nats://nats.infra.svc:4222",
        "--nats-token-secret",
        "nats-auth/tok",
      ],
      { stdout: "pipe", stderr: "pipe", env: { TINYHOST_LOG_LEVEL: "silent", PATH: process.env.PATH ?? "" } },
    );
    expect(r.exitCode).toBe(0);
    expect(r.stderr.toString()).toContain("warning: min=0"); // the scale-to-zero warning, nothing else
    const file = join(work, "keda-values.yaml");
    writeFileSync(file, r.stdout.toString());
    const objects = await helmTemplate(chart, RELEASE, "chart-values", IMAGE_VALUES, [file]);
    const deployment = findRendered(objects, "Deployment", "-controller-manager");
    expect((deployment.spec as { replicas: number }).replicas).toBe(1);
    const manager = podSpecOf(deployment).containers.find((c) => c.name === "manager")!;
    const env = effectiveEnv(manager);
    expect(env.get("TINY_NATS_TRANSPORT")?.value).toBe("jetstream");
    expect(env.get("TINYHOST_AUTOSCALE_MIN")?.value).toBe("0");
    expect(env.get("NATS_TOKEN")?.valueFrom).toEqual({ secretKeyRef: { name: "nats-auth", key: "tok" } });
    expect(env.get("TINY_NATS_URL")?.value).toBe("nats://$(NATS_TOKEN)@nats.infra.svc:4222");
    // $(NATS_TOKEN) expands only when NATS_TOKEN is defined earlier in the list (Kubernetes' dependent env rule).
    const names = (manager.env ?? []).map((e) => e.name);
    expect(names.indexOf("NATS_TOKEN")).toBeLessThan(names.lastIndexOf("TINY_NATS_URL"));
    const hook = objects.find((o) => o.kind === "Job" && o.metadata.annotations?.["helm.sh/hook"]?.includes("pre-install"));
    const hookArgs = hook ? podSpecOf(hook).containers.flatMap((c) => c.args ?? []) : [];
    expect(hookArgs).toContain(`--name=${FULLNAME}`);
    const rendered = JSON.stringify(objects);
    expect(rendered).not.toMatch(/nats:\/\/[^$@"\s]+@/);
  });
});
