/**
 * Durable steps through the scheduler without JetStream (runtime-spec §2.2 step 2, §2.7, §4.6):
 * the ledger is the status metadata of the node that ran each step (`_state/step/<stepKey>`).
 */
import { beforeEach, describe, expect, test } from "bun:test";
import { shouldRetry, type Result, type StepRecord } from "tinyhost";
import type { StepLedger } from "../../../src/core/durable/step-ledger.ts";
import { Scheduler } from "../../../src/runtime/scheduler/index.ts";
import { childStepKey, rootStepKey } from "../../../src/core/durable/run.ts";
import { lifecycle, makeNode, MODULE, nodeName } from "../../support/fake-components.ts";
import { calls, doorTimeout, DURABLE, durableScheduler, step } from "./fakes.ts";

process.env.TINYHOST_LOG_LEVEL ??= "silent";

const send = (s: ReturnType<typeof durableScheduler>, to: string, data: unknown, run?: { runId: string; stepKey: string }): Promise<Result> =>
  s.handle({ edgeId: "", from: "signal", to: `${nodeName(to.split(":")[0]!)}:${to.split(":")[1]}`, data, depth: 0, ...(run ?? {}) });

/** The step records kept in `node`'s metadata (pending writes included), by step key. */
async function records(s: ReturnType<typeof durableScheduler>, node: string): Promise<Map<string, StepRecord>> {
  const state = s.runner(nodeName(node))!.state;
  const out = new Map<string, StepRecord>();
  for (const k of await state.list("step/")) out.set(k.slice("step/".length), JSON.parse(new TextDecoder().decode(await state.get(k))));
  return out;
}

/** a (labelled durable) → b → c, all `step`. */
async function chain(s: ReturnType<typeof durableScheduler>, labels = DURABLE): Promise<void> {
  await s.update(makeNode("a", "step", { labels, edges: [{ port: "out", to: "b:in", id: "e-ab" }] }));
  await s.update(
    makeNode("b", "step", { edges: [{ port: "out", to: "c:in", id: "e-bc" }], ports: [{ from: "a:out", port: "in", config: { context: "{{$.context}}" } }] }),
  );
  await s.update(makeNode("c", "step", { ports: [{ from: "b:out", port: "in", config: { context: "{{$.context}}" } }] }));
}

describe("durable steps without JetStream (ledger in node metadata)", () => {
  beforeEach(() => {
    calls.length = 0;
  });

  test("a business hop to a node labelled durable mints a run that every downstream step continues", async () => {
    const s = durableScheduler();
    await chain(s);
    await send(s, "a:in", { context: { n: 1 } });
    expect(calls.map((c) => c.node)).toEqual([nodeName("a"), nodeName("b"), nodeName("c")]);
    const id = calls[0]!.runId!;
    expect(id).toMatch(/^[0-9a-f-]{36}$/);
    expect(calls.every((c) => c.runId === id)).toBe(true);
    expect(s.durableStats.minted).toBe(1);
  });

  test("each step is recorded in the metadata of the node that ran it, with its emits and Go's step keys", async () => {
    const s = durableScheduler();
    await chain(s);
    await send(s, "a:in", { context: { n: 1 } });
    const id = calls[0]!.runId!;
    const kb = childStepKey(id, rootStepKey(id), "e-ab", 0);
    const kc = childStepKey(id, kb, "e-bc", 0);
    const a = await records(s, "a");
    expect([...a.keys()]).toEqual([rootStepKey(id)]);
    const root = a.get(rootStepKey(id))!;
    expect(root).toMatchObject({ node: nodeName("a"), status: "done" });
    expect(root.emits).toEqual([
      {
        to: `${nodeName("b")}:in`,
        from: `${nodeName("a")}:out`,
        edgeID: "e-ab",
        stepKey: kb,
        data: Buffer.from(JSON.stringify({ context: { n: 1 } })).toString("base64"),
      },
    ]);
    expect([...(await records(s, "b")).keys()]).toEqual([kb]);
    expect((await records(s, "c")).get(kc)).toMatchObject({ node: nodeName("c"), status: "done" });
    expect((await records(s, "c")).get(kc)?.emits).toBeUndefined();
    // written to status.metadata through the debounced patch, as Go's MetadataState does
    await Bun.sleep(30);
    expect(Object.keys(s.runner(nodeName("b"))!.node.status!.metadata!)).toEqual([`_state/step/${kb}`]);
  });

  test("a node without the label runs classic: no run, no record", async () => {
    const s = durableScheduler();
    await chain(s, {});
    await send(s, "a:in", { context: 1 });
    expect(calls.map((c) => c.runId)).toEqual([undefined, undefined, undefined]);
    expect((await records(s, "a")).size).toBe(0);
  });

  test("a system-port hop to a durable node does not mint a run; a business hop does", async () => {
    const s = durableScheduler();
    s.install(lifecycle);
    await s.update(makeNode("l", "lifecycle", { labels: DURABLE }));
    expect(await send(s, "l:_control", { press: true })).toEqual({ kind: "empty" });
    expect(s.durableStats.minted).toBe(0);
    await send(s, "l:in", {});
    expect(s.durableStats.minted).toBe(1);
  });

  test("a hop carrying a run continues it and a replay of its recorded step is skipped", async () => {
    const s = durableScheduler();
    await chain(s, {});
    const run = { runId: "11111111-2222-4333-8444-555555555555", stepKey: "11111111-2222-4333-8444-555555555555.0123456789abcdef" };
    await send(s, "b:in", { context: 7 }, run);
    expect(calls.map((c) => [c.node, c.runId])).toEqual([
      [nodeName("b"), run.runId],
      [nodeName("c"), run.runId],
    ]);
    expect((await records(s, "b")).get(run.stepKey)?.status).toBe("done");
    const again = await send(s, "b:in", { context: 7 }, run);
    expect(again).toEqual({ kind: "empty" });
    expect(calls.length).toBe(2);
    expect(s.durableStats.skipped).toBe(1);
  });

  test("a retryably failed step is not recorded, so an edge retry runs it again under the same step key", async () => {
    const s = durableScheduler();
    await s.update(
      makeNode("a", "step", { labels: DURABLE, edges: [{ port: "out", to: "f:in", id: "e-af", retryPolicy: { maxAttempts: 3, initialDelayMs: 1 } }] }),
    );
    await s.update(makeNode("f", "flaky_step", { ports: [{ from: "a:out", port: "in", config: { context: "{{$.context}}" } }] }));
    await send(s, "a:in", { context: 1 });
    expect(calls.map((c) => c.node)).toEqual([nodeName("a"), nodeName("f"), nodeName("f")]);
    const id = calls[0]!.runId!;
    const kf = childStepKey(id, rootStepKey(id), "e-af", 0);
    expect([...(await records(s, "f")).entries()].map(([k, r]) => [k, r.status])).toEqual([[kf, "done"]]);
    expect((await records(s, "a")).get(rootStepKey(id))?.emits?.map((e) => e.stepKey)).toEqual([kf]);
    expect(s.durableStats.retryable).toBe(1);
  });

  test("a step failing for good is recorded as failed, with the error", async () => {
    const s = durableScheduler();
    await s.update(makeNode("a", "step", { labels: DURABLE, edges: [{ port: "out", to: "x:in", id: "e-ax" }] }));
    const r = await send(s, "a:in", { context: 1 });
    expect(r.kind).toBe("fail");
    const id = calls[0]!.runId!;
    const rec = (await records(s, "a")).get(rootStepKey(id))!;
    expect(rec.status).toBe("failed");
    expect(rec.error).toContain(nodeName("x"));
  });
});

describe("runs started by a component (SDK)", () => {
  beforeEach(() => {
    calls.length = 0;
  });

  test("beginRun makes the emits inside it a run, records the root step, and readRun shows the run done", async () => {
    const s = durableScheduler();
    await s.update(makeNode("f", "front", { edges: [{ port: "out", to: "b:in", id: "e-fb" }] }));
    await s.update(makeNode("b", "step", { ports: [{ from: "f:out", port: "in", config: { context: "{{$.context}}" } }] }));
    const r = await send(s, "f:in", { context: 5 });
    expect(r.kind).toBe("ok");
    const v = (
      r as { value: { runId: string; inRunAfter: string | null; run: { status: string; steps: { node: string; stepKey: string }[]; frontier: unknown[] } } }
    ).value;
    expect(calls).toEqual([{ node: nodeName("b"), runId: v.runId }]);
    expect(v.inRunAfter).toBeNull(); // emits after beginRun stay classic
    expect(v.run.status).toBe("done");
    expect(v.run.steps.map((st) => [st.node, st.stepKey]).sort()).toEqual(
      [
        [nodeName("f"), rootStepKey(v.runId)],
        [nodeName("b"), childStepKey(v.runId, rootStepKey(v.runId), "e-fb", 0)],
      ].sort(),
    );
    expect(v.run.frontier).toEqual([]);
  });

  test("beginRunWithReply gets the hop to its reply port back, and that hop never reaches handle", async () => {
    const s = durableScheduler();
    await s.update(makeNode("d", "door", { edges: [{ port: "out", to: "b:in", id: "e-db" }] }));
    await s.update(
      makeNode("b", "step", {
        edges: [{ port: "out", to: "d:reply", id: "e-bd" }],
        ports: [{ from: "d:out", port: "in", config: { context: "{{$.context}}" } }],
      }),
    );
    await s.update(
      makeNode("d", "door", {
        edges: [{ port: "out", to: "b:in", id: "e-db" }],
        ports: [{ from: "b:out", port: "reply", config: { answer: "{{$.context}}" } }],
      }),
    );
    const r = await send(s, "d:in", { context: "hello" });
    expect(r.kind).toBe("ok");
    const v = (r as { value: { runId: string; reply: unknown } }).value;
    expect(v.reply).toEqual({ context: "hello" });
    expect(calls).toEqual([{ node: nodeName("b"), runId: v.runId }]);
  });

  test("beginRunWithReply fails with RUN_REPLY_TIMEOUT when no hop comes back", async () => {
    const s = durableScheduler();
    doorTimeout.ms = 50;
    try {
      await s.update(makeNode("d", "door", { edges: [{ port: "out", to: "b:in", id: "e-db" }] }));
      await s.update(makeNode("b", "step", { ports: [{ from: "d:out", port: "in", config: { context: "{{$.context}}" } }] }));
      const r = await send(s, "d:in", { context: 1 });
      expect(r.kind).toBe("fail");
      expect((r as { error: Error & { code?: string } }).error.code).toBe("RUN_REPLY_TIMEOUT");
    } finally {
      doorTimeout.ms = 2000;
    }
  });
});

describe("a ledger that cannot be written or read", () => {
  const broken = (what: "put" | "has"): StepLedger => ({
    kind: "jetstream",
    hasStep: async () => {
      if (what === "has") throw new Error("kv down");
      return false;
    },
    putStep: async () => {
      if (what === "put") throw new Error("kv down");
    },
    readRun: async () => new Map(),
  });

  test("a continued step whose record cannot be written fails retryably (so JetStream redelivers it)", async () => {
    calls.length = 0;
    const s = new Scheduler({ module: MODULE, ledger: broken("put"), readyTimeoutMs: 50 });
    s.install(step);
    await s.update(makeNode("c", "step"));
    const r = await send(s, "c:in", { context: 1 }, { runId: "r", stepKey: "r.0000000000000001" });
    expect(calls.length).toBe(1);
    expect(r.kind).toBe("fail");
    const err = (r as { error: Error }).error;
    expect(shouldRetry(err)).toBe(true);
    expect(err.message).toContain("step r.0000000000000001 ran but its ledger record was not written: kv down");
    expect(s.durableStats.recordFailures).toBe(1);
  });

  test("a minted run's first step keeps its handler's result when its record cannot be written", async () => {
    calls.length = 0;
    const s = new Scheduler({ module: MODULE, ledger: broken("put"), readyTimeoutMs: 50 });
    s.install(step);
    await s.update(makeNode("c", "step", { labels: DURABLE }));
    expect(await send(s, "c:in", { context: 1 })).toEqual({ kind: "empty" });
  });

  test("an unreadable ledger fails the hop retryably without running the step", async () => {
    calls.length = 0;
    const s = new Scheduler({ module: MODULE, ledger: broken("has"), readyTimeoutMs: 50 });
    s.install(step);
    await s.update(makeNode("c", "step"));
    const r = await send(s, "c:in", { context: 1 }, { runId: "r", stepKey: "r.0000000000000002" });
    expect(calls.length).toBe(0);
    expect(shouldRetry((r as { error: Error }).error)).toBe(true);
  });
});
