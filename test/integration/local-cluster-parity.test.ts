/**
 * One reconcile path: the same flows run through local mode (LocalHost, in this process, manifests
 * from a directory) and through cluster mode (`tinyhost run` against the real kube-apiserver, core
 * NATS), the same two signals are sent to the same node, and every node's status and finalizers
 * are compared field by field.
 *
 * Allowed to differ, and only these: `status.lastUpdateTime`'s VALUE (each side writes its own
 * wall clock; the FORMAT must match: RFC 3339, UTC, whole seconds). Everything else — module
 * (name, version, sdkVersion), component, ports (names, labels, positions, base64 schemas and
 * configurations), status text, error flag, observedGeneration, component metadata (`_state/*`),
 * `metadata.finalizers`, `metadata.generation` — must be equal.
 *
 * Flows: tick-count's counter and debug driven by a signal node (count in `_state/count`, the last
 * message on the debug node's `_control`), and hello-api without its start signal (a cluster
 * ignores the annotation, so neither side starts the http_server).
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { helloApi } from "../../examples/generate.ts";
import type { KubeClient } from "../../src/k8s/client/index.ts";
import type { TinyNode } from "../../src/core/api/index.ts";
import { tinyNodes } from "../../src/k8s/controllers/index.ts";
import { LocalHost } from "../../src/local/host.ts";
import { buildFlow, nodeNameOf, renderFlowFiles, type FlowDescription } from "../../src/cli/scaffold/flow-builder.ts";
import type { ControlPlane } from "../support/control-plane.ts";
import { openClusterFixture } from "../support/cluster-fixture.ts";
import { applyObjects, flowObjects, sendSignal, waitForReconciled } from "../support/flows.ts";
import { startModuleProcess, type ModuleProcess } from "../support/module-process.ts";
import { waitUntil } from "../support/process.ts";

const MODULE = "tinyhost";
const VERSION = "1.0.0";

/** signal → counter → debug: each `send` adds one to the counter's persisted count. */
const COUNTING: FlowDescription = {
  project: "parity",
  flow: "counting",
  module: MODULE,
  nodes: {
    start: { component: "signal", settings: { context: { source: "signal" } } },
    counter: { component: "counter", settings: { step: 1, initial: 0 } },
    debug: { component: "debug" },
  },
  edges: [
    { from: "start:out", to: "counter:in", configuration: { context: "{{$}}" } },
    { from: "counter:out", to: "debug:in", configuration: { count: "{{$.count}}", source: "{{$.context.source}}" } },
  ],
};

/** hello-api as committed, without its start signal. */
function helloWithoutStart(): FlowDescription {
  const d = helloApi();
  return { ...d, nodes: Object.fromEntries(Object.entries(d.nodes).map(([k, n]) => [k, { ...n, startSignal: undefined }])) };
}

const FLOWS = [COUNTING, helloWithoutStart()];
const NAMES = FLOWS.flatMap((f) => Object.keys(f.nodes).map((k) => nodeNameOf(f, k)));
const COUNTER = nodeNameOf(COUNTING, "counter");
const SIGNAL = nodeNameOf(COUNTING, "start");

let cp: ControlPlane;
let kube: KubeClient;
let dir: string;
let proc: ModuleProcess | undefined;
let host: LocalHost | undefined;

beforeAll(async () => {
  ({ cp, kube, dir } = await openClusterFixture("local-parity"));
}, 900_000);

afterAll(async () => {
  await host?.stop();
  await proc?.stop(9000);
});

const count = (node: TinyNode | undefined) => {
  const raw = node?.status?.metadata?.["_state/count"];
  return raw === undefined ? 0 : Number(Buffer.from(raw, "base64").toString("utf8"));
};

/** Reads every node until two reads 2 s apart are equal (debounced status writes have landed). */
async function settled(read: () => Promise<TinyNode[]>, what: string): Promise<TinyNode[]> {
  let last = "";
  let nodes: TinyNode[] = [];
  await waitUntil(
    `${what}: statuses unchanged for 2 s`,
    async () => {
      nodes = await read();
      const now = JSON.stringify(nodes.map((n) => ({ ...n.status, lastUpdateTime: undefined })));
      const same = now === last;
      last = now;
      if (!same) await Bun.sleep(2_000);
      return same;
    },
    30_000,
    0,
  );
  return nodes;
}

/** What is compared of a node: everything the module writes, with lastUpdateTime checked for format and set aside. */
function comparable(n: TinyNode) {
  const { lastUpdateTime, ...status } = n.status ?? ({} as NonNullable<TinyNode["status"]>);
  expect(lastUpdateTime).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
  return { name: n.metadata.name, generation: n.metadata.generation, finalizers: n.metadata.finalizers, status };
}

test("local and cluster mode write the same node statuses for the same flows and signals", async () => {
  const natsUrl = process.env.TINYHOST_TEST_NATS_URL;
  if (!natsUrl) throw new Error("TINYHOST_TEST_NATS_URL is not set: run through test/support/run-integration.ts");

  // ---- cluster mode ----
  const ns = await cp.newNamespace("parity");
  proc = await startModuleProcess({
    hostname: `${ns}-pod-0`,
    name: MODULE,
    version: VERSION,
    namespace: ns,
    kubeconfig: cp.tokenKubeconfig,
    components: "components",
    env: { TINY_NATS_URL: natsUrl },
    logDir: dir,
  });
  await waitUntil("the module leads", async () => (await proc!.metric(`leader_election_master_status{name="${MODULE}-lock"}`)) === 1, 20_000);
  for (const f of FLOWS) await applyObjects(kube, ns, flowObjects(buildFlow(f), ns));
  await waitForReconciled(kube, ns, NAMES);
  const readCluster = () => Promise.all(NAMES.map((n) => kube.get(tinyNodes, n, ns)));
  for (let i = 1; i <= 2; i++) {
    await sendSignal(natsUrl, SIGNAL, "_control", { send: true });
    await waitUntil(`cluster count ${i}`, async () => count(await kube.get(tinyNodes, COUNTER, ns)) === i, 20_000);
  }
  const cluster = await settled(readCluster, "cluster");

  // ---- local mode ----
  const manifests = mkdtempSync(join(process.env.TINYHOST_TEST_TMP ?? tmpdir(), "parity-local-"));
  for (const f of FLOWS) for (const file of renderFlowFiles(f)) writeFileSync(join(manifests, `${f.flow}-${file.name}`), file.text);
  const lines: string[] = [];
  host = await LocalHost.start({
    dir: manifests,
    componentsDir: "components",
    moduleName: MODULE,
    moduleVersion: VERSION,
    namespace: ns,
    statePath: null,
    watch: false,
    report: (l) => lines.push(l),
  });
  const local = host;
  for (let i = 1; i <= 2; i++) {
    const r = await local.send(SIGNAL, "_control", { send: true });
    expect(r.kind).not.toBe("fail");
    await waitUntil(`local count ${i}`, async () => count(local.nodes.find(COUNTER)) === i, 20_000);
  }
  const localNodes = await settled(async () => NAMES.map((n) => local.nodes.find(n)!), "local");

  // ---- field by field ----
  expect(count(cluster.find((n) => n.metadata.name === COUNTER))).toBe(2);
  for (const [i, name] of NAMES.entries()) {
    const c = comparable(cluster[i]!);
    const l = comparable(localNodes[i]!);
    expect({ node: name, ...l }).toEqual({ node: name, ...c });
  }
  expect(lines.filter((l) => l.startsWith("error"))).toEqual([]);
}, 180_000);
