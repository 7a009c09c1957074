/**
 * Durable runs across the Go peer (the real Go SDK v0.13.125, test/go/peer) and tinyhost on
 * JetStream (runtime-spec §1.7, §2.2, §4.4, §14.4; issue 16 "the same flow with the Go peer
 * module"). The three-step flow of test/support/durable-flow.ts (`mixedDurableFlow`) runs with its
 * nodes split over a Go module and tinyhost modules:
 * - minted at `s1`, a node labelled `tinysystems.io/execution-mode: durable`, on tinyhost and on Go;
 *   the middle step `s2` runs on a module with two replicas and holds its first execution; the
 *   replica running it is SIGKILLed. JetStream redelivers the unacked hop to the other replica
 *   once AckWait passes (tinyhost: TINYHOST_JETSTREAM_ACK_WAIT_MS = 5 s; Go: its fixed 30 s,
 *   internal/transport/jetstream.go `edgeAckWait` — the one test that kills a Go replica waits it);
 * - begun by a front door (`durable_door`, Go `BeginRunWithReply`) on one runtime whose reply hop
 *   is published by the other.
 * Each time: the run completes, each recorded step's handler finished exactly once (the journal
 * both runtimes write, DURABLE_JOURNAL), the caller gets its reply, and the ledger (KV TINY_EXEC)
 * holds every step, written by the module that ran it — Go's and tinyhost's alike.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { NatsConnection } from "@nats-io/transport-node";
import type { StepRecord } from "../../src/core/durable/run.ts";
import { rootStepKey } from "../../src/core/durable/run.ts";
import { viewRun } from "../../src/core/durable/view.ts";
import type { Result } from "../../src/core/result.ts";
import { connectNats } from "../../src/transport/nats/connect.ts";
import { JetStreamTransport } from "../../src/transport/nats/jetstream.ts";
import { RunLedger } from "../../src/runtime/durable/run-ledger.ts";
import { mixedDurableFlow, type MixedDurableFlow } from "../support/durable-flow.ts";
import { readJournal, type JournalEvent } from "../support/durable-journal.ts";
import { flowPrefix, openMixedBed, type BedModule, type MixedBed } from "../support/go-peer-bed.ts";
import { waitUntil, type ManagedProcess } from "../support/process.ts";

/** tinyhost's AckWait here, ms (TINYHOST_JETSTREAM_ACK_WAIT_MS); Go's is 30 000 and cannot be set. */
const TINYHOST_ACK_WAIT_MS = 5000;
/** How long the first execution of the middle step holds, ms: far past both AckWaits. */
const HOLD_MS = 90_000;

const journalFile = join(mkdtempSync(join(tmpdir(), "go-peer-durable-")), "journal.jsonl");
let bed: MixedBed;
let nc: NatsConnection;
let caller: JetStreamTransport;
let ledger: RunLedger;
const td = new TextDecoder();

beforeAll(async () => {
  bed = await openMixedBed("jetstream", "dur", {
    env: { DURABLE_JOURNAL: journalFile, TINYHOST_JETSTREAM_ACK_WAIT_MS: String(TINYHOST_ACK_WAIT_MS), DURABLE_REPLY_TIMEOUT_MS: "120000" },
  });
  nc = await connectNats(bed.natsUrl!, { name: "go-peer-durable-caller" });
  // The caller: a classic JetStream request (x-reply-inbox), as Go's classic sender makes it.
  caller = await JetStreamTransport.create({ nc, module: "caller", requestTimeoutMs: 150_000 });
  ledger = await RunLedger.open(nc);
}, 240_000);

afterAll(async () => {
  await caller?.close(100);
  await nc?.close();
  await bed?.stop();
});

/** Journal events of `runId`. */
function journalOf(runId: string): JournalEvent[] {
  return readJournal(journalFile).filter((e) => e.runId === runId);
}

/** The run's step records once `want` nodes have one (the last is written just after its handler). */
async function stepsOf(runId: string, want: readonly string[]): Promise<Map<string, StepRecord>> {
  let records = new Map<string, StepRecord>();
  await waitUntil(
    `ledger records of ${want.join(", ")}`,
    async () => {
      records = await ledger.readRun(runId);
      const nodes = new Set([...records.values()].map((r) => r.node));
      return want.every((n) => nodes.has(n));
    },
    30_000,
    200,
  );
  return records;
}

/** The payload of the one hop `rec` emitted (base64 JSON in the record, Go `[]byte`). */
function emitted(rec: StepRecord | undefined): unknown {
  expect(rec?.emits?.length).toBe(1);
  return JSON.parse(Buffer.from(rec!.emits![0]!.data, "base64").toString("utf8"));
}

/** A second module of the bed served by two replicas of `runtime` (`<name>-a`, `<name>-b`). */
async function twoReplicas(
  runtime: "go" | "tinyhost",
  name: string,
): Promise<{ module: string; pods: Map<string, ManagedProcess & { metric?: (n: string) => Promise<number | undefined> }> }> {
  const spawn = (hostname: string): Promise<BedModule & { proc: ManagedProcess }> =>
    runtime === "go" ? bed.spawnGo({ name, hostname }) : bed.spawnTinyhost({ name, hostname });
  const [a, b] = await Promise.all([spawn(`${name}-a`), spawn(`${name}-b`)]);
  return {
    module: name,
    pods: new Map([
      [a.pod, a.proc],
      [b.pod, b.proc],
    ]),
  };
}

interface KilledRun {
  flow: MixedDurableFlow;
  runId: string;
  reply: Result;
  victim: string;
  /** ms from the kill to the last step's end. */
  finishedAfterKillMs: number;
  records: Map<string, StepRecord>;
}

/**
 * Sends `{trail: []}` to s1 (labelled durable: it mints the run), waits until s2 started on one of
 * the middle module's replicas, SIGKILLs that replica and waits for s3 to finish the run.
 */
async function runAndKillMiddle(mint: BedModule, middle: Awaited<ReturnType<typeof twoReplicas>>, last: BedModule, waitMs: number): Promise<KilledRun> {
  const prefix = flowPrefix();
  const flow = mixedDurableFlow({ namespace: bed.ns, prefix, modules: { s1: mint.name, s2: middle.module, s3: last.name }, holdFirstMs: { s2: HOLD_MS } });
  await bed.apply(flow.nodes);
  // Both tinyhost replicas run s2 before the run starts (a Go replica retries a node it does not
  // have yet, internal/scheduler/scheduler.go, so the Go pods need no such wait).
  for (const [pod, proc] of middle.pods) {
    if (proc.metric) await waitUntil(`${pod} runs s2`, async () => ((await proc.metric!("tinyhost_runners")) ?? 0) >= 1, 30_000, 200);
  }
  const reply = await caller.send({ edgeId: "", from: "signal", to: `${flow.names.s1}:in`, data: { trail: [] }, depth: 0 });
  let runId = "";
  let victim = "";
  await waitUntil(
    "s2 started on a replica",
    async () => {
      const start = readJournal(journalFile).find((e) => e.node === flow.names.s2 && e.event === "start");
      runId = start?.runId ?? "";
      victim = start?.pod ?? "";
      return victim !== "";
    },
    60_000,
    50,
  );
  // The caller's reply came from s1 as soon as it had emitted: the middle step has not finished.
  expect(
    journalOf(runId)
      .filter((e) => e.event === "done")
      .map((e) => e.node),
  ).not.toContain(flow.names.s2);
  await middle.pods.get(victim)!.kill();
  const killed = performance.now();
  await waitUntil("s3 finished the run", async () => journalOf(runId).some((e) => e.node === flow.names.s3 && e.event === "done"), waitMs, 100);
  const finishedAfterKillMs = Math.round(performance.now() - killed);
  const records = await stepsOf(runId, [flow.names.s1, flow.names.s2, flow.names.s3]);
  for (const proc of middle.pods.values()) await proc.stop(5000);
  return { flow, runId, reply, victim, finishedAfterKillMs, records };
}

/** What every killed run must show: one run, each recorded step's handler finished once, all steps in the ledger. */
function expectCompleted(r: KilledRun): void {
  const { names } = r.flow;
  expect(r.runId).toMatch(/^[0-9a-f-]{36}$/);
  const journal = journalOf(r.runId);
  // s2 started on the dead replica, then once more on the other one, where it finished.
  const s2 = journal.filter((e) => e.node === names.s2);
  expect(s2.map((e) => [e.pod === r.victim ? "victim" : "survivor", e.event])).toEqual([
    ["victim", "start"],
    ["survivor", "start"],
    ["survivor", "done"],
  ]);
  // The ledger: one done record per step (the mint's root step key for s1), and each recorded
  // node's handler finished exactly once.
  expect([...r.records.values()].map((rec) => rec.node).sort()).toEqual([names.s1, names.s2, names.s3].sort());
  expect(r.records.get(rootStepKey(r.runId))?.node).toBe(names.s1);
  for (const rec of r.records.values()) {
    expect({ node: rec.node, status: rec.status }).toEqual({ node: rec.node, status: "done" });
    expect({ node: rec.node, done: journal.filter((e) => e.node === rec.node && e.event === "done").length }).toEqual({ node: rec.node, done: 1 });
  }
  // What each step emitted, as its runtime recorded it: the trail so far.
  const byNode = new Map([...r.records.values()].map((rec) => [rec.node, rec]));
  expect(emitted(byNode.get(names.s1))).toEqual({ trail: [names.s1] });
  expect(emitted(byNode.get(names.s2))).toEqual({ trail: [names.s1, names.s2] });
  expect(viewRun(r.runId, r.records)).toMatchObject({ status: "done", frontier: [] });
  // The caller's reply is s1's: its durable emit returned no value, so the reply is empty.
  expect(r.reply.kind).toBe("empty");
}

function report(label: string, r: KilledRun): void {
  console.log(
    `[go-peer-durable] ${label}: run finished ${r.finishedAfterKillMs} ms after the kill of ${r.victim}; ledger: ${[...r.records.values()].map((rec) => `${rec.node.split(".").slice(1).join(".")} ${rec.status} ${rec.durationMs ?? "?"} ms`).join("; ")}`,
  );
}

describe("a durable run across the Go peer and tinyhost when the replica running its middle step dies", () => {
  test("minted at a tinyhost node labelled durable, middle step on tinyhost, last on Go: the run completes, each step ran once, the caller got its reply", async () => {
    const middle = await twoReplicas("tinyhost", "th-dk1");
    const r = await runAndKillMiddle(bed.th, middle, bed.go, 60_000);
    expectCompleted(r);
    report("tinyhost mint, tinyhost middle killed", r);
  }, 240_000);

  test("minted at a Go node labelled durable, middle step on tinyhost, last on Go: the run completes, each step ran once, the caller got its reply", async () => {
    const middle = await twoReplicas("tinyhost", "th-dk2");
    const r = await runAndKillMiddle(bed.go, middle, bed.go, 60_000);
    expectCompleted(r);
    report("Go mint, tinyhost middle killed", r);
  }, 240_000);

  test("minted at a tinyhost node labelled durable, middle step on a Go replica that is killed: the other Go replica finishes it after Go's 30 s AckWait", async () => {
    const middle = await twoReplicas("go", "go-dk3");
    const r = await runAndKillMiddle(bed.th, middle, bed.th, 120_000);
    expectCompleted(r);
    report("tinyhost mint, Go middle killed (Go AckWait 30 s)", r);
  }, 300_000);
});

describe("a durable run begun by a front door (BeginRunWithReply) across the two runtimes", () => {
  test("a Go door's run through tinyhost steps: the last tinyhost step publishes the reply hop to the Go door's inbox, and the door answers its caller {runId, reply}", async () => {
    const flow = mixedDurableFlow({
      namespace: bed.ns,
      prefix: flowPrefix(),
      modules: { door: bed.go.name, s1: bed.th.name, s2: bed.th.name, s3: bed.th.name },
    });
    await bed.apply(flow.nodes);
    const r = await caller.send({ edgeId: "", from: "signal", to: `${flow.names.door}:in`, data: { trail: [] }, depth: 0 });
    expect(r.kind).toBe("ok");
    const answer = JSON.parse(td.decode((r as { value: Uint8Array }).value)) as { runId: string; reply: unknown };
    expect(answer.reply).toEqual({ trail: [flow.names.s1, flow.names.s2, flow.names.s3] });
    const steps = [flow.names.s1, flow.names.s2, flow.names.s3];
    const records = await stepsOf(answer.runId, steps);
    const journal = journalOf(answer.runId);
    for (const n of [flow.names.door!, ...steps])
      expect({ n, events: journal.filter((e) => e.node === n).map((e) => e.event) }).toEqual({ n, events: ["start", "done"] });
    expect([...records.values()].map((rec) => [rec.node, rec.status]).sort()).toEqual(steps.map((n) => [n, "done"]).sort());
    // Go records nothing for a run a component begins (tinyhost records its root step:
    // docs/compatibility.md "A run begun by a component records its root step").
    expect(records.has(rootStepKey(answer.runId))).toBe(false);
    // The reply address rode every tinyhost hop (Go's door stamped it on the first).
    const s3 = [...records.values()].find((rec) => rec.node === flow.names.s3)!;
    expect(s3.emits?.map((e) => [e.to, e.replyTarget])).toEqual([[`${flow.names.door}:reply`, `${flow.names.door}:reply`]]);
  }, 120_000);

  test("Go's bug, not copied: a Go step drops the run's reply address, so a reply hop it sends reaches the door's module as an ordinary step and the door's caller waits in vain", async () => {
    // tinyhost door → tinyhost s1 → tinyhost s2 → Go s3 → door:reply. Go's runner attaches an
    // arriving run without its reply fields (internal/scheduler/runner/runner.go MsgHandler:
    // WithRun(ctx, NewRunInfo(msg.RunID, msg.StepKey))), so s3's hop to door:reply is not a reply hop.
    const flow = mixedDurableFlow({
      namespace: bed.ns,
      prefix: flowPrefix(),
      modules: { door: bed.th.name, s1: bed.th.name, s2: bed.th.name, s3: bed.go.name },
    });
    await bed.apply(flow.nodes);
    const pending = caller.send({ edgeId: "", from: "signal", to: `${flow.names.door}:in`, data: { trail: [] }, depth: 0 });
    pending.catch(() => undefined);
    let runId = "";
    await waitUntil(
      "the door began a run",
      async () => (runId = readJournal(journalFile).find((e) => e.node === flow.names.door && e.event === "start")?.runId ?? "") !== "",
      30_000,
      50,
    );
    const records = await stepsOf(runId, [flow.names.s1, flow.names.s2, flow.names.s3]);
    const find = (n: string) => [...records.values()].find((rec) => rec.node === n)!;
    // tinyhost's s2 passed the reply address on; Go's s3 sent its hop to door:reply without it …
    expect(find(flow.names.s2).emits?.map((e) => [e.to, e.replyTarget])).toEqual([[`${flow.names.s3}:in`, `${flow.names.door}:reply`]]);
    const s3 = find(flow.names.s3);
    expect(s3.emits?.map((e) => [e.to, e.replySubject ?? "", e.replyTarget ?? ""])).toEqual([[`${flow.names.door}:reply`, "", ""]]);
    // … so that hop ran as an ordinary step of the run on the door's module (its record exists) …
    await waitUntil(
      "the hop to door:reply recorded as a step",
      async () => (await ledger.getStep(runId, s3.emits![0]!.stepKey))?.node === flow.names.door,
      30_000,
      200,
    );
    // … and the door, waiting on its inbox, never got the reply.
    expect(
      journalOf(runId)
        .filter((e) => e.node === flow.names.door)
        .map((e) => e.event),
    ).toEqual(["start"]);
  }, 120_000);
});
