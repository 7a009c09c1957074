/**
 * The node-metadata ledger's bounds (where Go keeps every record forever, runtime-spec §4.6) and
 * the run view the reconciler and `readRun` share.
 */
import { describe, expect, test } from "bun:test";
import { METADATA_LEDGER_MAX_AGE_MS, METADATA_LEDGER_MAX_STEPS, MetadataLedger } from "../../../src/runtime/durable/ledger.ts";
import { LocalReplies } from "../../../src/core/durable/replies.ts";
import type { StepRecord } from "../../../src/core/durable/run.ts";
import { viewRun } from "../../../src/core/durable/view.ts";
import { memoryState } from "./fakes.ts";

const at = (ms: number) => new Date(ms).toISOString();

describe("metadata ledger", () => {
  test("keeps at most the newest METADATA_LEDGER_MAX_STEPS records of a node", async () => {
    const state = memoryState();
    let now = 1_000_000_000_000;
    const ledger = new MetadataLedger({ state: (n) => (n === "n1" ? state : undefined), all: () => [state] }, () => now);
    for (let i = 0; i < METADATA_LEDGER_MAX_STEPS + 5; i++) {
      now += 1000;
      await ledger.putStep("r", `r.${String(i).padStart(16, "0")}`, { node: "n1", status: "done", completedAt: at(now) });
    }
    const keys = await state.list("step/");
    expect(keys.length).toBe(METADATA_LEDGER_MAX_STEPS);
    expect(keys[0]).toBe(`step/r.${String(5).padStart(16, "0")}`);
    expect(await ledger.hasStep("r", `r.${String(4).padStart(16, "0")}`, "n1")).toBe(false);
    expect(await ledger.hasStep("r", `r.${String(104).padStart(16, "0")}`, "n1")).toBe(true);
  });

  test("drops a node's records older than 24 h when it writes the next one", async () => {
    const state = memoryState();
    let now = 1_000_000_000_000;
    const ledger = new MetadataLedger({ state: () => state, all: () => [state] }, () => now);
    await ledger.putStep("old", "old.root", { node: "n1", status: "done", completedAt: at(now) });
    now += METADATA_LEDGER_MAX_AGE_MS + 1;
    await ledger.putStep("new", "new.root", { node: "n1", status: "done", completedAt: at(now) });
    expect(await state.list("step/")).toEqual(["step/new.root"]);
  });

  test("reads one run's records across every node, and names a node it does not run", async () => {
    const s1 = memoryState();
    const s2 = memoryState();
    const ledger = new MetadataLedger({ state: (n) => (n === "n1" ? s1 : n === "n2" ? s2 : undefined), all: () => [s1, s2] });
    await ledger.putStep("r", "r.root", { node: "n1", status: "done", completedAt: at(Date.now()) });
    await ledger.putStep("r", "r.00000000000000aa", { node: "n2", status: "failed", error: "x", completedAt: at(Date.now()) });
    await ledger.putStep("q", "q.root", { node: "n2", status: "done", completedAt: at(Date.now()) });
    expect([...(await ledger.readRun("r")).keys()].sort()).toEqual(["r.00000000000000aa", "r.root"]);
    expect(ledger.putStep("r", "r.x", { node: "ghost", status: "done", completedAt: at(0) })).rejects.toThrow("ghost");
  });
});

describe("run view", () => {
  const emit = (stepKey: string, to = "h.m.b-1:in", reply?: { replySubject: string; replyTarget: string }) => ({
    to,
    from: "h.m.a-1:out",
    edgeID: "e",
    stepKey,
    data: "",
    ...(reply ?? {}),
  });

  test("a run with an emitted hop that has no record yet is running, its frontier that hop", () => {
    const recs = new Map<string, StepRecord>([["r.root", { node: "a", status: "done", emits: [emit("r.1")], completedAt: at(2000) }]]);
    const v = viewRun("r", recs)!;
    expect(v.status).toBe("running");
    expect(v.frontier.map((e) => e.stepKey)).toEqual(["r.1"]);
    expect(v.lastProgressMs).toBe(2000);
  });

  test("the reply hop is not a step: a run whose only open hop is its reply is done", () => {
    const reply = { replySubject: "_INBOX.x", replyTarget: "h.m.door-1:reply" };
    const recs = new Map<string, StepRecord>([
      ["r.root", { node: "door", status: "done", emits: [emit("r.1")], completedAt: at(1000) }],
      ["r.1", { node: "b", status: "done", emits: [emit("r.2", "h.m.door-1:reply", reply)], completedAt: at(2000) }],
    ]);
    const v = viewRun("r", recs)!;
    expect(v.status).toBe("done");
    expect(v.frontier).toEqual([]);
    expect(v.steps.map((st) => st.stepKey)).toEqual(["r.root", "r.1"]);
  });

  test("a failed step makes the run failed; no records make no view", () => {
    expect(viewRun("r", new Map([["r.root", { node: "a", status: "failed", error: "x", completedAt: at(1) }]]))!.status).toBe("failed");
    expect(viewRun("r", new Map())).toBeUndefined();
  });
});

describe("local reply subjects", () => {
  test("a delivered reply resolves its waiter once; a late or unknown one is dropped", async () => {
    const replies = new LocalReplies();
    const inbox = replies.openReply(1000);
    expect(replies.deliver(inbox.subject, { ok: 1 })).toBe(true);
    expect(await inbox.reply).toEqual({ kind: "ok", value: { ok: 1 } });
    expect(replies.deliver(inbox.subject, { ok: 2 })).toBe(false);
    expect(replies.deliver("_INBOX.nobody", 1)).toBe(false);
  });

  test("no reply within the timeout resolves as RUN_REPLY_TIMEOUT", async () => {
    const r = await new LocalReplies().openReply(10).reply;
    expect(r.kind).toBe("fail");
    expect((r as unknown as { error: { code: string } }).error.code).toBe("RUN_REPLY_TIMEOUT");
  });
});
