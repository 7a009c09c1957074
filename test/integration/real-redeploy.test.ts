/**
 * Redeploy under load on the real node (issue 31 item 5): the mission's loop — a component file
 * saved into components/, the image rebuilt from the Dockerfile (scripts/image), `helm upgrade` of
 * the platform's chart (2 replicas, the chart's RollingUpdate with maxUnavailable 0) to the new
 * tag — timed from the file saved to the new component answering through the Ingress (Traefik, by
 * Host header), while load flows:
 * - HTTP at a steady {@link HTTP_RATE} req/s through the Ingress into an http_server of the module
 *   (its port exposed with ExposePort on the release's Service and Ingress): sent / 2xx / non-2xx
 *   / connection errors;
 * - {@link RUNS} × 3 = 10,002 JetStream durable hops through `redeploy_step` ×3
 *   (test/fixtures/redeploy-components, built into the image): each step journals `{pod, node,
 *   runId}` over NATS before its hop is acked, so sent / completed / duplicated / lost are counted
 *   from the journal (as rolling-update.test.ts counts them from a file), plus the server's
 *   MSG_TERMINATED advisories.
 * Two rollouts: first with the chart's defaults (no preStop in the chart, termination grace 10 s):
 * a pod's listener closed at SIGTERM while Traefik still routes to it (it drops endpoints up to
 * ~2 s later) — figures reported, hops asserted; then with the recommended value
 * `TINYHOST_STOP_DELAY_MS` set through the chart's `controllerManager.manager.extraEnv`
 * (docs/operations.md §11): 0 failed requests, 0 lost, 0 duplicated asserted.
 * No wall-clock assertion: the times are printed (bench/RESULTS.md "Redeploy on a real node").
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { copyFileSync, cpSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import YAML from "yaml";
import type { NatsConnection } from "@nats-io/transport-node";
import { getRealCluster, type RealCluster } from "../support/real-cluster.ts";
import { clusterApi, newReleaseNamespace, openHelm, startNatsPod, type Helm } from "../support/real-release.ts";
import { waitUntil } from "../support/process.ts";
import { sendSignal } from "../support/flows.ts";
import { prepareChart } from "./chart-pod.ts";
import { openBuildContext, ROOT, type BuildContext, type BuiltImage } from "../../scripts/image/build-context.ts";
import { buildModuleImage } from "../../scripts/image/module-image.ts";
import { buildNatsImage } from "../../scripts/image/nats-image.ts";
import { splitImage } from "../../src/provision/options.ts";
import { buildFlow, type FlowDescription } from "../../src/cli/scaffold/flow-builder.ts";
import { createKubeClient, type KubeClient, type KubeObject, type ResourceDescriptor } from "../../src/k8s/client/index.ts";
import { RESOURCES, type TinyKind } from "../../src/core/api/index.ts";
import { connectNats } from "../../src/transport/nats/connect.ts";
import { JetStreamTransport } from "../../src/transport/nats/jetstream.ts";
import { mintRun } from "../../src/core/durable/run.ts";

/** The cold build of the node's binaries can take half an hour on 2 busy cores; the images 5–8 min. */
const START_TIMEOUT_MS = 60 * 60_000;
const RELEASE = "shop";
const FULLNAME = `${RELEASE}-tinysystems-operator`;
const MODULE_LABEL = encodeURIComponent("control-plane=controller-manager");
/** Durable runs per rollout, three hops each: 10,002 hops (the issue's 10,000). */
const RUNS = 3334;
/** Runs sent per 100 ms: the 3,334 runs span ~30 s, the length of a rollout of two pods here. */
const RUNS_PER_TICK = 11;
/** Work per step, ms: hops are in flight when a replica gets SIGTERM. */
const HOLD_MS = 100;
/** HTTP requests per second through the Ingress during a rollout. */
const HTTP_RATE = 50;
/** The value docs/operations.md §11 recommends (Traefik drops an endpoint up to ~2 s after the pod's SIGTERM). */
const STOP_DELAY_MS = 4000;
const LOAD_HOST = "load.redeploy.test";
const NEW_HOST = "new.redeploy.test";
const LOG = join(process.env.TINYHOST_TEST_TMP ?? tmpdir(), "real-redeploy-build.log");

let cluster: RealCluster;
let helm: Helm;
let chart: string;
let ctx: BuildContext;
let ns: string;
let natsUrl: string;
let nc: NatsConnection;
let kube: KubeClient;
let sender: JetStreamTransport;
/** The build context: a copy of the repository's, whose components/ the test adds to. */
let contextDir: string;
let valuesFile: string;
let firstImage: BuiltImage;
let steps: { s1: string; s2: string; s3: string };
/** Every journal line the steps published. */
const journal: { pod: string; node: string; runId: string }[] = [];
/** MSG_TERMINATED advisories of the module's consumer. */
const terminated: string[] = [];

interface Condition {
  type: string;
  status: string;
}
interface PodInfo {
  metadata: { name: string; deletionTimestamp?: string };
  status: { conditions?: Condition[]; containerStatuses?: { restartCount: number }[] };
}
interface DeploymentInfo {
  metadata: { generation: number };
  status: { observedGeneration?: number; replicas?: number; updatedReplicas?: number; availableReplicas?: number; readyReplicas?: number };
}

const isReady = (p: PodInfo) => !p.metadata.deletionTimestamp && (p.status.conditions ?? []).some((c) => c.type === "Ready" && c.status === "True");

async function modulePods(): Promise<PodInfo[]> {
  return (await clusterApi(cluster).call<{ items: PodInfo[] }>("GET", `/api/v1/namespaces/${ns}/pods?labelSelector=${MODULE_LABEL}`)).items;
}

async function deployment(): Promise<DeploymentInfo> {
  return clusterApi(cluster).call<DeploymentInfo>("GET", `/apis/apps/v1/namespaces/${ns}/deployments/${FULLNAME}-controller-manager`);
}

/** The rollout after generation `gen0` is over: new spec observed, two updated replicas Ready, no old pod left (terminating ones included). */
async function rolledOut(gen0: number): Promise<boolean> {
  const d = await deployment();
  if (d.metadata.generation <= gen0 || (d.status.observedGeneration ?? 0) < d.metadata.generation) return false;
  if (d.status.updatedReplicas !== 2 || d.status.replicas !== 2 || d.status.availableReplicas !== 2) return false;
  const pods = await modulePods();
  return pods.length === 2 && pods.every(isReady);
}

/** Copies what the Dockerfile copies (and .dockerignore) from the repository into `dir`, plus the durable step. */
function copyBuildContext(dir: string): void {
  for (const f of ["package.json", "package-lock.json", "bunfig.toml", "tsconfig.json", ".dockerignore"]) copyFileSync(join(ROOT, f), join(dir, f));
  for (const d of ["scripts", "src", "components", "crds", "examples"]) cpSync(join(ROOT, d), join(dir, d), { recursive: true });
  copyFileSync(resolve(import.meta.dir, "../fixtures/redeploy-components/redeploy_step.ts"), join(dir, "components", "redeploy_step.ts"));
}

/** The component file the timed loop adds: answers with `greeting`. */
function greetingComponent(greeting: string): string {
  return `/** \`redeploy_greeting\`: added by test/integration/real-redeploy.test.ts to time the redeploy loop. */
import { defineComponent, source, target, Type } from "tinyhost";

export default defineComponent({
  info: { name: "redeploy_greeting", description: "Greeting", info: "answers with this build's greeting", tags: ["test"] },
  ports: () => [target("in", Type.Object({ context: Type.Optional(Type.Unknown()) })), source("out", Type.Object({ greeting: Type.String() }))],
  handle: (_ctx, output) => output("out", { greeting: ${JSON.stringify(greeting)} }),
});
`;
}

/** Creates the TinyProject (once), the TinyFlow and the nodes of `m`. */
const appliedProjects = new Set<string>();
async function applyFlow(desc: FlowDescription): Promise<Map<string, string>> {
  const m = buildFlow({ ...desc, namespace: ns });
  const objects: KubeObject[] = [...(appliedProjects.has(desc.project) ? [] : [m.project]), m.flow, ...m.nodes.values()];
  appliedProjects.add(desc.project);
  for (const o of objects) {
    const res = RESOURCES[o.kind as TinyKind] as ResourceDescriptor<KubeObject>;
    await kube.create(res, { ...o, metadata: { ...o.metadata, namespace: ns } }, { namespace: ns });
  }
  return new Map([...m.nodes].map(([k, n]) => [k, n.metadata.name!]));
}

/** An http_server started by a signal, serving `host`, whose requests go to `handler` (node key) and back to `response`. */
function serverFlow(flow: string, host: string, handler: { component: string; inPort: string; config: unknown }, response: unknown): FlowDescription {
  return {
    project: "redeploy",
    flow,
    module: FULLNAME,
    nodes: {
      start: { component: "signal", settings: { context: {} } },
      server: { component: "http_server", settings: { enableStatusPort: false, enableStopPort: false, maxBodySize: 1 } },
      handler: { component: handler.component },
    },
    edges: [
      { from: "start:out", to: "server:start", configuration: { context: "{{$}}", hostnames: [host], autoHostName: false, readTimeout: 60, writeTimeout: 10 } },
      { from: "server:request", to: `handler:${handler.inPort}`, configuration: handler.config },
      { from: "handler:out", to: "server:response", configuration: response },
    ],
  };
}

/** One GET through the Ingress; status and body, or the error's message. */
async function viaIngress(host: string, path = "/", timeoutMs = 15_000): Promise<{ status: number; body: string } | { error: string }> {
  try {
    const res = await fetch(`${cluster.node.ingressUrl}${path}`, { headers: { host }, signal: AbortSignal.timeout(timeoutMs) });
    return { status: res.status, body: await res.text() };
  } catch (err) {
    return { error: (err as Error).message };
  }
}

/** What a steady HTTP load saw. */
interface HttpTally {
  sent: number;
  ok: number;
  non2xx: Record<string, number>;
  connectionErrors: number;
  /** The first failures of each kind: ms from the load's start, status or error, body. */
  samples: string[];
}

/** Sends GETs to `host` through the Ingress at `perSecond`, each on its own schedule (not waiting for the previous). */
function httpLoad(host: string, perSecond: number): { stop(): Promise<HttpTally> } {
  const tally: HttpTally = { sent: 0, ok: 0, non2xx: {}, connectionErrors: 0, samples: [] };
  const inflight = new Set<Promise<void>>();
  let on = true;
  const t0 = performance.now();
  const kinds = new Map<string, number>();
  const sample = (what: string) => {
    const kind = what.slice(0, 24);
    kinds.set(kind, (kinds.get(kind) ?? 0) + 1);
    if (kinds.get(kind)! <= 4) tally.samples.push(`${Math.round(performance.now() - t0)} ms ${what}`);
  };
  const loop = (async () => {
    for (let i = 0; on; i++) {
      const wait = t0 + (i * 1000) / perSecond - performance.now();
      if (wait > 0) await Bun.sleep(wait);
      tally.sent++;
      const p = viaIngress(host, "/load").then((r) => {
        if ("error" in r) {
          tally.connectionErrors++;
          sample(`error ${r.error}`);
        } else if (r.status >= 200 && r.status < 300) tally.ok++;
        else {
          tally.non2xx[r.status] = (tally.non2xx[r.status] ?? 0) + 1;
          sample(`${r.status} ${r.body.slice(0, 100)}`);
        }
      });
      inflight.add(p);
      void p.finally(() => inflight.delete(p));
    }
  })();
  return {
    async stop() {
      on = false;
      await loop;
      await Promise.all(inflight);
      return tally;
    },
  };
}

/** What the durable load saw. */
interface HopTally {
  sent: number;
  completed: number;
  duplicated: number;
  lost: number;
  terminated: number;
  sendFailures: string[];
  byPod: Record<string, number>;
}

/** Sends {@link RUNS} durable runs at {@link RUNS_PER_TICK} per 100 ms; `counts()` reads the journal for those runs. */
function hopLoad(): { sending: Promise<string[]>; runs: Set<string> } {
  const runs = new Set<string>();
  const sending = (async () => {
    const failures: string[] = [];
    for (let i = 0; i < RUNS; i += RUNS_PER_TICK) {
      const tick = performance.now();
      const batch = Array.from({ length: Math.min(RUNS_PER_TICK, RUNS - i) }, () => {
        const run = mintRun();
        runs.add(run.runId);
        return sender.send({
          edgeId: "",
          from: "",
          to: `${steps.s1}:in`,
          data: { trail: [], holdMs: HOLD_MS },
          depth: 0,
          runId: run.runId,
          stepKey: run.stepKey,
        });
      });
      for (const r of await Promise.all(batch)) if (r.kind === "fail") failures.push(r.error.message);
      const wait = 100 - (performance.now() - tick);
      if (wait > 0) await Bun.sleep(wait);
    }
    return failures;
  })();
  return { sending, runs };
}

/** Waits (up to 2 min: a hop held by a dead replica comes back after the 30 s AckWait) for every hop of `runs`, then counts. */
async function countHops(runs: Set<string>, sendFailures: string[], terminatedBefore: number): Promise<HopTally> {
  const expected = runs.size * 3;
  const mine = () => journal.filter((e) => runs.has(e.runId) && Object.values(steps).includes(e.node));
  await waitUntil(`${expected} hops journalled`, async () => new Set(mine().map((e) => `${e.node}/${e.runId}`)).size >= expected, 120_000, 500).catch(
    () => undefined, // the figures say what is missing
  );
  await Bun.sleep(3000); // a late duplicate would show now
  const counts = new Map<string, number>();
  const byPod: Record<string, number> = {};
  for (const e of mine()) {
    counts.set(`${e.node}/${e.runId}`, (counts.get(`${e.node}/${e.runId}`) ?? 0) + 1);
    byPod[e.pod] = (byPod[e.pod] ?? 0) + 1;
  }
  const completed = counts.size;
  const duplicated = [...counts.values()].reduce((n, c) => n + c - 1, 0);
  return { sent: expected, completed, duplicated, lost: expected - completed, terminated: terminated.length - terminatedBefore, sendFailures, byPod };
}

/** One rollout under both loads: `trigger` starts it (a helm upgrade that does not wait). */
async function rolloutUnderLoad(
  label: string,
  trigger: () => Promise<void>,
  whileRolling?: () => Promise<void>,
): Promise<{ http: HttpTally; hops: HopTally; rolloutMs: number }> {
  const gen0 = (await deployment()).metadata.generation;
  const terminatedBefore = terminated.length;
  const http = httpLoad(LOAD_HOST, HTTP_RATE);
  const hops = hopLoad();
  const t0 = performance.now();
  await trigger();
  // Settled into a value now, thrown after the rollout: a rejection must not go unhandled meanwhile.
  const extra = whileRolling?.().then(
    () => undefined,
    (err: unknown) => err,
  );
  await waitUntil(`the ${label} rollout to finish`, () => rolledOut(gen0), 300_000, 250);
  const rolloutMs = Math.round(performance.now() - t0);
  const extraError = await extra;
  if (extraError) throw extraError;
  await Bun.sleep(3000); // the load goes on past the last old pod's exit
  const httpTally = await http.stop();
  const sendFailures = await hops.sending;
  const hopTally = await countHops(hops.runs, sendFailures, terminatedBefore);
  const failed = Object.values(httpTally.non2xx).reduce((a, b) => a + b, 0);
  console.error(
    `[real-redeploy] ${label}: rollout ${rolloutMs} ms; HTTP sent ${httpTally.sent}, 2xx ${httpTally.ok}, non-2xx ${failed} ${JSON.stringify(httpTally.non2xx)}, ` +
      `connection errors ${httpTally.connectionErrors}; hops sent ${hopTally.sent}, completed ${hopTally.completed}, duplicated ${hopTally.duplicated}, ` +
      `lost ${hopTally.lost}, terminated ${hopTally.terminated}, by pod ${JSON.stringify(hopTally.byPod)}` +
      (httpTally.samples.length > 0 ? `\n  first failures: ${httpTally.samples.join(" | ")}` : ""),
  );
  return { http: httpTally, hops: hopTally, rolloutMs };
}

/** Installs or upgrades the release (`--reuse-values` on upgrade) with `sets`; throws with helm's output when it fails. */
async function helmUpgrade(sets: string[], wait: boolean, stringSets: string[] = []): Promise<number> {
  const r = await helm.run([
    "upgrade",
    RELEASE,
    chart,
    "-n",
    ns,
    "--reuse-values",
    ...sets.flatMap((s) => ["--set", s]),
    ...stringSets.flatMap((s) => ["--set-string", s]),
    ...(wait ? ["--wait", "--timeout", "5m"] : []),
  ]);
  if (r.code !== 0) throw new Error(`helm upgrade exited ${r.code}: ${r.stderr}\n${r.stdout}`);
  return r.ms;
}

/** The manager Service's ports with their field managers (who owns which entry). */
async function servicePorts(): Promise<string[]> {
  const svc = await clusterApi(cluster).call<{
    spec: { ports: { name: string; port: number }[] };
    metadata: { managedFields?: { manager: string; operation: string; fieldsV1?: { "f:spec"?: { "f:ports"?: Record<string, unknown> } } }[] };
  }>("GET", `/api/v1/namespaces/${ns}/services/${FULLNAME}-manager-service`);
  const owners = (svc.metadata.managedFields ?? []).flatMap((f) =>
    Object.keys(f.fieldsV1?.["f:spec"]?.["f:ports"] ?? {})
      .filter((k) => k.startsWith("k:"))
      .map((k) => `${JSON.parse(k.slice(2)).port}:${f.manager} (${f.operation})`),
  );
  return svc.spec.ports.map(
    (p) =>
      `${p.name}/${p.port} [${owners
        .filter((o) => o.startsWith(`${p.port}:`))
        .map((o) => o.slice(o.indexOf(":") + 1))
        .join(", ")}]`,
  );
}

beforeAll(async () => {
  contextDir = mkdtempSync(join(process.env.TINYHOST_TEST_TMP ?? tmpdir(), "redeploy-context-"));
  copyBuildContext(contextDir);
  // The images build while the cluster starts (either may wait for a cold build of its own).
  const images = (async () => {
    ctx = await openBuildContext({ file: LOG });
    return [await buildModuleImage(ctx, { tag: "redeploy-1", context: contextDir }), await buildNatsImage(ctx)] as const;
  })();
  let natsImage: BuiltImage;
  [cluster, chart, [firstImage, natsImage]] = await Promise.all([getRealCluster(), prepareChart(), images]);
  helm = await openHelm(cluster);
  await cluster.node.importImage(firstImage.archive);
  await cluster.node.importImage(natsImage.archive);
  ns = await newReleaseNamespace(cluster, "real-redeploy");
  natsUrl = (await startNatsPod(cluster, ns, natsImage.ref)).hostUrl;

  // The chart values: 2 replicas, our image never pulled, JetStream, the rules ExposePort needs
  // (what `tools rbac-values` prints for http_server).
  const rbac = Bun.spawnSync(["node_modules/.bin/bun", "src/cli/main.ts", "tools", "rbac-values", "--dir", "components"], {
    cwd: ROOT,
    stdout: "pipe",
    stderr: "pipe",
  });
  if (rbac.exitCode !== 0) throw new Error(`tools rbac-values: ${rbac.stderr.toString()}`);
  const { repository, tag } = splitImage(firstImage.ref);
  const values = {
    ...(YAML.parse(rbac.stdout.toString()) as object),
    controllerManager: {
      replicas: 2,
      manager: { image: { repository, tag }, imagePullPolicy: "Never", extraEnv: [{ name: "TINY_NATS_TRANSPORT", value: "jetstream" }] },
    },
    natsURL: `nats://nats.${ns}.svc:4222`,
    managerIngress: { ingress: { className: "traefik" } },
  };
  valuesFile = join(contextDir, "values.yaml");
  writeFileSync(valuesFile, YAML.stringify(values));
  const r = await helm.run(["install", RELEASE, chart, "-n", ns, "-f", valuesFile, "--wait", "--timeout", "5m"]);
  if (r.code !== 0) throw new Error(`helm install exited ${r.code}: ${r.stderr}\n${r.stdout}`);
  await waitUntil("both module pods Ready", async () => (await modulePods()).filter(isReady).length === 2, 120_000, 250);

  kube = await createKubeClient({ kubeconfig: cluster.controlPlane.tokenKubeconfig, env: {} });
  nc = await connectNats(natsUrl);
  nc.subscribe("redeploy.journal", { callback: (_e, m) => void journal.push(JSON.parse(new TextDecoder().decode(m.data))) });
  nc.subscribe("$JS.EVENT.ADVISORY.CONSUMER.MSG_TERMINATED.module-edges.*", { callback: (_e, m) => void terminated.push(new TextDecoder().decode(m.data)) });
  await nc.flush();
  sender = await JetStreamTransport.create({ nc, module: "loadgen" });

  // The durable chain s1 → s2 → s3 and the HTTP flow under load.
  const cfg = { trail: "{{$.trail}}", holdMs: HOLD_MS };
  const chain = await applyFlow({
    project: "redeploy",
    flow: "chain",
    module: FULLNAME,
    nodes: { s1: { component: "redeploy_step" }, s2: { component: "redeploy_step" }, s3: { component: "redeploy_step" } },
    edges: [
      { from: "s1:out", to: "s2:in", configuration: cfg },
      { from: "s2:out", to: "s3:in", configuration: cfg },
    ],
  });
  steps = { s1: chain.get("s1")!, s2: chain.get("s2")!, s3: chain.get("s3")! };
  const load = await applyFlow(
    serverFlow(
      "load",
      LOAD_HOST,
      { component: "transform", inPort: "in", config: { context: { ok: true } } },
      { statusCode: 200, contentType: "application/json", body: "{{string($.context)}}" },
    ),
  );
  await waitUntil(
    "the load flow's start signal to be taken",
    async () => {
      await sendSignal(natsUrl, load.get("start")!, "_control", { send: true });
      await Bun.sleep(1000);
      const r = await viaIngress(LOAD_HOST);
      return "status" in r && r.status === 200;
    },
    90_000,
    500,
  );
  // Warm: both replicas answer through the Ingress, and a durable run goes through.
  const run = mintRun();
  const sent = await sender.send({
    edgeId: "",
    from: "",
    to: `${steps.s1}:in`,
    data: { trail: [], holdMs: 0 },
    depth: 0,
    runId: run.runId,
    stepKey: run.stepKey,
  });
  if (sent.kind === "fail") throw new Error(`warm-up hop: ${sent.error.message}`);
  await waitUntil("the warm-up run through s1, s2, s3", async () => journal.filter((e) => e.runId === run.runId).length >= 3, 60_000, 200);
}, START_TIMEOUT_MS);

afterAll(async () => {
  await sender?.close(100).catch(() => undefined);
  await nc?.close().catch(() => undefined);
  if (ns && cluster) {
    await helm?.run(["uninstall", RELEASE, "-n", ns, "--ignore-not-found"], 120_000).catch(() => undefined);
    await cluster.controlPlane.request("DELETE", `/api/v1/namespaces/${ns}`);
  }
  helm?.dispose();
  if (contextDir) rmSync(contextDir, { recursive: true, force: true });
  // Each run's second image is new (its greeting differs): keep the builder's store from growing.
  await ctx?.buildah.run(["rmi", "localhost/tinyhost:redeploy-2"], { log: "quiet" }).catch(() => undefined);
}, 180_000);

describe("redeploy of the platform's chart under load, on a real node", () => {
  test("with the chart's defaults: hops complete exactly once; the failed requests are the figure docs/operations.md §11 gives", async () => {
    const before = await servicePorts();
    const f = await rolloutUnderLoad("chart defaults (no stop delay)", async () => {
      await helmUpgrade(["controllerManager.manager.podAnnotations.redeploy=defaults"], false);
    });
    console.error(`[real-redeploy] Service ports before: ${before.join(", ")}; after: ${(await servicePorts()).join(", ")}`);
    expect({ lost: f.hops.lost, duplicated: f.hops.duplicated, terminated: f.hops.terminated, sendFailures: f.hops.sendFailures }).toEqual({
      lost: 0,
      duplicated: 0,
      terminated: 0,
      sendFailures: [],
    });
    expect(f.http.sent).toBeGreaterThan(HTTP_RATE * 5);
  }, 900_000);

  test("file saved → image rebuilt → helm upgrade, with TINYHOST_STOP_DELAY_MS: the new component answers; 0 failed requests, 0 lost, 0 duplicated", async () => {
    // The recommended value, set through the chart (a rollout of its own, without load): the pods
    // that are replaced under load below are the ones that have it.
    await helmUpgrade(
      [
        "controllerManager.manager.extraEnv[0].name=TINY_NATS_TRANSPORT",
        "controllerManager.manager.extraEnv[0].value=jetstream",
        "controllerManager.manager.extraEnv[1].name=TINYHOST_STOP_DELAY_MS",
        "controllerManager.manager.podAnnotations.redeploy=recommended",
      ],
      true,
      // An env value is a string: --set would make it a number, which the apiserver refuses.
      [`controllerManager.manager.extraEnv[1].value=${STOP_DELAY_MS}`],
    );
    await waitUntil("both module pods Ready with the stop delay", async () => (await modulePods()).filter(isReady).length === 2, 120_000, 250);

    // The loop: the file saved, the image rebuilt and imported, helm upgrade to its tag.
    const greeting = `hello from build ${crypto.randomUUID().slice(0, 8)}`;
    const t0 = performance.now();
    writeFileSync(join(contextDir, "components", "redeploy_greeting.ts"), greetingComponent(greeting));
    const image = await buildModuleImage(ctx, { tag: "redeploy-2", context: contextDir });
    const builtMs = Math.round(performance.now() - t0);
    await cluster.node.importImage(image.archive);
    const importedMs = Math.round(performance.now() - t0);
    expect(image.id).not.toBe(firstImage.id);
    let upgradeMs = 0;
    let answeredMs = Number.NaN;
    let flowApplied = 0;
    const f = await rolloutUnderLoad(
      `stop delay ${STOP_DELAY_MS} ms (new image)`,
      async () => {
        upgradeMs = await helmUpgrade([`controllerManager.manager.image.tag=${splitImage(image.ref).tag}`], false);
      },
      async () => {
        // The flow of the new component, applied as soon as the upgrade is in (the old pods refuse
        // its node; the new ones run it), then polled through the Ingress until it answers.
        const flow = await applyFlow(
          serverFlow(
            "greeting",
            NEW_HOST,
            { component: "redeploy_greeting", inPort: "in", config: { context: "{{$}}" } },
            { statusCode: 200, contentType: "text/plain", body: "{{$.greeting}}" },
          ),
        );
        flowApplied = Math.round(performance.now() - t0);
        let lastSignal = 0;
        await waitUntil(
          "the new component to answer through the Ingress",
          async () => {
            if (performance.now() - lastSignal > 5000) {
              lastSignal = performance.now();
              await sendSignal(natsUrl, flow.get("start")!, "_control", { send: true });
            }
            const r = await viaIngress(NEW_HOST, "/", 5000);
            if ("status" in r && r.status === 200 && r.body === greeting) answeredMs = Math.round(performance.now() - t0);
            return !Number.isNaN(answeredMs);
          },
          300_000,
          100,
        );
      },
    );
    console.error(
      `[real-redeploy] redeploy loop: file saved → image built ${builtMs} ms → imported ${importedMs} ms → helm upgrade returned ${importedMs + upgradeMs} ms ` +
        `(flow applied ${flowApplied} ms) → new component answered through the Ingress ${answeredMs} ms; rollout ${f.rolloutMs} ms`,
    );
    console.error(`[real-redeploy] Service ports after: ${(await servicePorts()).join(", ")}`);
    expect(Number.isFinite(answeredMs)).toBe(true);
    expect({
      non2xx: f.http.non2xx,
      connectionErrors: f.http.connectionErrors,
      lost: f.hops.lost,
      duplicated: f.hops.duplicated,
      terminated: f.hops.terminated,
      sendFailures: f.hops.sendFailures,
    }).toEqual({ non2xx: {}, connectionErrors: 0, lost: 0, duplicated: 0, terminated: 0, sendFailures: [] });
    expect(f.http.ok).toBe(f.http.sent);
    // Every new pod runs the new image and took hops.
    const pods = await modulePods();
    expect(pods.every((p) => (p.status.containerStatuses?.[0]?.restartCount ?? 0) === 0)).toBe(true);
  }, 1_800_000);
});
