/**
 * A module started before its broker (`tinyhost provision` applies both together): with
 * `TINYHOST_NATS_CONNECT_WAIT_MS` its first NATS connect is retried until the broker answers and it
 * ends up on NATS (TinyModule `status.addr` `nats://…`), not ready while it waits; without the knob
 * it falls back to gRPC as Go does (runtime-spec §4.1). src/operator/nats-connect-wait.ts.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { KubeClient } from "../../src/k8s/client/index.ts";
import { tinyModules } from "../../src/k8s/controllers/index.ts";
import { connectControlPlane, type ControlPlane } from "../support/control-plane.ts";
import { startModuleProcess, type ModuleProcess } from "../support/module-process.ts";
import { startNats, type NatsServer } from "../support/nats.ts";
import { waitUntil } from "../support/process.ts";

let cp: ControlPlane;
let kube: KubeClient;
let nats: NatsServer | undefined;
const procs: ModuleProcess[] = [];

beforeAll(async () => void ({ cp, kube } = await connectControlPlane()), 900_000);

afterAll(async () => {
  for (const p of procs) await p.stop(9000);
  await nats?.dispose();
});

/** The module's TinyModule `status.addr` once the leader wrote it. */
async function addrOf(module: string, ns: string): Promise<string> {
  let addr = "";
  await waitUntil(
    `TinyModule ${module} has status.addr`,
    async () => {
      const m = await kube.get(tinyModules, module, ns).catch(() => undefined);
      addr = (m?.status as { addr?: string } | undefined)?.addr ?? "";
      return addr !== "";
    },
    60_000,
  );
  return addr;
}

test("with the knob the module waits for a broker started after it and runs on NATS; without it, gRPC", async () => {
  // A broker whose port is known but which is not running yet.
  nats = await startNats({ jetstream: false });
  await nats.stop();
  const ns = await cp.newNamespace("nats-wait");
  const dir = mkdtempSync(join(process.env.TINYHOST_TEST_TMP ?? tmpdir(), "nats-wait-"));

  const waiting = await startModuleProcess({
    hostname: "waiter-0",
    name: "waiter",
    namespace: ns,
    kubeconfig: cp.tokenKubeconfig,
    env: { TINY_NATS_URL: nats.url, TINYHOST_NATS_CONNECT_WAIT_MS: "120000" },
    logDir: dir,
    waitReady: false,
  });
  procs.push(waiting);
  await waitUntil(
    "the waiting module logs a failed attempt",
    async () => readFileSync(waiting.logFile, "utf8").includes("retrying until the broker answers"),
    60_000,
  );
  // Not ready while it waits (its health server starts once the wire is open).
  expect((await waiting.readyz())?.status).not.toBe(200);

  // Go's rule without the knob: one attempt, then gRPC for the process's life.
  const fallback = await startModuleProcess({
    hostname: "fallback-0",
    name: "fallback",
    namespace: ns,
    kubeconfig: cp.tokenKubeconfig,
    env: { TINY_NATS_URL: nats.url },
    logDir: dir,
  });
  procs.push(fallback);
  expect(readFileSync(fallback.logFile, "utf8")).toContain("falling back to gRPC");
  expect(await addrOf("fallback", ns)).not.toStartWith("nats://");

  await nats.restart();
  await waitUntil("the waiting module becomes ready", async () => (await waiting.readyz())?.status === 200, 60_000);
  expect(await addrOf("waiter", ns)).toBe("nats://tinymodule.waiter.msg");
  expect(readFileSync(waiting.logFile, "utf8")).not.toContain("falling back to gRPC");
}, 240_000);
