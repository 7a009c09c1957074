/**
 * The parts cluster mode composes (src/operator): leadership state and its listeners, the readiness
 * checks, the stage helpers and the transport's runnables (fake transport: unit test).
 */
import { describe, expect, test } from "bun:test";
import pino from "pino";
import { Leadership } from "../../../src/operator/leadership.ts";
import { moduleReadiness } from "../../../src/operator/health.ts";
import { allStages, checked, ModuleStartError, stages } from "../../../src/operator/stages.ts";
import { STOP_RESERVE_MS, transportConnection, transportReceivers } from "../../../src/operator/receivers.ts";
import { HopGate } from "../../../src/operator/hop-gate.ts";
import type { ModuleTransport } from "../../../src/operator/transport.ts";
import { ok, type Result } from "../../../src/core/result.ts";
import type { Msg } from "../../../src/core/hop.ts";

const log = pino({ level: "silent" });
const msg: Msg = { edgeId: "", from: "", to: "h.m.c-1:in", data: {}, depth: 0 };

describe("Leadership", () => {
  test("listeners hear every change in subscription order; a win before subscribing is read, not replayed", () => {
    const l = new Leadership();
    l.started();
    const heard: string[] = [];
    l.onChange((leading) => heard.push(`a:${leading}:${l.leading}`));
    l.onChange((leading) => heard.push(`b:${leading}`));
    expect([l.leading, l.isLeader(), heard]).toEqual([true, true, []]);
    l.stopped();
    l.started();
    expect(heard).toEqual(["a:false:false", "b:false", "a:true:true", "b:true"]);
  });

  test("leaderKnown is set by an observed holder, not by leading alone", () => {
    const l = new Leadership();
    l.started();
    expect(l.leaderKnown).toBe(false);
    l.observed();
    l.stopped();
    expect([l.leaderKnown, l.leading]).toEqual([true, false]);
  });
});

describe("moduleReadiness", () => {
  test("each check names what is missing until it holds; started only after markStarted", () => {
    const state = { synced: false, wire: "nats not connected" as true | string, leaderKnown: false };
    const r = moduleReadiness({
      nodeStore: {
        get synced() {
          return state.synced;
        },
      },
      transport: { ready: () => state.wire },
      leadership: {
        get leaderKnown() {
          return state.leaderKnown;
        },
      },
    });
    const run = () => Object.fromEntries(Object.entries(r.checks).map(([k, c]) => [k, c()]));
    expect(run()).toEqual({
      started: "not every part has started yet (transport receivers last)",
      "node-cache": "TinyNode cache not synced yet",
      transport: "nats not connected",
      leader: "no leader observed on the Lease yet",
    });
    Object.assign(state, { synced: true, wire: true, leaderKnown: true });
    expect(run().started).not.toBe(true);
    r.markStarted();
    expect(run()).toEqual({ started: true, "node-cache": true, transport: true, leader: true });
    // SIGTERM: unready from the first stop step on (src/manager/stop-delay.ts), whatever else holds.
    r.markStopping();
    expect(run()).toEqual({ started: "stopping", "node-cache": true, transport: true, leader: true });
  });
});

describe("stages", () => {
  test("a failing stage rejects with ModuleStartError naming it and the cause", async () => {
    const stage = stages(log);
    expect(await stage("kubeconfig", () => 7)).toBe(7);
    const err = await stage("transport", () => Promise.reject(new Error("connection refused"))).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ModuleStartError);
    expect([(err as ModuleStartError).stage, (err as Error).message]).toEqual(["transport", 'start-up failed at stage "transport": connection refused']);
  });

  test("checked wraps a synchronous flag error in the stage's name", () => {
    expect(() =>
      checked("controllers", () => {
        throw new Error('TINYHOST_NODE_WORKERS = "0" must be a positive integer');
      }),
    ).toThrow('start-up failed at stage "controllers": TINYHOST_NODE_WORKERS = "0" must be a positive integer');
  });

  test("allStages throws the first failure in order (not in time), after undoing what the others opened", async () => {
    const late = new Promise<never>((_, reject) => setTimeout(() => reject(new Error("kubeconfig: no such file")), 20));
    const early = Promise.reject(new Error("components: import failed"));
    const closed: unknown[] = [];
    const err = await allStages([late, early, Promise.resolve("wire")] as const, async (opened) => void closed.push(opened)).catch((e: unknown) => e);
    expect((err as Error).message).toBe("kubeconfig: no such file");
    expect(closed).toEqual([[undefined, undefined, "wire"]]);
    expect(await allStages([Promise.resolve(1), Promise.resolve("a")] as const, async () => void closed.push("no"))).toEqual([1, "a"]);
    expect(closed).toHaveLength(1);
  });
});

/** A transport that records what the runnables call on it. */
function fakeTransport(calls: string[], failed: Promise<never> = new Promise(() => {})): ModuleTransport {
  failed.catch(() => {});
  return {
    kind: "nats",
    failed,
    serve: async () => void calls.push("serve"),
    stopReceiving: async () => void calls.push("stopReceiving"),
    stopServing: async (ms: number) => void calls.push(`stopServing(${ms})`),
    close: async (ms: number) => void calls.push(`close(${ms})`),
  } as unknown as ModuleTransport;
}

describe("transport runnables", () => {
  test("receivers stop: stop receiving, then wait for the in-flight hop, then stop serving", async () => {
    const calls: string[] = [];
    const release = Promise.withResolvers<Result>();
    const gate = new HopGate();
    const handle = gate.handler(() => release.promise);
    let served = 0;
    const r = transportReceivers({ transport: fakeTransport(calls), handle, gate, drainMs: 4_000, onServing: () => served++, log });
    await r.start!({ fatal: () => {} });
    expect([calls, served]).toEqual([["serve"], 1]);
    const inflight = handle(msg);
    const stopped = r.stop!({ signal: new AbortController().signal, remainingMs: () => 8_000 });
    await Bun.sleep(10);
    expect(calls).toEqual(["serve", "stopReceiving"]); // still draining
    release.resolve(ok(1));
    await stopped;
    expect(await inflight).toEqual(ok(1));
    expect(calls).toEqual(["serve", "stopReceiving", "stopServing(500)"]);
  });

  test("the hop drain is bounded by drainMs and leaves STOP_RESERVE_MS of the budget to what stops after it", async () => {
    const bounds: number[] = [];
    const gate = { stats: {}, drain: async (ms: number) => (bounds.push(ms), 1) } as unknown as HopGate;
    for (const remaining of [8_000, STOP_RESERVE_MS + 30, STOP_RESERVE_MS - 100]) {
      const calls: string[] = [];
      const r = transportReceivers({ transport: fakeTransport(calls), handle: () => Promise.resolve(ok(1)), gate, drainMs: 4_000, onServing: () => {}, log });
      await r.stop!({ signal: new AbortController().signal, remainingMs: () => remaining });
      expect(calls).toEqual(["stopReceiving", "stopServing(500)"]);
    }
    expect(bounds[0]).toBeLessThanOrEqual(4_000);
    expect(bounds[0]).toBeGreaterThan(3_000); // drainMs, less the stopReceiving call's time
    expect(bounds[1]).toBeLessThanOrEqual(30);
    expect(bounds[2]).toBe(0);
  });

  test("a connection that dies for good is fatal, naming the wire; stop closes it", async () => {
    const calls: string[] = [];
    const died = Promise.withResolvers<never>();
    const c = transportConnection(fakeTransport(calls, died.promise));
    const fatal: unknown[] = [];
    await c.start!({ fatal: (e) => fatal.push(e) });
    died.reject(new Error("connection closed"));
    await Bun.sleep(0);
    expect(fatal.map((e) => (e as Error).message)).toEqual(["nats transport: connection closed"]);
    await c.stop!({ signal: new AbortController().signal, remainingMs: () => 1_000 });
    expect(calls).toEqual(["close(500)"]);
  });
});
