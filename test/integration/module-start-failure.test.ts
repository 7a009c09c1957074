/**
 * A cluster-mode start-up that fails after its Lease campaign began and its wire opened
 * (src/operator/module.ts): the error names the stage, the NATS connection is closed again and the
 * Lease is released, so another replica leads at once instead of after the lease duration.
 * startModule runs in this process against the real control plane and a nats-server of its own.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import pino from "pino";
import { leases, type KubeClient } from "../../src/k8s/client/index.ts";
import { sanitizeResourceName } from "../../src/core/api/index.ts";
import { ModuleStartError, startModule, type ModuleOptions, type RunningModule } from "../../src/operator/index.ts";
import type { ControlPlane } from "../support/control-plane.ts";
import { openClusterFixture } from "../support/cluster-fixture.ts";
import { startNats, type NatsServer } from "../support/nats.ts";
import { waitUntil } from "../support/process.ts";

const MODULE = "tinysystems/start-failure";
const LEASE = `${sanitizeResourceName(MODULE)}-lock`;

let cp: ControlPlane;
let kube: KubeClient;
let nats: NatsServer;
const running: RunningModule[] = [];

beforeAll(async () => {
  ({ cp, kube } = await openClusterFixture("module-start-failure"));
  nats = await startNats({ jetstream: false });
}, 900_000);

afterAll(async () => {
  await Promise.all(running.map((m) => m.stop("test done")));
  await nats?.stop();
});

function options(ns: string, hostname: string, over: Partial<ModuleOptions> = {}): ModuleOptions {
  return {
    name: MODULE,
    version: "1.0.0",
    namespace: ns,
    kubeconfig: cp.tokenKubeconfig,
    hostname,
    healthProbeBindAddress: "127.0.0.1:0",
    grpcServerBindAddress: "127.0.0.1:0",
    env: { TINY_NATS_URL: nats.url },
    log: pino({ level: "silent" }),
    ...over,
  };
}

async function natsConnections(): Promise<number> {
  const res = await fetch(`http://127.0.0.1:${nats.monitorPort}/connz`);
  return ((await res.json()) as { num_connections: number }).num_connections;
}

describe("a start-up that fails at a stage after the campaign began", () => {
  test("names the stage, closes the NATS connection it opened and releases the Lease: the next replica leads at once", async () => {
    const ns = await cp.newNamespace("start-failure");
    const err = await startModule(options(ns, "failing-0", { healthProbeBindAddress: "no-port" })).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ModuleStartError);
    expect((err as ModuleStartError).stage).toBe("health server");
    expect((err as Error).message).toContain("no-port");

    await waitUntil("the failed start-up's NATS connection is closed", async () => (await natsConnections()) === 0, 5_000, 50);
    const lease = await kube.get(leases, LEASE, ns).catch(() => undefined);
    expect(lease?.spec?.holderIdentity ?? "").toBe(""); // released (or never written), not held by failing-0

    // A Lease still held by failing-0 would keep the next replica waiting for the 15 s lease duration.
    running.push(await startModule(options(ns, "healthy-0")));
    await waitUntil("healthy-0 holds the Lease", async () => (await kube.get(leases, LEASE, ns)).spec?.holderIdentity === "healthy-0", 8_000, 50);
  }, 60_000);
});
