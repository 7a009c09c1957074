/**
 * `npm run cluster:up -- --real --keda` (test/support/cluster-up.ts) as a user runs it, one process:
 * - it prints KEDA's ready line after the node's parts, and KEDA's metrics APIService is Available;
 * - KEDA reads the broker by its in-cluster name: a ScaledObject as `provision --autoscale` writes it,
 *   its endpoint `<headless Service>.<ns>.svc:<port>`, activates its Deployment on one durable hop. The
 *   name resolves through the node's CoreDNS to the Service's endpoint, here a forwarder on this host
 *   to a nats-server's monitoring port (which listens on loopback, not allowed in endpoints);
 * - SIGTERM stops it with exit 0 and no KEDA process left.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { networkInterfaces } from "node:os";
import { resolve } from "node:path";
import YAML from "yaml";
import { startNats, type NatsServer } from "../support/nats.ts";
import { PODSERVER_IMAGE } from "../support/real-node/node.ts";
import { until } from "../support/until.ts";
import { NATS_NAME } from "../../src/provision/broker-url.ts";
import { prepareBroker } from "../../src/provision/hooks/broker-prepare.ts";
import { kedaObjectName, resolveAutoscale, scaledObject } from "../../src/provision/scaling.ts";
import { connectNats } from "../../src/transport/nats/connect.ts";
import { JetStreamTransport } from "../../src/transport/nats/jetstream.ts";
import type { Subprocess } from "bun";
import type { NatsConnection } from "@nats-io/transport-node";

const ROOT = resolve(import.meta.dir, "../..");
/** Cold builds of the node's binaries and of KEDA (scripts/build-node.sh, build-keda.sh) take up to an hour on 2 busy cores. */
const START_TIMEOUT_MS = 75 * 60_000;
const NS = "tinysystems";

let up: Subprocess<"ignore", "pipe", "pipe"> | undefined;
let output = "";
let request: (method: string, path: string, body?: unknown) => Promise<Response>;
let srv: NatsServer | undefined;
let nc: NatsConnection | undefined;
let forwarder: ReturnType<typeof Bun.serve> | undefined;
const jszRequests: string[] = [];

/** Requests with the token user of the kubeconfig cluster:up printed. */
function clientFrom(kubeconfig: string) {
  const kc = YAML.parse(readFileSync(kubeconfig, "utf8")) as {
    clusters: { cluster: { server: string; "certificate-authority-data": string } }[];
    users: { user: { token: string } }[];
  };
  const { server, "certificate-authority-data": ca } = kc.clusters[0]!.cluster;
  const token = kc.users[0]!.user.token;
  return (method: string, path: string, body?: unknown) =>
    fetch(server + path, {
      method,
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json", accept: "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
      tls: { ca: Buffer.from(ca, "base64").toString() },
    });
}

function hostAddress(): string {
  for (const list of Object.values(networkInterfaces())) for (const a of list ?? []) if (a.family === "IPv4" && !a.internal) return a.address;
  throw new Error("no non-loopback IPv4 address on this host");
}

beforeAll(async () => {
  up = Bun.spawn([process.execPath, "test/support/cluster-up.ts", "--real", "--keda"], { cwd: ROOT, stdin: "ignore", stdout: "pipe", stderr: "pipe" });
  const decoder = new TextDecoder();
  const reader = up.stdout.getReader();
  while (!output.includes("Press Ctrl-C to stop everything.")) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`cluster:up exited ${await up.exited} before it was up:\n${output}\n${await new Response(up.stderr).text()}`);
    output += decoder.decode(value);
  }
  reader.releaseLock();
  void up.stdout.pipeTo(new WritableStream()); // keep draining: a full pipe would block it
  void up.stderr.pipeTo(new WritableStream());
  const kubeconfig = /^kubeconfig: (.+)$/m.exec(output)?.[1];
  if (!kubeconfig) throw new Error(`no kubeconfig line in cluster:up's output:\n${output}`);
  request = clientFrom(kubeconfig);
  srv = await startNats();
  nc = await connectNats(srv.url, { reconnectTimeWaitMs: 100 });
  const monitor = srv.monitorPort;
  forwarder = Bun.serve({
    hostname: "0.0.0.0",
    port: 0,
    fetch(req) {
      const url = new URL(req.url);
      jszRequests.push(url.pathname);
      return fetch(`http://127.0.0.1:${monitor}${url.pathname}${url.search}`);
    },
  });
}, START_TIMEOUT_MS);

afterAll(async () => {
  forwarder?.stop(true);
  await nc?.drain();
  await srv?.dispose();
  if (up && up.exitCode === null) {
    up.kill("SIGTERM");
    await up.exited;
  }
}, 120_000);

describe("cluster:up --real --keda", () => {
  test("KEDA's ready line comes after the node's parts, and its metrics APIService is Available", async () => {
    const lines = output.split("\n");
    const kedaLine = lines.findIndex((l) => /^keda: operator\+adapter ready \(\d+ ms\)$/.test(l));
    const nodeLine = lines.findIndex((l) => l.startsWith("kubelet (node Ready)"));
    expect({ kedaLine: kedaLine >= 0, afterNode: kedaLine > nodeLine && nodeLine >= 0 }).toEqual({ kedaLine: true, afterNode: true });
    const res = await request("GET", "/apis/apiregistration.k8s.io/v1/apiservices/v1beta1.external.metrics.k8s.io");
    const s = (await res.json()) as { status?: { conditions?: { type: string; status: string }[] } };
    expect(s.status?.conditions?.find((c) => c.type === "Available")?.status).toBe("True");
  });

  test("a ScaledObject naming the broker's headless Service activates its Deployment on one durable hop", async () => {
    // The broker behind the name provision writes: a selector-less headless Service whose endpoint is the forwarder.
    const service = `${NATS_NAME}-headless`;
    const port = forwarder!.port!;
    const created = [
      await request("POST", `/api/v1/namespaces/${NS}/services`, {
        metadata: { name: service },
        spec: { clusterIP: "None", ports: [{ name: "monitor", port, targetPort: port }] },
      }),
      await request("POST", `/apis/discovery.k8s.io/v1/namespaces/${NS}/endpointslices`, {
        metadata: { name: `${service}-1`, labels: { "kubernetes.io/service-name": service } },
        addressType: "IPv4",
        endpoints: [{ addresses: [hostAddress()], conditions: { ready: true } }],
        ports: [{ name: "monitor", port, protocol: "TCP" }],
      }),
      await request("POST", `/apis/apps/v1/namespaces/${NS}/deployments`, {
        metadata: { name: "shop" },
        spec: {
          replicas: 0,
          selector: { matchLabels: { app: "shop" } },
          template: {
            metadata: { labels: { app: "shop" } },
            spec: { containers: [{ name: "m", image: PODSERVER_IMAGE, imagePullPolicy: "Never" }] },
          },
        },
      }),
    ];
    for (const r of created) expect(r.status, await r.clone().text()).toBe(201);
    await prepareBroker(srv!.url, "shop");
    const endpoint = `${service}.${NS}.svc:${port}`;
    const so = scaledObject({ namespace: NS, release: "shop", module: "shop", deployment: "shop", endpoint }, resolveAutoscale({ min: 0, max: 2, polling: 1 }));
    const soRes = await request("POST", `/apis/keda.sh/v1alpha1/namespaces/${NS}/scaledobjects`, so);
    expect(soRes.status, await soRes.clone().text()).toBe(201);
    await until("KEDA reads /jsz through the Service's name", () => jszRequests.includes("/jsz"), 60_000, 200);
    const replicas = async () =>
      ((await (await request("GET", `/apis/apps/v1/namespaces/${NS}/deployments/shop`)).json()) as { spec: { replicas?: number } }).spec.replicas ?? 0;
    expect(await replicas()).toBe(0);

    const sender = await JetStreamTransport.create({ nc: nc!, module: "other" });
    const sent = await sender.send({ edgeId: "e", from: "f.other.a-1:out", to: "f.shop.x-1:in", data: {}, depth: 1, runId: "run-0" });
    expect(sent.kind).not.toBe("fail");
    await until("KEDA scales 0 → 1", async () => (await replicas()) === 1, 60_000, 200);
    const sel = encodeURIComponent(`scaledobject.keda.sh/name=${kedaObjectName("shop")}`);
    await until(
      "the lag through the external metrics API",
      async () => {
        const res = await request("GET", `/apis/external.metrics.k8s.io/v1beta1/namespaces/${NS}/s0-nats-jetstream-module-edges?labelSelector=${sel}`);
        return res.ok && ((await res.json()) as { items: { value: string }[] }).items[0]?.value === "1";
      },
      30_000,
      200,
    );
  }, 180_000);

  test("SIGTERM stops everything with exit 0 and leaves no KEDA process", async () => {
    const logs = /\(logs (\S+keda-operator\.log), /.exec(output)?.[1];
    expect(logs).toBeDefined();
    const dir = logs!.slice(0, -"/keda-operator.log".length);
    const kedaPids = () =>
      Bun.spawnSync(["pgrep", "-f", dir], { stdout: "pipe" })
        .stdout.toString()
        .split("\n")
        .filter((l) => l.trim() !== "");
    expect(kedaPids().length).toBeGreaterThanOrEqual(2);
    up!.kill("SIGTERM");
    expect(await up!.exited).toBe(0);
    expect(kedaPids()).toEqual([]);
  }, 180_000);
});
