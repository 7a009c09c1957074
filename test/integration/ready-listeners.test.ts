/**
 * /readyz waits for the component listeners (issue 31 item 5; src/operator/nodes-ready.ts), on the
 * real control plane and NATS. Pod `front-0` runs a flow with an http_server, started: its port is
 * persisted in the node's status. It stops; pod `front-1` (the next pod of a rollout) starts with one
 * reconcile worker and a `gate` node (test/fixtures/ready-gate) first in the list, whose
 * onReconcile the test holds. While it is held, /readyz is 503 with only the `nodes` check failing
 * — naming the http_server node — and the persisted port refuses connections; once released, the
 * first 200 of /readyz finds the port answering (ordering, not time, is asserted).
 */
import { afterAll, afterEach, describe, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { buildFlow, type FlowDescription } from "../../src/cli/scaffold/flow-builder.ts";
import type { TinyNode } from "../../src/core/api/index.ts";
import { tinyNodes } from "../../src/k8s/controllers/index.ts";
import { openClusterFixture } from "../support/cluster-fixture.ts";
import { applyObjects, createRelease, flowObjects, nodesByComponent, sendSignal, waitForMetadata, waitForReconciled } from "../support/flows.ts";
import { startModuleProcess, type ModuleProcess } from "../support/module-process.ts";
import { waitUntil } from "../support/process.ts";
import { until } from "../support/until.ts";

const procs: ModuleProcess[] = [];
afterEach(async () => {
  await Promise.all(procs.splice(0).map((p) => p.stop(9_000)));
});
afterAll(async () => {
  await Promise.all(procs.splice(0).map((p) => p.stop(9_000)));
});

const API: FlowDescription = {
  project: "ready-test",
  flow: "api",
  module: "front",
  nodes: {
    start: { component: "signal", label: "Start", settings: { context: {} } },
    server: { component: "http_server", label: "Server", settings: { enableStatusPort: false, enableStopPort: false, maxBodySize: 1 } },
  },
  edges: [
    { from: "start:out", to: "server:start", configuration: { context: "{{$}}", autoHostName: false, readTimeout: 60, writeTimeout: 30 } },
    { from: "server:request", to: "server:response", configuration: { statusCode: 200, contentType: "text/plain", body: "served {{$.path}}" } },
  ],
};

/** GET `url` → `"<status> <body>"`, or `"refused …"` when nothing listens. */
async function get(url: string): Promise<string> {
  try {
    const r = await fetch(url, { signal: AbortSignal.timeout(5_000) });
    return `${r.status} ${await r.text()}`;
  } catch (err) {
    return `refused ${(err as { code?: string }).code ?? (err as Error).message}`;
  }
}

describe("/readyz and component listeners (cluster mode)", () => {
  test("a new pod answers /readyz 200 only once the http_server it restores listens on the persisted port", async () => {
    const natsUrl = process.env.TINYHOST_TEST_NATS_URL;
    if (!natsUrl) throw new Error("TINYHOST_TEST_NATS_URL is not set: run through test/support/run-integration.ts");
    const { cp, kube, dir } = await openClusterFixture("ready-listeners");
    const ns = await cp.newNamespace("ready");
    await createRelease(kube, ns, { release: "front", pods: ["front-0", "front-1"] });
    const logDir = join(dir, ns);
    mkdirSync(logDir);
    const open = join(logDir, "gate-open");
    const held = join(logDir, "gate-front-1");
    writeFileSync(open, "");
    const start = (hostname: string, gate: string, waitReady: boolean) =>
      startModuleProcess({
        hostname,
        name: "front",
        namespace: ns,
        kubeconfig: cp.tokenKubeconfig,
        components: "test/fixtures/ready-gate",
        env: { TINY_NATS_URL: natsUrl, GATE_FILE: gate, TINYHOST_NODE_WORKERS: "1" },
        logDir,
        waitReady,
      });

    // front-0: the flow runs and its server is started; the port is persisted in the node's status.
    const first = await start("front-0", open, true);
    procs.push(first);
    const objects = flowObjects(buildFlow(API), ns);
    await applyObjects(kube, ns, objects);
    const names = nodesByComponent(objects);
    const server = names.http_server!;
    // The gate sorts before every node of the flow (the apiserver lists by name), so with one worker
    // a new pod reconciles it first.
    const gate: TinyNode = { metadata: { name: `00000000.front.gate-00000`, namespace: ns }, spec: { module: "front", component: "gate" } };
    await kube.create(tinyNodes, gate, { namespace: ns });
    expect([gate.metadata.name, ...Object.values(names)].sort()[0]).toBe(gate.metadata.name);
    await waitForReconciled(kube, ns, [gate.metadata.name, ...Object.values(names)]);
    await sendSignal(natsUrl, names.signal!, "_control", { send: true });
    const port = Number(await waitForMetadata(kube, ns, server, "port"));
    const url = `http://127.0.0.1:${port}/hello`;
    await waitUntil("front-0's server answers", async () => (await get(url)) === "200 served /hello", 15_000);
    await first.stop(9_000);
    procs.splice(procs.indexOf(first), 1);
    expect(await get(url)).toStartWith("refused");

    // front-1: held behind the gate, every check but `nodes` passes and the port refuses.
    const next = await start("front-1", held, false);
    procs.push(next);
    let answer: Awaited<ReturnType<ModuleProcess["readyz"]>>;
    await until(
      "front-1 /readyz: 200, or 503 with only the nodes check failing",
      async () => {
        answer = await next.readyz();
        const failing = Object.entries(answer?.body.checks ?? { none: "" }).filter(([, v]) => v !== "ok");
        return answer?.status === 200 || (failing.length === 1 && failing[0]![0] === "nodes");
      },
      60_000,
      50,
    );
    // Without the check /readyz says 200 here, while the server's port still refuses.
    expect({ readyz: answer!.status, port: await get(url) }).toEqual({ readyz: 503, port: expect.stringMatching(/^refused/) });
    expect(answer!.body.checks.nodes).toContain(gate.metadata.name!);
    expect(answer!.body.checks.nodes).toContain(server);
    expect((await next.readyz())?.status).toBe(503); // still held

    // Released: at the first 200 the port answers.
    writeFileSync(held, "");
    const seen: number[] = [];
    await waitUntil(
      "front-1 /readyz 200",
      async () => {
        const r = await next.readyz();
        if (r) seen.push(r.status);
        return r?.status === 200;
      },
      60_000,
      10,
    );
    expect(await get(url)).toBe("200 served /hello");
    expect(seen.filter((s) => s !== 503 && s !== 200)).toEqual([]);
  }, 240_000);
});
