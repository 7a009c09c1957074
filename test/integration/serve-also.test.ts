/**
 * End to end: one `tinyhost run --name front --also tinysystems/common-module-v0` process stands in
 * for two modules (src/operator/served.ts). The hello-api flow is built for `front` with its signal
 * and transform nodes moved to `tinysystems-common-module-v0`, as the platform names a Go
 * common-module node. The signal reaches the common-module node over that module's own NATS subject
 * (its subscription / JetStream consumer), the signal's emit crosses to front's http_server, and a
 * GET crosses front (router) → common-module (transform) → front (response) and answers 200: hops
 * between served names stay in-process. Both TinyModules exist with their own address, the common
 * one lists only common-module's components, each node's status names its module, and the process
 * holds one Lease, `front-lock`.
 */
import { afterEach, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { helloApi } from "../../examples/generate.ts";
import { isNotFound, leases, type KubeClient } from "../../src/k8s/client/index.ts";
import { tinyModules, tinyNodes } from "../../src/k8s/controllers/index.ts";
import { platformModule } from "../../src/core/api/platform-modules.ts";
import { buildFlow } from "../../src/cli/scaffold/flow-builder.ts";
import type { ControlPlane } from "../support/control-plane.ts";
import { openClusterFixture } from "../support/cluster-fixture.ts";
import { applyObjects, createRelease, flowObjects, moveNodeToModule, sendSignal, waitForMetadata, waitForReconciled } from "../support/flows.ts";
import { startModuleProcess, type ModuleProcess } from "../support/module-process.ts";
import { startNats, type NatsServer } from "../support/nats.ts";
import { waitUntil } from "../support/process.ts";

const COMMON = "tinysystems/common-module-v0";
const COMMON_SEGMENT = "tinysystems-common-module-v0";
const HOPS = "tinyhost_hops_total";
const HOPS_FAILED = "tinyhost_hops_failed_total";

let cp: ControlPlane;
let kube: KubeClient;
let dir: string;
let proc: ModuleProcess | undefined;
let privateNats: NatsServer | undefined;

beforeAll(async () => {
  ({ cp, kube, dir } = await openClusterFixture("serve-also"));
}, 900_000);

afterEach(async () => {
  await proc?.stop(9000);
  proc = undefined;
  await privateNats?.dispose();
  privateNats = undefined;
});

async function servesBoth(prefix: string, natsUrl: string, transport: "core" | "jetstream"): Promise<void> {
  const ns = await cp.newNamespace(prefix);
  const logDir = join(dir, ns);
  mkdirSync(logDir);
  await createRelease(kube, ns, { release: "front", pods: ["front-0"] });
  const env = { TINY_NATS_URL: natsUrl, ...(transport === "jetstream" ? { TINY_NATS_TRANSPORT: "jetstream" } : {}) };
  proc = await startModuleProcess({
    hostname: "front-0",
    name: "front",
    version: "0.2.0",
    namespace: ns,
    kubeconfig: cp.tokenKubeconfig,
    components: "components",
    env,
    logDir,
    args: ["--also", COMMON],
  });

  const manifests = buildFlow({ ...helloApi({ module: "front" }), namespace: ns });
  const signal = moveNodeToModule(manifests, "start", COMMON_SEGMENT);
  const transform = moveNodeToModule(manifests, "hello", COMMON_SEGMENT);
  const objects = flowObjects(manifests, ns);
  await applyObjects(kube, ns, objects);
  const names = objects.filter((o) => o.kind === "TinyNode").map((o) => o.metadata.name!);
  await waitForReconciled(kube, ns, names);

  // Each node's status names the module it belongs to.
  for (const n of names) {
    const node = await kube.get(tinyNodes, n, ns);
    expect({ n, module: node.status?.module?.name, error: node.status?.error ?? false }).toEqual({
      n,
      module: n.split(".")[1] === COMMON_SEGMENT ? COMMON : "front",
      error: false,
    });
  }

  // The signal arrives on the common-module's own subject (tinymodule.<common>.sysmsg) and its
  // emit starts front's http_server.
  const server = manifests.nodes.get("server")!.metadata.name!;
  await sendSignal(natsUrl, signal, "_control", { send: true });
  const port = Number(await waitForMetadata(kube, ns, server, "port"));
  const hopsBefore = await proc.metric(HOPS);
  const get = await fetch(`http://127.0.0.1:${port}/hello`);
  expect(get.status).toBe(200);
  expect(await get.json()).toEqual({ hello: "world", method: "GET", path: "/hello" });
  expect(transform.split(".")[1]).toBe(COMMON_SEGMENT);
  expect((await proc.metric(HOPS))! - hopsBefore!).toBe(0); // router → transform → response: no wire hop
  expect(await proc.metric(HOPS_FAILED)).toBe(0);

  if (transport === "jetstream") {
    // A business hop from outside to the --also name: its consumer pulls beside front's (they share
    // the hop slots), so it answers at once rather than waiting for a message to front.
    const sent = Bun.spawnSync(
      [
        process.execPath,
        "src/cli/main.ts",
        "send",
        "--nats-url",
        natsUrl,
        "--transport",
        "jetstream",
        transform,
        "in",
        '{"context":{"a":1}}',
        "--wait",
        "--timeout",
        "10s",
      ],
      { stdout: "pipe", stderr: "pipe" },
    );
    expect({ code: sent.exitCode, err: sent.stderr.toString() }).toEqual({ code: 0, err: "" });
    expect(sent.stdout.toString()).toContain('{\\"a\\":1}');
  }

  // Both TinyModules, each with its own address; the common one lists common-module's components only.
  for (const [name, sanitized] of [
    ["front", "front"],
    [COMMON, COMMON_SEGMENT],
  ] as const) {
    await waitUntil(
      `TinyModule ${sanitized} has its status`,
      async () => !!(await kube.get(tinyModules, sanitized, ns).catch(() => undefined))?.status?.addr,
      15_000,
    );
    const m = await kube.get(tinyModules, sanitized, ns);
    expect({ name: m.status?.name, addr: m.status?.addr, version: m.status?.version, image: m.spec?.image }).toEqual({
      name,
      addr: `nats://tinymodule.${sanitized}.msg`,
      version: "0.2.0",
      image: `${name}:0.2.0`,
    });
  }
  const common = (await kube.get(tinyModules, COMMON_SEGMENT, ns)).status?.components?.map((c) => c.name) ?? [];
  const front = (await kube.get(tinyModules, "front", ns)).status?.components?.map((c) => c.name) ?? [];
  expect(common.length).toBeGreaterThan(0);
  expect(common.every((c) => platformModule(COMMON_SEGMENT)!.components.includes(c))).toBe(true);
  expect(common).toContain("transform");
  expect(common).not.toContain("http_server");
  expect(front).toContain("http_server");

  // One Lease for the process.
  expect((await kube.get(leases, "front-lock", ns)).spec?.holderIdentity).toBe("front-0");
  const other = await kube.get(leases, `${COMMON_SEGMENT}-lock`, ns).then(
    () => "exists",
    (err) => (isNotFound(err) ? "absent" : String(err)),
  );
  expect(other).toBe("absent");
}

describe("one process serves --name front --also tinysystems/common-module-v0", () => {
  test("over core NATS: both modules' nodes run, hops cross front → common → front, both TinyModules carry their address", async () => {
    const url = process.env.TINYHOST_TEST_NATS_URL;
    if (!url) throw new Error("TINYHOST_TEST_NATS_URL is not set: run through test/support/run-integration.ts");
    await servesBoth("serve-also", url, "core");
  }, 90_000);

  test("over JetStream: the common-module's own consumers take its signal and a business hop from outside, and the same GET answers 200", async () => {
    privateNats = await startNats();
    await servesBoth("serve-also-js", privateNats.url, "jetstream");
  }, 90_000);
});
