import { describe, expect, test } from "bun:test";
import { LeaderElectionError, LeaderElector, type LeaderElectorOptions } from "../../../src/k8s/runtime/leader/elector.ts";
import { formatMicroTime } from "../../../src/k8s/runtime/leader/lock.ts";
import { FakeClock, FakeLeaseServer, settle } from "./fakes.ts";

const LEASE = 15_000;
const RENEW = 10_000;
const RETRY = 2_000;

function world() {
  const clock = new FakeClock();
  return { clock, server: new FakeLeaseServer(clock) };
}

function candidate(w: ReturnType<typeof world>, identity: string, extra: Partial<LeaderElectorOptions> = {}) {
  const started: number[] = [];
  const stopped: number[] = [];
  const newLeaders: string[] = [];
  const el = new LeaderElector({
    lock: w.server.lockFor(identity),
    namespace: "ns",
    name: "mod-lock",
    identity,
    clock: w.clock,
    random: () => 0,
    leaseDurationMs: LEASE,
    renewDeadlineMs: RENEW,
    retryPeriodMs: RETRY,
    onStartedLeading: () => started.push(w.clock.now()),
    onStoppedLeading: () => stopped.push(w.clock.now()),
    onNewLeader: (id) => newLeaders.push(id),
    ...extra,
  });
  const stop = new AbortController();
  const run = el.run(stop.signal);
  return { el, stop, run, started, stopped, newLeaders };
}

describe("leader election", () => {
  test("the first candidate creates the Lease and leads; the record uses MicroTime and starts at 0 transitions", async () => {
    const w = world();
    const a = candidate(w, "pod-a");
    await settle();
    expect(a.el.isLeader()).toBe(true);
    expect(a.el.leader()).toBe("pod-a");
    const spec = w.server.lease?.spec;
    expect(spec?.holderIdentity).toBe("pod-a");
    expect(spec?.leaseDurationSeconds).toBe(15);
    expect(spec?.leaseTransitions).toBe(0);
    expect(spec?.acquireTime).toBe("2026-01-01T00:00:00.000000Z");
    expect(spec?.renewTime).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);
    await w.clock.advance(RETRY);
    expect(w.server.lease?.spec?.renewTime).toBe("2026-01-01T00:00:02.000000Z");
    expect(w.server.lease?.spec?.acquireTime).toBe("2026-01-01T00:00:00.000000Z");
    a.stop.abort();
    await a.run;
  });

  test("a candidate takes over an unreleased lease only after leaseDuration of unchanged record, as it measures it", async () => {
    const w = world();
    const a = candidate(w, "pod-a", { releaseOnCancel: false });
    await settle();
    const b = candidate(w, "pod-b");
    await w.clock.advance(7_000);
    expect(b.el.isLeader()).toBe(false);
    expect(b.el.leader()).toBe("pod-a");
    a.stop.abort(); // a crash: no release
    await a.run;
    const lastWrite = w.server.writeTimes.at(-1)!;
    await w.clock.advanceUntil(() => b.el.isLeader(), 60_000, 100);
    const takeover = b.started[0]! - lastWrite;
    expect(takeover).toBeGreaterThanOrEqual(LEASE);
    expect(takeover).toBeLessThanOrEqual(LEASE + RETRY);
    expect(w.server.lease?.spec?.holderIdentity).toBe("pod-b");
    expect(w.server.lease?.spec?.leaseTransitions).toBe(1);
    b.stop.abort();
    await b.run;
  });

  test("a renewTime far in the past on the record does not shorten the wait (no wall-clock comparison)", async () => {
    const w = world();
    const old = formatMicroTime(new Date("2001-01-01T00:00:00Z"));
    w.server.lease = {
      metadata: { name: "mod-lock", namespace: "ns", resourceVersion: "1" },
      spec: { holderIdentity: "pod-z", leaseDurationSeconds: 15, acquireTime: old, renewTime: old, leaseTransitions: 3 },
    };
    const b = candidate(w, "pod-b");
    await w.clock.advance(LEASE - 1);
    expect(b.el.isLeader()).toBe(false);
    await w.clock.advance(RETRY + 1);
    expect(b.el.isLeader()).toBe(true);
    expect(w.server.lease?.spec?.leaseTransitions).toBe(4);
    b.stop.abort();
    await b.run;
  });

  test("a leader that cannot renew stops leading before the lease can expire for others, then campaigns again", async () => {
    const w = world();
    const a = candidate(w, "pod-a", { releaseOnCancel: false, recampaignBackoff: { initialMs: 60_000 } });
    await settle();
    const b = candidate(w, "pod-b");
    await w.clock.advance(5_000);
    w.server.hanging.add("pod-a"); // a's requests now never answer
    const lastWrite = w.server.writeTimes.at(-1)!;
    await w.clock.advanceUntil(() => b.el.isLeader(), 60_000, 100);
    expect(a.stopped).toHaveLength(1);
    expect(a.el.isLeader()).toBe(false);
    expect(a.stopped[0]! - lastWrite).toBeLessThanOrEqual(RENEW);
    expect(a.stopped[0]!).toBeLessThan(b.started[0]!);
    expect(b.started[0]! - lastWrite).toBeGreaterThanOrEqual(LEASE);
    // a's network comes back: it campaigns again, as a follower now
    w.server.hanging.delete("pod-a");
    await w.clock.advance(70_000);
    expect(a.el.isLeader()).toBe(false);
    expect(a.el.leader()).toBe("pod-b");
    a.stop.abort();
    b.stop.abort();
    await Promise.all([a.run, b.run]);
  });

  test("never two leaders: candidates racing for one record are serialised by resourceVersion", async () => {
    const w = world();
    const all = ["pod-a", "pod-b", "pod-c"].map((id) => candidate(w, id));
    for (let i = 0; i < 100; i++) {
      await w.clock.advance(500);
      expect(all.filter((c) => c.el.isLeader()).length).toBeLessThanOrEqual(1);
    }
    expect(all.filter((c) => c.el.isLeader())).toHaveLength(1);
    for (const c of all) c.stop.abort();
    await Promise.all(all.map((c) => c.run));
  });

  test("graceful shutdown releases the Lease and another candidate leads within a retry period", async () => {
    const w = world();
    const a = candidate(w, "pod-a");
    await settle();
    const b = candidate(w, "pod-b");
    await w.clock.advance(6_000);
    a.stop.abort();
    await a.run;
    expect(a.stopped).toHaveLength(1);
    expect(w.server.lease?.spec?.holderIdentity).toBeUndefined();
    expect(w.server.lease?.spec?.leaseDurationSeconds).toBe(1);
    const releasedAt = w.clock.now();
    await w.clock.advanceUntil(() => b.el.isLeader(), 60_000, 10);
    expect(b.started[0]! - releasedAt).toBeLessThanOrEqual(RETRY);
    expect(w.server.lease?.spec?.leaseTransitions).toBe(1);
    b.stop.abort();
    await b.run;
  });

  test("release() stops leading and clears the holder", async () => {
    const w = world();
    const a = candidate(w, "pod-a", { releaseOnCancel: false });
    await settle();
    expect(await a.el.release()).toBe(true);
    await a.run;
    expect(a.el.isLeader()).toBe(false);
    expect(a.stopped).toHaveLength(1);
    expect(w.server.lease?.spec?.holderIdentity).toBeUndefined();
  });

  test("the re-campaign backoff grows on quick losses and resets after a healthy period", async () => {
    const w = world();
    const a = candidate(w, "pod-a", { recampaignBackoff: { initialMs: 5_000, maxMs: 300_000, resetAfterMs: 300_000 } });
    await settle();
    const loseAndMeasure = async () => {
      w.server.unreachable.add("pod-a");
      const n = a.started.length;
      await w.clock.advanceUntil(() => !a.el.isLeader(), 60_000, 100);
      const lostAt = w.clock.now();
      w.server.unreachable.delete("pod-a");
      await w.clock.advanceUntil(() => a.started.length > n, 600_000, 100);
      return a.started.at(-1)! - lostAt;
    };
    const first = await loseAndMeasure();
    const second = await loseAndMeasure();
    await w.clock.advance(400_000); // a healthy term
    const third = await loseAndMeasure();
    expect(first).toBeGreaterThanOrEqual(5_000);
    expect(first).toBeLessThan(10_000);
    expect(second).toBeGreaterThanOrEqual(10_000);
    expect(third).toBeLessThan(10_000);
    a.stop.abort();
    await a.run;
  });

  test("onNewLeader reports each new holder once", async () => {
    const w = world();
    const a = candidate(w, "pod-a");
    await settle();
    const b = candidate(w, "pod-b");
    await w.clock.advance(6_000);
    a.stop.abort();
    await a.run;
    await w.clock.advance(6_000);
    expect(b.newLeaders).toEqual(["pod-a", "pod-b"]);
    expect(await b.el.whenLeaderKnown()).toBe("pod-a");
    b.stop.abort();
    await b.run;
  });

  test("rejects a renew deadline that is not shorter than the lease duration", () => {
    const w = world();
    const make = () =>
      new LeaderElector({ lock: w.server.lockFor("x"), namespace: "ns", name: "l", identity: "x", leaseDurationMs: 10_000, renewDeadlineMs: 10_000 });
    expect(make).toThrow(LeaderElectionError);
    expect(make).toThrow(/renewDeadlineMs = 10000/);
  });
});
