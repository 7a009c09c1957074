/**
 * A flow across a Go pod and a tinyhost pod on the real node (test/support/real-cluster.ts): the Go
 * peer module (test/go/peer over the real Go SDK, image scripts/image/go-tool-images.ts) and
 * tinyhost (the Dockerfile's image), each installed as its own release of the platform's chart
 * (test/support/real-release.ts), both exporting traces to one OTLP receiver of the test (on the
 * host's address, which the pods reach).
 *
 * The flow: Go `relay` → tinyhost `transform` → Go `echo`. A message sent to the relay crosses Go →
 * tinyhost and tinyhost → Go, and echo's reply climbs back through both, so one blocking send shows
 * both directions and the reply path; its three hops share one trace, exported by both modules.
 * First over NATS (the chart's `natsURL`, a NATS pod), then — after `helm upgrade` of both releases
 * with no `natsURL` — over the gRPC fallback, where each module dials the other's TinyModule
 * `status.addr`: the chart's SELF_SERVICE_HOST, i.e. the other release's manager Service, through
 * CoreDNS and kube-proxy.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createKubeClient, type KubeClient } from "../../src/k8s/client/index.ts";
import { tinyModules, tinyNodes } from "../../src/k8s/controllers/index.ts";
import { connectNats } from "../../src/transport/nats/index.ts";
import { publishToNode } from "../../src/transport/nats/publish.ts";
import { GrpcTransport } from "../../src/transport/grpc/index.ts";
import { logger } from "../../src/telemetry/log.ts";
import { getRealCluster, type RealCluster } from "../support/real-cluster.ts";
import { mixedFlow, mixedNodeName, type MixedNodeSpec } from "../support/go-peer.ts";
import { waitForReconciled } from "../support/flows.ts";
import { startOtlpReceiver, type OtlpReceiver, type ReceivedSpan } from "../support/otlp-receiver.ts";
import { waitUntil } from "../support/process.ts";
import {
  chartFullname,
  installModule,
  managerPods,
  newReleaseNamespace,
  openHelm,
  startNatsPod,
  type Helm,
  type ModuleRelease,
  tinyhostRbacValues,
  type NatsPod,
} from "../support/real-release.ts";
import { prepareChart } from "./chart-pod.ts";
import { openBuildContext } from "../../scripts/image/build-context.ts";
import { buildModuleImage } from "../../scripts/image/module-image.ts";
import { buildNatsImage } from "../../scripts/image/nats-image.ts";
import { buildGoPeerImage } from "../../scripts/image/go-tool-images.ts";
import { runTinyhost } from "../support/cli.ts";

/** The CLI from source (test/support/cli.ts). */
const tinyhost = (args: string[]) => runTinyhost(args);

const START_TIMEOUT_MS = 60 * 60_000;
const LOG = join(process.env.TINYHOST_TEST_TMP ?? tmpdir(), "real-go-peer-build.log");
const GO = "gopeer";
const TH = "thpeer";
const PREFIX = "f1a2b3c4";
/** Sends per wire for the round-trip figure (not asserted). */
const SAMPLES = 20;

let cluster: RealCluster;
let kube: KubeClient;
let helm: Helm;
let otlp: OtlpReceiver;
let ns: string;
let nats: NatsPod;
let releases: { go: ModuleRelease; th: ModuleRelease };

const relay: MixedNodeSpec = { module: GO, component: "relay", id: "r" };
const transform: MixedNodeSpec = { module: TH, component: "transform", id: "t" };
const echo: MixedNodeSpec = { module: GO, component: "echo", id: "e" };
const nameOf = (n: MixedNodeSpec) => mixedNodeName(PREFIX, n);

/** The reply echo gives for `data`, as it reaches the sender through transform and relay. */
const echoed = (data: unknown) => ({ echo: data, runtime: "go", node: nameOf(echo) });

/** Input spans (attribute `to`) of the three hops that carried `marker`'s message, all in one trace. */
async function chainTrace(before: number): Promise<{ traceId: string; spans: ReceivedSpan[] }> {
  let found: { traceId: string; spans: ReceivedSpan[] } | undefined;
  const to = (n: MixedNodeSpec) => `${nameOf(n)}:in`;
  await waitUntil(
    "input spans of relay, transform and echo in one trace, from both modules",
    async () => {
      const fresh = otlp.spans.slice(before);
      const middle = fresh.find((s) => s.attributes.to === to(transform));
      if (!middle) return false;
      const spans = otlp.spans.filter((s) => s.traceId === middle.traceId);
      const hops = [relay, transform, echo].map((n) => spans.find((s) => s.attributes.to === to(n)));
      if (hops.some((h) => h === undefined)) return false;
      found = { traceId: middle.traceId, spans: hops as ReceivedSpan[] };
      return true;
    },
    30_000,
    250,
  );
  return found!;
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}

beforeAll(async () => {
  let chart: string;
  [cluster, chart] = await Promise.all([getRealCluster(), prepareChart()]);
  kube = await createKubeClient({ kubeconfig: cluster.controlPlane.tokenKubeconfig, env: {} });
  helm = await openHelm(cluster);
  const ctx = await openBuildContext({ file: LOG });
  const images = { module: await buildModuleImage(ctx), nats: await buildNatsImage(ctx), go: await buildGoPeerImage(ctx) };
  for (const image of Object.values(images)) await cluster.node.importImage(image.archive);
  otlp = await startOtlpReceiver(cluster.node.hostIp);
  ns = await newReleaseNamespace(cluster, "real-go-peer");
  nats = await startNatsPod(cluster, ns, images.nats.ref);
  const common = { namespace: ns, chart, natsUrl: nats.inClusterUrl };
  releases = {
    go: { ...common, release: GO, image: images.go.ref, moduleName: GO, env: { OTLP_DSN: otlp.dsn, OTEL_RESOURCE_ATTRIBUTES: `service.name=${GO}` } },
    th: { ...common, release: TH, image: images.module.ref, moduleName: TH, env: { OTLP_DSN: otlp.dsn }, valuesFiles: [tinyhostRbacValues(helm)] },
  };
}, START_TIMEOUT_MS);

afterAll(async () => {
  if (ns && cluster) {
    for (const r of [GO, TH]) await helm?.run(["uninstall", r, "-n", ns, "--ignore-not-found", "--wait", "--timeout", "2m"], 150_000).catch(() => undefined);
    await cluster.controlPlane.request("DELETE", `/api/v1/namespaces/${ns}`);
  }
  helm?.dispose();
  await otlp?.stop();
}, 360_000);

describe("a Go pod and a tinyhost pod in one flow, on a real node", () => {
  test("both releases install (helm) and their pods go Ready; the flow's nodes are reconciled by their modules", async () => {
    const t0 = performance.now();
    const runs = await Promise.all([installModule(helm, releases.go), installModule(helm, releases.th)]);
    expect((await managerPods(cluster, ns, GO)).length).toBe(1);
    expect((await managerPods(cluster, ns, TH)).length).toBe(1);
    const objects = mixedFlow(
      ns,
      PREFIX,
      [relay, transform, echo],
      [
        { from: relay, to: transform, configuration: { context: "{{$.data}}" } },
        { from: transform, to: echo, configuration: { data: "{{$.context}}" } },
      ],
    );
    for (const o of objects) await kube.create(tinyNodes, o, { namespace: ns });
    await waitForReconciled(
      kube,
      ns,
      objects.map((o) => o.metadata.name!),
      60_000,
    );
    console.error(
      `[real-go-peer] helm install Go ${runs[0].ms} ms, tinyhost ${runs[1].ms} ms (in parallel); both Ready and reconciled ${Math.round(performance.now() - t0)} ms`,
    );
  }, 400_000);

  test("over NATS: Go → tinyhost → Go and the reply back, in one trace exported by both modules", async () => {
    const before = otlp.spans.length;
    const sent = await tinyhost(["send", "--wait", "--nats-url", nats.hostUrl, nameOf(relay), "in", '{"data":{"q":"ping","n":1}}']);
    expect({ code: sent.code, stderr: sent.stderr }).toEqual({ code: 0, stderr: "" });
    expect(JSON.parse(sent.stdout)).toEqual(echoed({ q: "ping", n: 1 }));
    const { traceId, spans } = await chainTrace(before);
    expect(traceId).toMatch(/^[0-9a-f]{32}$/);
    expect(spans.map((s) => s.service)).toEqual([GO, TH, GO]);

    // Round trips of the chain (2 cross-pod hops and their replies), from the host.
    const nc = await connectNats(nats.hostUrl, { name: "real-go-peer" });
    const ms: number[] = [];
    try {
      for (let i = 0; i < SAMPLES; i++) {
        const t0 = performance.now();
        const { result } = await publishToNode(nc, nameOf(relay), "in", { data: { i } }, { wait: true, timeoutMs: 10_000 });
        ms.push(performance.now() - t0);
        expect(result.kind).toBe("ok");
        const value = (result as { value: unknown }).value;
        expect(JSON.parse(value instanceof Uint8Array ? new TextDecoder().decode(value) : JSON.stringify(value))).toEqual(echoed({ i }));
      }
    } finally {
      await nc.close();
    }
    console.error(
      `[real-go-peer] NATS: relay(Go) → transform(tinyhost) → echo(Go) round trip from the host, median ${median(ms).toFixed(1)} ms, min ${Math.min(...ms).toFixed(1)} ms (${SAMPLES} sends)`,
    );
  }, 120_000);

  test("over the gRPC fallback through the Services: helm upgrade without natsURL, then the same chain and one trace", async () => {
    const t0 = performance.now();
    await Promise.all([installModule(helm, { ...releases.go, natsUrl: "" }, true), installModule(helm, { ...releases.th, natsUrl: "" }, true)]);
    // Each module advertises its release's manager Service (the chart's SELF_SERVICE_HOST).
    for (const m of [GO, TH]) {
      await waitUntil(
        `TinyModule ${m} status.addr is its Service`,
        async () => (await kube.get(tinyModules, m, ns)).status?.addr === `${chartFullname(m)}-manager-service:8483`,
        60_000,
        250,
      );
    }
    const [goPod] = await managerPods(cluster, ns, GO);
    await waitForReconciled(kube, ns, [relay, transform, echo].map(nameOf), 60_000);
    const upgradedMs = Math.round(performance.now() - t0);

    // From the host to the Go pod's gRPC port (the host routes pod IPs, not Service IPs); the hops
    // between the pods go through the Services.
    const grpc = new GrpcTransport({ log: logger.child({ component: "real-go-peer" }) });
    grpc.register(GO, `${goPod!.status.podIP}:8483`);
    const ms: number[] = [];
    const before = otlp.spans.length;
    try {
      // kube-proxy may route a Service to the new pods a moment after the rollout reports done, and
      // a module's gRPC client backs off after a failed dial: the first chain is polled for.
      let last = "";
      await waitUntil(
        "a first chain over gRPC to answer",
        async () => {
          const r = await grpc.send({ edgeId: "", from: "signal", to: `${nameOf(relay)}:in`, data: { data: { warm: true } }, depth: 0 });
          last = r.kind === "fail" ? r.error.message : r.kind;
          return r.kind === "ok";
        },
        90_000,
        500,
      ).catch((e: Error) => {
        throw new Error(`${e.message}; last: ${last}`);
      });
      for (let i = 0; i < SAMPLES; i++) {
        const t1 = performance.now();
        const r = await grpc.send({ edgeId: "", from: "signal", to: `${nameOf(relay)}:in`, data: { data: { g: i } }, depth: 0 });
        ms.push(performance.now() - t1);
        if (r.kind !== "ok") throw new Error(`send ${i} over gRPC: ${r.kind === "fail" ? r.error.message : "no reply"}`);
        const value = r.value;
        expect(JSON.parse(value instanceof Uint8Array ? new TextDecoder().decode(value) : JSON.stringify(value))).toEqual(echoed({ g: i }));
      }
    } finally {
      grpc.close();
    }
    const { traceId, spans } = await chainTrace(before);
    expect(traceId).toMatch(/^[0-9a-f]{32}$/);
    expect(spans.map((s) => s.service)).toEqual([GO, TH, GO]);
    console.error(
      `[real-go-peer] helm upgrade to gRPC + rollout + addr + reconcile ${upgradedMs} ms; gRPC: round trip from the host, median ${median(ms).toFixed(1)} ms, min ${Math.min(...ms).toFixed(1)} ms (${SAMPLES} sends after a first one answered)`,
    );
  }, 400_000);
});
