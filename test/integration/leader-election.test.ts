/**
 * Leader election against a real coordination.k8s.io/v1 Lease: one leader at a time, fast handover
 * on release, takeover only after the lease duration when the leader vanishes without releasing.
 * Timings are shortened (lease 4 s, renew deadline 3 s, retry 500 ms); takeover times are printed.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createKubeClient, leases, type KubeClient } from "../../src/k8s/client/index.ts";
import { sanitizeIdentity, sanitizeResourceName } from "../../src/core/api/naming.ts";
import { LeaderElector, type LeaseClient } from "../../src/k8s/runtime/index.ts";
import { connectControlPlane, startControlPlane, type ControlPlane, type OwnedControlPlane } from "../support/control-plane.ts";
import { until as poll } from "../support/until.ts";

const LEASE_MS = 4_000;
const RENEW_MS = 3_000;
const RETRY_MS = 500;

let cp: ControlPlane;
let kube: KubeClient;

beforeAll(async () => void ({ cp, kube } = await connectControlPlane()), 900_000);

function elector(ns: string, identity: string, extra: { releaseOnCancel?: boolean } = {}) {
  const events: { what: "started" | "stopped"; at: number }[] = [];
  const el = new LeaderElector({
    client: kube,
    namespace: ns,
    name: `${sanitizeResourceName("Lease Test Module")}-lock`,
    identity: sanitizeIdentity(identity),
    leaseDurationMs: LEASE_MS,
    renewDeadlineMs: RENEW_MS,
    retryPeriodMs: RETRY_MS,
    onStartedLeading: () => events.push({ what: "started", at: performance.now() }),
    onStoppedLeading: () => events.push({ what: "stopped", at: performance.now() }),
    ...extra,
  });
  const stop = new AbortController();
  const run = el.run(stop.signal);
  return { el, stop, run, events };
}

/** This file's timeout and poll interval. */
const until = (cond: () => boolean, ms: number, what: string) => poll(what, cond, ms);

describe("leader election on a real Lease", () => {
  test("two electors: exactly one leader at every sample over 10 s, and the Lease names it", async () => {
    const ns = await cp.newNamespace("le-one");
    const a = elector(ns, "Pod_A.1");
    const b = elector(ns, "Pod_B.1");
    await until(() => a.el.isLeader() || b.el.isLeader(), 10_000, "a leader");
    let samples = 0;
    const end = performance.now() + 10_000;
    while (performance.now() < end) {
      const leaders = [a, b].filter((c) => c.el.isLeader()).length;
      expect(leaders).toBe(1);
      samples++;
      await Bun.sleep(50);
    }
    const leader = a.el.isLeader() ? "pod-a-1" : "pod-b-1";
    const lease = await kube.get(leases, "lease-test-module-lock", ns);
    expect(lease.spec?.holderIdentity).toBe(leader);
    expect(lease.spec?.leaseDurationSeconds).toBe(4);
    expect(lease.spec?.leaseTransitions).toBe(0);
    expect(lease.spec?.renewTime).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);
    expect(a.el.leader()).toBe(leader);
    expect(b.el.leader()).toBe(leader);
    console.log(`[le-one] ${samples} samples, one leader (${leader}) in each`);
    a.stop.abort();
    b.stop.abort();
    await Promise.all([a.run, b.run]);
  }, 60_000);

  test("on release the other elector leads within about one retry period", async () => {
    const ns = await cp.newNamespace("le-release");
    const a = elector(ns, "pod-a");
    await until(() => a.el.isLeader(), 10_000, "a to lead");
    const b = elector(ns, "pod-b");
    await Bun.sleep(2 * RETRY_MS);
    expect(b.el.isLeader()).toBe(false);
    const releasedAt = performance.now();
    a.stop.abort(); // graceful shutdown: stop leading, release the Lease
    await a.run;
    const lease = await kube.get(leases, "lease-test-module-lock", ns);
    expect(lease.spec?.holderIdentity ?? "").toBe(b.el.isLeader() ? "pod-b" : "");
    await until(() => b.el.isLeader(), 10_000, "b to lead");
    const takeoverMs = b.events[0]!.at - releasedAt;
    console.log(`[le-release] takeover after release: ${Math.round(takeoverMs)} ms (retry period ${RETRY_MS} ms)`);
    expect(takeoverMs).toBeLessThan(LEASE_MS); // did not wait out the lease
    const after = await kube.get(leases, "lease-test-module-lock", ns);
    expect(after.spec?.holderIdentity).toBe("pod-b");
    expect(after.spec?.leaseTransitions).toBe(1);
    b.stop.abort();
    await b.run;
  }, 60_000);

  test("a leader that vanishes without releasing is replaced only after the lease duration", async () => {
    const ns = await cp.newNamespace("le-kill");
    const a = elector(ns, "pod-a", { releaseOnCancel: false });
    await until(() => a.el.isLeader(), 10_000, "a to lead");
    const b = elector(ns, "pod-b");
    await Bun.sleep(2 * RETRY_MS);
    const before = await kube.get(leases, "lease-test-module-lock", ns);
    a.stop.abort(); // a "kill": renewals stop, the Lease still names pod-a
    await a.run;
    const killedAt = performance.now();
    const stillHeld = await kube.get(leases, "lease-test-module-lock", ns);
    expect(stillHeld.spec?.holderIdentity).toBe("pod-a");
    await until(() => b.el.isLeader(), 3 * LEASE_MS, "b to lead");
    const takeoverMs = b.events[0]!.at - killedAt;
    console.log(`[le-kill] takeover after a kill: ${Math.round(takeoverMs)} ms (lease ${LEASE_MS} ms, retry ${RETRY_MS} ms)`);
    // a's last renewal was at most one retry period before the kill; b waits a full lease after seeing it
    expect(takeoverMs).toBeGreaterThanOrEqual(LEASE_MS - RETRY_MS);
    const after = await kube.get(leases, "lease-test-module-lock", ns);
    expect(after.spec?.holderIdentity).toBe("pod-b");
    expect(after.spec?.leaseTransitions).toBe((before.spec?.leaseTransitions ?? 0) + 1);
    b.stop.abort();
    await b.run;
  }, 60_000);
});

describe("leader election while the apiserver is down", () => {
  let own: OwnedControlPlane;
  let client: KubeClient;
  beforeAll(async () => {
    own = await startControlPlane();
    client = await createKubeClient({ kubeconfig: own.tokenKubeconfig, env: {}, timeoutMs: 2_000 });
  }, 900_000);
  afterAll(async () => {
    await own?.stop();
  });

  test("the leader stops leading within the renew deadline, before the lease could expire, and one leads again after", async () => {
    const ns = await own.newNamespace("le-down");
    const make = (identity: string) => {
      const events: { what: "started" | "stopped"; at: number }[] = [];
      let lastRenewSentAt = 0; // wall time the last successful PUT of this candidate was sent
      const recording: LeaseClient = {
        get: (res, name, namespace, options) => client.get(res, name, namespace, options),
        create: (res, object, options) => client.create(res, object, options),
        update: async (res, object, options) => {
          const sentAt = Date.now();
          const written = await client.update(res, object, options);
          lastRenewSentAt = sentAt;
          return written;
        },
      };
      const el = new LeaderElector({
        client: recording,
        namespace: ns,
        name: "down-lock",
        identity,
        leaseDurationMs: LEASE_MS,
        renewDeadlineMs: RENEW_MS,
        retryPeriodMs: RETRY_MS,
        recampaignBackoff: { initialMs: 500, maxMs: 2_000 },
        onStartedLeading: () => events.push({ what: "started", at: Date.now() }),
        onStoppedLeading: () => events.push({ what: "stopped", at: Date.now() }),
      });
      const stop = new AbortController();
      return { el, stop, events, run: el.run(stop.signal), lastRenew: () => lastRenewSentAt };
    };
    const a = make("pod-a");
    await until(() => a.el.isLeader(), 10_000, "a to lead");
    const b = make("pod-b");
    await Bun.sleep(2 * RETRY_MS);
    const stopping = own.stopApiserver();
    await until(() => !a.el.isLeader(), 30_000, "a to stop leading");
    const stopped = a.events.at(-1)!;
    expect(stopped.what).toBe("stopped");
    const sinceRenewMs = stopped.at - a.lastRenew();
    // the last successful renewal was sent at most RENEW_MS before leading stopped (timer slack
    // 100 ms), so well before any other candidate could see the lease expire (LEASE_MS)
    expect(sinceRenewMs).toBeLessThanOrEqual(RENEW_MS + 100);
    expect(sinceRenewMs).toBeLessThan(LEASE_MS);
    expect(b.el.isLeader()).toBe(false);
    await stopping;
    await own.startApiserver();
    await until(() => a.el.isLeader() || b.el.isLeader(), 30_000, "a leader after the restart");
    expect([a, b].filter((c) => c.el.isLeader())).toHaveLength(1);
    const lease = await client.get(leases, "down-lock", ns);
    console.log(
      `[le-down] leader stopped ${sinceRenewMs} ms after its last successful renewal was sent ` +
        `(renew deadline ${RENEW_MS} ms, lease ${LEASE_MS} ms); after the restart leading: ${lease.spec?.holderIdentity}`,
    );
    a.stop.abort();
    b.stop.abort();
    await Promise.all([a.run, b.run]);
  }, 180_000);
});
