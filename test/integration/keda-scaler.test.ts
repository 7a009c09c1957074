/**
 * KEDA v2.21.0 (its real operator and metrics adapter, test/support/keda.ts) scaling on what tinyhost
 * emits (issue 36), beside a test control plane with the aggregation layer and a real nats-server —
 * no node, so no pods run; what is proven is KEDA's side of scale-to-zero on our objects:
 * - the ScaledObject `scaledObject()` builds (src/provision/scaling.ts) is accepted by KEDA's CRD and
 *   its nats-jetstream trigger reads consumer `<module>`, which `pre-install`'s broker step made;
 * - idle (lag 0) the Deployment stays at 0 replicas; one durable hop published → KEDA activates it
 *   (0 → 1) — the first part of a cold start, measured; the lag reaches the HPA through the
 *   aggregated external metrics API; KEDA's HPA carries min 1 / max and the lag threshold;
 * - the backlog drained, KEDA returns the Deployment to 0 after the cooldown.
 * The whole proof with pods in the real cluster (cold start with its parts, a 5,000-hop burst,
 * scale-in) is issue 36 item 5; docs/operations.md §15.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startControlPlane, type OwnedControlPlane } from "../support/control-plane.ts";
import { startKeda, type Keda } from "../support/keda.ts";
import { startNats, type NatsServer } from "../support/nats.ts";
import { until } from "../support/until.ts";
import { runTinyhost } from "../support/cli.ts";
import { prepareBroker } from "../../src/provision/hooks/broker-prepare.ts";
import { kedaObjectName, resolveAutoscale, scaledObject } from "../../src/provision/scaling.ts";
import { connectNats } from "../../src/transport/nats/connect.ts";
import { JetStreamTransport } from "../../src/transport/nats/jetstream.ts";
import { empty } from "../../src/core/result.ts";
import type { NatsConnection } from "@nats-io/transport-node";

let cp: OwnedControlPlane;
let keda: Keda;
let srv: NatsServer;
let nc: NatsConnection;
let ns: string;
const figures: Record<string, number> = {};

beforeAll(async () => {
  const dir = mkdtempSync(join(process.env.TINYHOST_TEST_TMP ?? tmpdir(), "keda-"));
  cp = await startControlPlane({ aggregationLayer: true });
  srv = await startNats();
  nc = await connectNats(srv.url, { reconnectTimeWaitMs: 100 });
  keda = await startKeda(cp, dir);
  ns = await cp.newNamespace("scale");
}, 60 * 60_000); // a cold KEDA build takes 12–35 min

afterAll(async () => {
  await keda?.stop();
  await nc?.drain();
  await srv?.dispose();
  await cp?.stop();
  if (Object.keys(figures).length > 0) console.log(`[keda-scaler] ${JSON.stringify(figures)}`);
});

async function replicas(): Promise<number> {
  const res = await cp.request("GET", `/apis/apps/v1/namespaces/${ns}/deployments/shop`);
  return ((await res.json()) as { spec: { replicas: number } }).spec.replicas;
}

async function externalLag(): Promise<number | undefined> {
  const sel = encodeURIComponent(`scaledobject.keda.sh/name=${kedaObjectName("shop")}`);
  const res = await cp.request("GET", `/apis/external.metrics.k8s.io/v1beta1/namespaces/${ns}/s0-nats-jetstream-module-edges?labelSelector=${sel}`);
  if (!res.ok) return undefined;
  const body = (await res.json()) as { items: { value: string }[] };
  return body.items[0] ? Number.parseInt(body.items[0].value, 10) : undefined;
}

describe("KEDA on tinyhost's ScaledObject", () => {
  test("0 replicas idle → one durable hop activates the Deployment → the lag reaches the HPA → drained, back to 0 after the cooldown", async () => {
    await prepareBroker(srv.url, "shop");
    const deployment = {
      apiVersion: "apps/v1",
      kind: "Deployment",
      metadata: { name: "shop", namespace: ns },
      spec: {
        replicas: 0,
        selector: { matchLabels: { app: "shop" } },
        template: { metadata: { labels: { app: "shop" } }, spec: { containers: [{ name: "m", image: "tinyhost:test" }] } },
      },
    };
    expect((await cp.request("POST", `/apis/apps/v1/namespaces/${ns}/deployments`, deployment)).ok).toBe(true);
    const policy = resolveAutoscale({ min: 0, max: 5, lag: 20, polling: 1, cooldown: 3 });
    const so = scaledObject({ namespace: ns, release: "shop", module: "shop", deployment: "shop", endpoint: `127.0.0.1:${srv.monitorPort}` }, policy);
    const created = await cp.request("POST", `/apis/keda.sh/v1alpha1/namespaces/${ns}/scaledobjects`, so);
    expect(created.status, await created.clone().text()).toBe(201);
    await until(
      "KEDA's HPA for the ScaledObject",
      async () => (await cp.request("GET", `/apis/autoscaling/v2/namespaces/${ns}/horizontalpodautoscalers/keda-hpa-${kedaObjectName("shop")}`)).ok,
      60_000,
      200,
    );
    const hpa = (await (
      await cp.request("GET", `/apis/autoscaling/v2/namespaces/${ns}/horizontalpodautoscalers/keda-hpa-${kedaObjectName("shop")}`)
    ).json()) as {
      spec: { minReplicas: number; maxReplicas: number; metrics: { external: { target: { averageValue: string } } }[] };
    };
    expect({ min: hpa.spec.minReplicas, max: hpa.spec.maxReplicas, target: hpa.spec.metrics[0]!.external.target.averageValue }).toEqual({
      min: 1,
      max: 5,
      target: "20",
    });
    // Idle: several polls, still at zero.
    await Bun.sleep(3000);
    expect(await replicas()).toBe(0);

    // One durable hop from another module → KEDA activates the Deployment.
    const sender = await JetStreamTransport.create({ nc, module: "other" });
    const t0 = performance.now();
    expect((await sender.send({ edgeId: "e", from: "f.other.a-1:out", to: "f.shop.x-1:in", data: {}, depth: 1, runId: "run-0" })).kind).not.toBe("fail");
    await until("KEDA scales 0 → 1", async () => (await replicas()) === 1, 60_000, 100);
    figures.activationMs = Math.round(performance.now() - t0);
    await until("the lag through the external metrics API", async () => (await externalLag()) === 1, 30_000, 200);

    // A burst: the HPA would ask ceil(lag ÷ 20) replicas, capped at max.
    for (let i = 1; i <= 100; i++) await sender.send({ edgeId: "e", from: "f.other.a-1:out", to: "f.shop.x-1:in", data: { i }, depth: 1, runId: `run-${i}` });
    await until("the burst's lag through the external metrics API", async () => (await externalLag()) === 101, 30_000, 200);

    // The module drains the backlog; after the cooldown KEDA returns the Deployment to 0.
    let handled = 0;
    const module = await JetStreamTransport.create({ nc: await connectNats(srv.url), module: "shop", pod: "pod-a", healthCheckMs: 300 });
    try {
      await module.serve({
        handler: async () => {
          handled++;
          return empty;
        },
      });
      await until("the backlog drained", () => handled === 101, 30_000);
      const drained = performance.now();
      await until("KEDA scales 1 → 0 after the cooldown", async () => (await replicas()) === 0, 60_000, 200);
      figures.scaleToZeroAfterDrainMs = Math.round(performance.now() - drained);
      expect(figures.scaleToZeroAfterDrainMs).toBeGreaterThanOrEqual(policy.cooldownPeriodSeconds * 1000 - 1500); // KEDA honoured the cooldown (its last active poll is ≤ 1 poll before the drain)
    } finally {
      await module.close(200);
      await module.nc.close();
    }
    expect(handled).toBe(101);
  }, 240_000);
});

describe("provision --autoscale, then provision without it", () => {
  test("the second run removes the ScaledObject, the broker Job and KEDA's hold on the Deployment (replicas back to 1, no floor in the env)", async () => {
    const ns2 = await cp.newNamespace("scale-off");
    const args = ["provision", "-n", ns2, "--name", "shop", "--image", "registry.example.com/acme/shop:1.0.0", "--no-otel"];
    const on = await runTinyhost([...args, "--autoscale", "min=0,max=2"], { kubeconfig: cp.tokenKubeconfig });
    if (on.code !== 0) throw new Error(`provision --autoscale exited ${on.code}: ${on.stderr}`);
    const so = `/apis/keda.sh/v1alpha1/namespaces/${ns2}/scaledobjects/${kedaObjectName("shop")}`;
    const job = `/apis/batch/v1/namespaces/${ns2}/jobs/shop-broker-setup`;
    expect((await cp.request("GET", so)).status).toBe(200);
    expect((await cp.request("GET", job)).status).toBe(200);
    const off = await runTinyhost(args, { kubeconfig: cp.tokenKubeconfig });
    if (off.code !== 0) throw new Error(`provision exited ${off.code}: ${off.stderr}`);
    expect(off.stdout).toContain(`scaledobject/${kedaObjectName("shop")} (${ns2}) deleted`);
    expect(off.stdout).toContain(`job/shop-broker-setup (${ns2}) deleted`);
    expect((await cp.request("GET", so)).status).toBe(404);
    expect((await cp.request("GET", job)).status).toBe(404);
    const dep = (await (await cp.request("GET", `/apis/apps/v1/namespaces/${ns2}/deployments/shop-controller-manager`)).json()) as {
      spec: { replicas: number; template: { spec: { containers: { env?: { name: string }[] }[] } } };
    };
    expect(dep.spec.replicas).toBe(1);
    expect(dep.spec.template.spec.containers[0]!.env?.map((e) => e.name)).not.toContain("TINYHOST_AUTOSCALE_MIN");
  }, 120_000);
});
