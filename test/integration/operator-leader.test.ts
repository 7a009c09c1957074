/**
 * Two `tinyhost run` processes of one module on the real control plane, with the default Lease
 * timings (15 s / 10 s / 2 s): exactly one leader at every sample, fast handover on SIGTERM (the
 * Lease is released), takeover after the lease duration on SIGKILL — never before the lease allows.
 * Measured takeover times are printed.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { leases, type KubeClient, type Lease } from "../../src/k8s/client/index.ts";
import { base64Json, sanitizeResourceName } from "../../src/core/api/index.ts";
import { tinyNodes } from "../../src/k8s/controllers/index.ts";
import type { ControlPlane } from "../support/control-plane.ts";
import { openClusterFixture } from "../support/cluster-fixture.ts";
import { startModuleProcess, type ModuleProcess } from "../support/module-process.ts";
import { waitUntil } from "../support/process.ts";

const MODULE = "tinysystems/leader-test";
const SANITIZED = sanitizeResourceName(MODULE);
const LEASE = `${SANITIZED}-lock`;
const LEADER_SERIES = `leader_election_master_status{name="${LEASE}"}`;

let cp: ControlPlane;
let kube: KubeClient;
let dir: string;
const procs: ModuleProcess[] = [];

beforeAll(async () => {
  ({ cp, kube, dir } = await openClusterFixture("operator-leader"));
}, 900_000);

afterAll(async () => {
  await Promise.all(procs.map((p) => p.stop(9000)));
});

async function start(ns: string, hostname: string, env: Record<string, string> = {}): Promise<ModuleProcess> {
  const p = await startModuleProcess({ hostname, name: MODULE, namespace: ns, kubeconfig: cp.tokenKubeconfig, logDir: dir, env });
  procs.push(p);
  return p;
}

async function leaderFlags(ps: ModuleProcess[]): Promise<(number | undefined)[]> {
  return Promise.all(ps.map((p) => p.metric(LEADER_SERIES)));
}

async function lease(ns: string): Promise<Lease> {
  return kube.get(leases, LEASE, ns);
}

describe("tinyhost run: leader election between two module processes", () => {
  test("exactly one leader at every sample over 30 s; the Lease names it; SIGTERM hands over within 3 s and exits 0", async () => {
    const ns = await cp.newNamespace("op-le");
    const a = await start(ns, "pod-a");
    const b = await start(ns, "pod-b");
    await waitUntil("one leader", async () => (await leaderFlags([a, b])).filter((v) => v === 1).length === 1, 20_000);
    let samples = 0;
    const end = performance.now() + 30_000;
    while (performance.now() < end) {
      const flags = await leaderFlags([a, b]);
      expect(flags.filter((v) => v === 1)).toHaveLength(1);
      expect(flags.filter((v) => v === 0)).toHaveLength(1);
      const holder = (await lease(ns)).spec?.holderIdentity;
      expect(holder).toBe(flags[0] === 1 ? "pod-a" : "pod-b");
      samples++;
      await Bun.sleep(200);
    }
    const [leader, follower] = (await leaderFlags([a, b]))[0] === 1 ? [a, b] : [b, a];
    const readyz = await follower.readyz();
    expect(readyz?.status).toBe(200); // a follower is ready: a leader is known
    console.log(`[op-le] ${samples} samples over 30 s, one leader in each`);

    const t0 = performance.now();
    const exited = leader.exited;
    await leader.stop(9000);
    await waitUntil("follower leads", async () => (await follower.metric(LEADER_SERIES)) === 1, 10_000, 20);
    const takeoverMs = performance.now() - t0;
    console.log(`[op-le] SIGTERM → other leads after ${Math.round(takeoverMs)} ms`);
    expect(await exited).toBe(0);
    expect(takeoverMs).toBeLessThan(3_000);
    expect((await lease(ns)).spec?.holderIdentity).toBe(follower === a ? "pod-a" : "pod-b");
  }, 120_000);

  test("SIGTERM the moment the Lease is ours, before start-up ends: the process exits 0 and the Lease is released, so the next replica need not wait 15 s", async () => {
    const ns = await cp.newNamespace("op-early");
    const p = await startModuleProcess({ hostname: "pod-e", name: MODULE, namespace: ns, kubeconfig: cp.tokenKubeconfig, logDir: dir, waitReady: false });
    procs.push(p);
    await waitUntil("pod-e holds the Lease", async () => (await lease(ns).catch(() => undefined))?.spec?.holderIdentity === "pod-e", 30_000, 2);
    const readyAtSignal = (await p.readyz())?.status === 200;
    process.kill(p.pid, "SIGTERM");
    expect(await p.exited).toBe(0);
    const released = (await lease(ns)).spec;
    console.log(
      `[op-early] SIGTERM with the Lease held, ${readyAtSignal ? "after" : "before"} /readyz 200: holder now ${JSON.stringify(released?.holderIdentity ?? "")}`,
    );
    // Released as a Go elector releases it (ReleaseOnCancel): no holder, a 1 s duration.
    expect(released?.holderIdentity ?? "").toBe("");
    expect(released?.leaseDurationSeconds).toBe(1);
  }, 60_000);

  test("SIGKILL of the leader: the other leads after the lease duration (not before), within lease + 2 retry periods; a deleted node then runs onDestroy on the survivor", async () => {
    const ns = await cp.newNamespace("op-kill");
    const rec = join(dir, `${ns}.jsonl`);
    const a = await start(ns, "pod-a", { RECORDER_FILE: rec });
    await waitUntil("pod-a leads", async () => (await a.metric(LEADER_SERIES)) === 1, 20_000);
    const b = await start(ns, "pod-b", { RECORDER_FILE: rec });
    const name = (
      await kube.create(
        tinyNodes,
        {
          metadata: { name: `a1b2c3d4.${SANITIZED}.recorder-k1a2b`, namespace: ns },
          spec: { module: MODULE, component: "recorder", ports: [{ port: "_settings", configuration: base64Json({ label: "k" }) }] },
        },
        { namespace: ns },
      )
    ).metadata.name!;
    const events = () =>
      existsSync(rec)
        ? readFileSync(rec, "utf8")
            .trim()
            .split("\n")
            .filter(Boolean)
            .map((l) => JSON.parse(l) as { pod: string; hook: string; node: string })
        : [];
    await waitUntil(
      "both pods ran onSettings",
      async () =>
        new Set(
          events()
            .filter((e) => e.hook === "onSettings")
            .map((e) => e.pod),
        ).size === 2,
      20_000,
    );

    // Last renewal of pod-a seen on the Lease before the kill.
    let last = await lease(ns);
    const renewedAt = Date.now();
    while (Date.now() - renewedAt < 2_500) {
      const l = await lease(ns);
      if (l.spec?.renewTime !== last.spec?.renewTime) last = l;
      await Bun.sleep(20);
    }
    last = await lease(ns);
    expect(last.spec?.holderIdentity).toBe("pod-a");
    const t0 = performance.now();
    await a.kill();
    await waitUntil("pod-b leads", async () => (await b.metric(LEADER_SERIES)) === 1, 25_000, 50);
    const takeoverMs = performance.now() - t0;
    const after = await lease(ns);
    const gapMs = Date.parse(after.spec!.acquireTime!) - Date.parse(last.spec!.renewTime!);
    console.log(`[op-kill] SIGKILL → other leads after ${Math.round(takeoverMs)} ms; new acquireTime − last renewTime = ${gapMs} ms`);
    expect(after.spec?.holderIdentity).toBe("pod-b");
    expect(after.spec?.leaseTransitions).toBe((last.spec?.leaseTransitions ?? 0) + 1);
    expect(gapMs).toBeGreaterThanOrEqual(15_000); // not before the lease allows
    // The candidate waits a full lease from when IT saw the last renewal (≤ 1 retry period + jitter
    // after it), then acquires on its next retry tick: ≤ 15 s + 2 × 2.4 s after that renewal.
    expect(gapMs).toBeLessThanOrEqual(15_000 + 2 * 2_400 + 500);

    await kube.delete(tinyNodes, name, { namespace: ns });
    await waitUntil("onDestroy on pod-b", async () => events().some((e) => e.hook === "onDestroy" && e.pod === "pod-b" && e.node === name), 20_000);
  }, 120_000);
});
