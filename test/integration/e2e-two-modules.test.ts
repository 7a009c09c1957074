/**
 * End to end: one flow across two tinyhost modules. The hello-api flow (components.md §5 Flow A) is
 * built for module `front` (signal, http_server, router) with its transform node moved to module
 * `back` (node name `<flow>.back.transform-<sfx>`, `spec.module: back`), and each module runs as its
 * own `tinyhost run` process with the bundled components. A GET then crosses NATS twice
 * (runtime-spec §14.2): router (front) → transform (back) on `tinymodule.back.msg`, and
 * transform (back) → http_server.response (front) on `tinymodule.front.msg`; the reply travels
 * back up both hops to the HTTP caller. A POST never leaves `front` (§14.3).
 *
 * Proof that the hops went over the wire: each process counts the hops its transport receivers
 * admitted (`tinyhost_hops_total`; in-process hops are not counted there). Once over core NATS
 * (the suite's server), once over JetStream classic blocking hops (a private server: its
 * `module-edges` stream would capture the shared server's `tinymodule.*.msg`).
 */
import { afterEach, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { helloApi } from "../../examples/generate.ts";
import type { KubeClient } from "../../src/k8s/client/index.ts";
import { buildFlow } from "../../src/cli/scaffold/flow-builder.ts";
import type { ControlPlane } from "../support/control-plane.ts";
import { openClusterFixture } from "../support/cluster-fixture.ts";
import { applyObjects, createRelease, flowObjects, moveNodeToModule, sendSignal, waitForMetadata, waitForReconciled } from "../support/flows.ts";
import { startModuleProcess, type ModuleProcess } from "../support/module-process.ts";
import { startNats, type NatsServer } from "../support/nats.ts";

const HOPS = "tinyhost_hops_total";
const HOPS_FAILED = "tinyhost_hops_failed_total";

let cp: ControlPlane;
let kube: KubeClient;
let dir: string;
let procs: ModuleProcess[] = [];
let privateNats: NatsServer | undefined;

beforeAll(async () => {
  ({ cp, kube, dir } = await openClusterFixture("e2e-two"));
}, 900_000);

afterEach(async () => {
  await Promise.all(procs.map((p) => p.stop(9000)));
  procs = [];
  await privateNats?.dispose();
  privateNats = undefined;
});

async function acrossTwoModules(prefix: string, natsUrl: string, transport: "core" | "jetstream"): Promise<void> {
  const t0 = performance.now();
  const ns = await cp.newNamespace(prefix);
  const logDir = join(dir, ns);
  mkdirSync(logDir);
  await createRelease(kube, ns, { release: "front", pods: ["front-0"] });
  const env = { TINY_NATS_URL: natsUrl, ...(transport === "jetstream" ? { TINY_NATS_TRANSPORT: "jetstream" } : {}) };
  const start = (hostname: string, name: string) =>
    startModuleProcess({ hostname, name, namespace: ns, kubeconfig: cp.tokenKubeconfig, components: "components", env, logDir });
  const [front, back] = await Promise.all([start("front-0", "front"), start("back-0", "back")]);
  procs = [front!, back!];
  for (const p of procs) expect(readFileSync(p.logFile, "utf8")).toContain(`"transport":"${transport}"`);
  const tReady = performance.now();

  const manifests = buildFlow({ ...helloApi({ module: "front" }), namespace: ns });
  const transformName = moveNodeToModule(manifests, "hello", "back");
  expect(transformName.split(".")[1]).toBe("back");
  const objects = flowObjects(manifests, ns);
  await applyObjects(kube, ns, objects);
  const names = objects.filter((o) => o.kind === "TinyNode").map((o) => o.metadata.name!);
  await waitForReconciled(kube, ns, names);
  const signal = manifests.nodes.get("start")!.metadata.name!;
  const server = manifests.nodes.get("server")!.metadata.name!;

  await sendSignal(natsUrl, signal, "_control", { send: true });
  const port = Number(await waitForMetadata(kube, ns, server, "port"));
  const base = `http://127.0.0.1:${port}`;
  const tListening = performance.now();

  const [frontBefore, backBefore] = await Promise.all([front!.metric(HOPS), back!.metric(HOPS)]);
  const get = await fetch(`${base}/hello`);
  expect(get.status).toBe(200);
  expect(await get.json()).toEqual({ hello: "world", method: "GET", path: "/hello" });
  const [frontAfterGet, backAfterGet] = await Promise.all([front!.metric(HOPS), back!.metric(HOPS)]);
  // router → transform arrived at back over the wire; transform → response arrived at front.
  expect(backAfterGet! - backBefore!).toBe(1);
  expect(frontAfterGet! - frontBefore!).toBe(1);

  const post = await fetch(`${base}/echo`, { method: "POST", body: '{"n":2}' });
  expect(post.status).toBe(201);
  expect(await post.text()).toBe('{"n":2}');
  // The POST branch stays inside front: no wire hop on either side.
  expect([await front!.metric(HOPS), await back!.metric(HOPS)]).toEqual([frontAfterGet, backAfterGet]);

  const tAnswered = performance.now();
  expect([await front!.metric(HOPS_FAILED), await back!.metric(HOPS_FAILED)]).toEqual([0, 0]);
  const ms = (a: number, b: number) => Math.round(b - a);
  console.log(
    `[e2e-two ${transport}] ready ${ms(t0, tReady)} ms, signal→port ${ms(tReady, tListening)} ms (incl. apply+reconcile), 2 requests ${ms(tListening, tAnswered)} ms`,
  );
}

describe("one flow across two tinyhost modules", () => {
  test("over core NATS: GET crosses front → back → front and answers 200; POST stays in front", async () => {
    const url = process.env.TINYHOST_TEST_NATS_URL;
    if (!url) throw new Error("TINYHOST_TEST_NATS_URL is not set: run through test/support/run-integration.ts");
    await acrossTwoModules("e2e-two", url, "core");
  }, 90_000);

  test("over JetStream classic hops: the same GET crosses both modules and answers 200", async () => {
    privateNats = await startNats();
    await acrossTwoModules("e2e-two-js", privateNats.url, "jetstream");
  }, 90_000);
});
