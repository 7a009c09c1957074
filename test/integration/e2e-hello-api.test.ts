/**
 * End to end: the hello-api example (components.md §5 Flow A, examples/hello-api) on the real
 * control plane, served by two `tinyhost run` processes of module `tinyhost` (pod-0, pod-1) over
 * NATS. The flow is started as the platform does (`send_signal` to the signal node's `_control`,
 * runtime-spec §14.5), the http_server persists its port in `status.metadata.port`, exposes it
 * through the release's Service and Ingress (runtime-spec §7.1), and answers GET/POST/DELETE.
 *
 * Two replicas on ONE host collide on the persisted port: in a cluster each pod has its own network
 * namespace and every replica re-hosts the listener on that port (components.md §2.1, "every replica
 * hosts every node"); here both processes share 127.0.0.1, so exactly one binds and the other's
 * restore fails with HTTP_LISTEN / EADDRINUSE. The test asserts that instead of hiding it: the
 * leader (which started the server) answers, the follower logged the bind failure. Then the leader
 * is SIGKILLed: the port is free, the new leader's reconcile re-hosts it and the same URL answers.
 *
 * Once with core NATS on the suite's server, once with TINY_NATS_TRANSPORT=jetstream on a private
 * nats-server (its `module-edges` stream captures `tinymodule.*.msg`, which would turn later core
 * requests on the shared server into PubAcks — runtime-spec §4.5).
 */
import { afterEach, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { ingresses, services, type KubeClient } from "../../src/k8s/client/index.ts";
import { decodeBase64Json } from "../../src/core/api/bytes.ts";
import { tinyNodes } from "../../src/k8s/controllers/index.ts";
import type { ControlPlane } from "../support/control-plane.ts";
import { openClusterFixture } from "../support/cluster-fixture.ts";
import { applyObjects, createRelease, exampleObjects, nodesByComponent, sendSignal, waitForMetadata, waitForReconciled } from "../support/flows.ts";
import { startModuleProcess, type ModuleProcess } from "../support/module-process.ts";
import { startNats, type NatsServer } from "../support/nats.ts";
import { waitUntil } from "../support/process.ts";

const MODULE = "tinyhost";
const LEADER_SERIES = `leader_election_master_status{name="${MODULE}-lock"}`;
const SUFFIX = "e2e.example.com";
/**
 * Lease timings (ms): short so the failover step fits the time budget, long enough that a loaded
 * machine does not flap leadership while the signal is in flight. Defaults: operator-leader.test.ts.
 */
const LEASE_ENV = { TINYHOST_LEASE_DURATION_MS: "8000", TINYHOST_RENEW_DEADLINE_MS: "6000", TINYHOST_RETRY_PERIOD_MS: "500" };

let cp: ControlPlane;
let kube: KubeClient;
let dir: string;
let procs: ModuleProcess[] = [];
let privateNats: NatsServer | undefined;

beforeAll(async () => {
  ({ cp, kube, dir } = await openClusterFixture("e2e-hello"));
}, 900_000);

afterEach(async () => {
  await Promise.all(procs.map((p) => p.stop(9000)));
  procs = [];
  await privateNats?.dispose();
  privateNats = undefined;
});

function sharedNatsUrl(): string {
  const url = process.env.TINYHOST_TEST_NATS_URL;
  if (!url) throw new Error("TINYHOST_TEST_NATS_URL is not set: run through test/support/run-integration.ts");
  return url;
}

async function helloApiOnTwoReplicas(prefix: string, natsUrl: string, transport: "core" | "jetstream"): Promise<void> {
  const t0 = performance.now();
  const ns = await cp.newNamespace(prefix);
  await createRelease(kube, ns, { pods: ["pod-0", "pod-1"], ingressSuffix: SUFFIX });
  const logDir = join(dir, ns);
  mkdirSync(logDir);
  const env = { TINY_NATS_URL: natsUrl, ...LEASE_ENV, ...(transport === "jetstream" ? { TINY_NATS_TRANSPORT: "jetstream" } : {}) };
  const start = (hostname: string) =>
    startModuleProcess({ hostname, name: MODULE, namespace: ns, kubeconfig: cp.tokenKubeconfig, components: "components", env, logDir });
  procs = await Promise.all([start("pod-0"), start("pod-1")]);
  for (const p of procs) expect(readFileSync(p.logFile, "utf8")).toContain(`"transport":"${transport}"`);
  const tReady = performance.now();

  const objects = exampleObjects("hello-api", ns);
  await applyObjects(kube, ns, objects);
  const names = nodesByComponent(objects);
  await waitForReconciled(kube, ns, Object.values(names));
  const tReconciled = performance.now();

  await sendSignal(natsUrl, names.signal!, "_control", { send: true });
  const port = Number(await waitForMetadata(kube, ns, names.http_server!, "port"));
  expect(port).toBeGreaterThan(0);
  const base = `http://127.0.0.1:${port}`;
  const tListening = performance.now();

  const get = await fetch(`${base}/hello`);
  expect(get.status).toBe(200);
  expect(get.headers.get("content-type")).toStartWith("application/json");
  expect(await get.json()).toEqual({ hello: "world", method: "GET", path: "/hello" });

  const post = await fetch(`${base}/echo`, { method: "POST", body: '{"n":1}' });
  expect(post.status).toBe(201);
  expect(await post.text()).toBe('{"n":1}');

  const del = await fetch(`${base}/thing`, { method: "DELETE" });
  expect(del.status).toBe(404);
  expect(await del.text()).toBe("no route for DELETE /thing");
  const tAnswered = performance.now();

  // ExposePort ran against the release: Service port port<N> and an Ingress rule for the auto host.
  const host = `${names.http_server!.split(".").pop()}-${SUFFIX}`;
  const svc = await kube.get(services, "tinyhost-manager-service", ns);
  expect(svc.spec?.ports?.map((p) => `${p.name}:${p.port}`)).toContain(`port${port}:${port}`);
  const ing = await kube.get(ingresses, "tinyhost-manager-ingress", ns);
  const rules = (ing.spec?.rules ?? []) as { host?: string; http?: { paths?: { backend?: { service?: { port?: { number?: number } } } }[] } }[];
  expect(rules.map((r) => [r.host, r.http?.paths?.[0]?.backend?.service?.port?.number])).toContainEqual([host, port]);
  // …and the node's _control shows it (the dashboard's listenAddr).
  await waitUntil(
    "http_server _control shows Running",
    async () => {
      const node = await kube.get(tinyNodes, names.http_server!, ns);
      const control = node.status?.ports?.find((p) => p.name === "_control");
      const value = control?.configuration ? (decodeBase64Json(control.configuration, "_control") as { status?: string; listenAddr?: string[] }) : undefined;
      return value?.status === "Running" && (value.listenAddr ?? []).some((a) => a.includes(host));
    },
    10_000,
  );

  // One host, two replicas: the leader serves; the follower's re-host of the persisted port collides.
  const flags = await Promise.all(procs.map((p) => p.metric(LEADER_SERIES)));
  expect(flags.sort()).toEqual([0, 1]);
  const follower = procs[(await procs[0]!.metric(LEADER_SERIES)) === 1 ? 1 : 0]!;
  await waitUntil("the follower logged its bind failure", async () => readFileSync(follower.logFile, "utf8").includes(`cannot listen on :${port}`), 10_000);
  const line = readFileSync(follower.logFile, "utf8")
    .split("\n")
    .find((l) => l.includes(`cannot listen on :${port}`))!;
  expect(line).toContain("restore from metadata failed");

  // SIGKILL the leader: the port is free again; the new leader's reconcile re-hosts the persisted
  // port from status.metadata (components.md §2.1) and the same URL answers.
  const leader = procs.find((p) => p !== follower)!;
  const tKill = performance.now();
  await leader.kill();
  await waitUntil("the follower leads", async () => (await follower.metric(LEADER_SERIES)) === 1, 15_000, 50);
  let again: Response | undefined;
  await waitUntil(
    "the same port answers again",
    async () => {
      again = await fetch(`${base}/hello`).catch(() => undefined);
      return again !== undefined;
    },
    15_000,
    100,
  );
  expect(again!.status).toBe(200);
  expect(await again!.json()).toEqual({ hello: "world", method: "GET", path: "/hello" });
  const tFailover = performance.now();

  const ms = (a: number, b: number) => Math.round(b - a);
  console.log(
    `[e2e-hello ${transport}] ready ${ms(t0, tReady)} ms, reconciled ${ms(tReady, tReconciled)} ms, signal→port ${ms(tReconciled, tListening)} ms, 3 requests ${ms(tListening, tAnswered)} ms, SIGKILL leader → same port answers ${ms(tKill, tFailover)} ms`,
  );
}

describe("hello-api on a cluster, two replicas", () => {
  test("over core NATS: send_signal starts the server; GET 200 JSON, POST 201 echo, DELETE 404; port exposed on Service and Ingress; after SIGKILL of the leader the survivor re-hosts the port", async () => {
    await helloApiOnTwoReplicas("e2e-hello", sharedNatsUrl(), "core");
  }, 90_000);

  test("over JetStream: the same flow answers the same requests and survives the leader's SIGKILL", async () => {
    privateNats = await startNats();
    await helloApiOnTwoReplicas("e2e-hello-js", privateNats.url, "jetstream");
  }, 90_000);
});
