/**
 * Durable runs over a real nats-server with JetStream (runtime-spec §1.7, §2.2, §2.5, §3.5, §3.6,
 * §4.4, §14.4), with the real scheduler, runners and JetStream transport of two modules in this
 * process (each module on its own connection): every hop of a run is a JetStream publish with the
 * run headers and `Nats-Msg-Id` = step key, each step runs once and is recorded in KV `TINY_EXEC`
 * before its ack, a replayed step is skipped, the reply hop reaches the waiting door, and the run
 * reconciler re-drives a lost hop and gives up after its limit. (Killing a replica is
 * durable-kill.test.ts, with module processes.)
 */
import { afterAll, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { jetstreamManager } from "@nats-io/jetstream";
import { headers as natsHeaders, type Msg as NatsMsg, type NatsConnection } from "@nats-io/transport-node";
import { nanos } from "@nats-io/transport-node";
import type { TinyNode } from "../../src/core/api/index.ts";
import { EXECUTION_MODE_DURABLE, EXECUTION_MODE_LABEL } from "../../src/core/api/constants.ts";
import { childStepKey, rootStepKey } from "../../src/core/durable/run.ts";
import { viewRun } from "../../src/core/durable/view.ts";
import { Scheduler } from "../../src/runtime/scheduler/index.ts";
import type { ComponentDefinition } from "../../src/core/component.ts";
import { empty } from "../../src/core/result.ts";
import { connectNats } from "../../src/transport/nats/connect.ts";
import { JetStreamTransport } from "../../src/transport/nats/jetstream.ts";
import { RunLedger } from "../../src/runtime/durable/run-ledger.ts";
import { EDGE_STREAM } from "../../src/transport/nats/names.ts";
import { RunReconciler } from "../../src/runtime/durable/reconciler.ts";
import door from "../fixtures/durable-components/door.ts";
import step from "../fixtures/durable-components/step.ts";
import { events } from "../support/durable-journal.ts";
import { durableFlow, type DurableKey } from "../support/durable-flow.ts";
import { goTool } from "../support/go-tools.ts";
import { startNats, type NatsServer } from "../support/nats.ts";
import { until as poll } from "../support/until.ts";

process.env.TINYHOST_LOG_LEVEL ??= "silent";
delete process.env.DURABLE_JOURNAL; // this file reads the in-memory journal

let srv: NatsServer;
let tap: NatsConnection;
let ledger: RunLedger;
const closers: Array<() => Promise<void>> = [];
const te = new TextEncoder();

/** One replica of a module in this process: its own connection, JetStream transport and scheduler. */
interface Replica {
  module: string;
  scheduler: Scheduler;
  transport: JetStreamTransport;
  nc: NatsConnection;
}

async function replica(module: string, nodes: readonly TinyNode[], pod = `${module}-0`): Promise<Replica> {
  const nc = await connectNats(srv.url, { reconnectTimeWaitMs: 100 });
  const transport = await JetStreamTransport.create({ nc, module, pod, ackWaitMs: 5000, healthCheckMs: 500, rebuildPauseMs: 100, requestTimeoutMs: 30_000 });
  const scheduler = new Scheduler({ module, remote: transport, ledger: await RunLedger.open(nc), readyTimeoutMs: 5000 });
  for (const d of [door, step] as ComponentDefinition[]) scheduler.install(d);
  for (const n of nodes) if (n.metadata.name!.split(".")[1] === module) await scheduler.update(n as TinyNode);
  await transport.serve({ handler: (m, s) => scheduler.handle(m, s) });
  closers.push(async () => {
    await transport.close(200);
    await scheduler.stopAll();
    await nc.close();
  });
  return { module, scheduler, transport, nc };
}

let seq = 0;
const mod = (p: string) => `${p}${++seq}`;

/** Every message published on `tinymodule.>` and `_INBOX.>` while `fn` runs. */
async function tapped<T>(fn: () => Promise<T>): Promise<{ out: T; msgs: NatsMsg[] }> {
  const msgs: NatsMsg[] = [];
  const keep = (_e: Error | null, m: NatsMsg) => void msgs.push(m);
  const subs = [tap.subscribe("tinymodule.>", { callback: keep }), tap.subscribe("_INBOX.>", { callback: keep })];
  await tap.flush();
  try {
    const out = await fn();
    await Bun.sleep(100);
    return { out, msgs };
  } finally {
    for (const s of subs) s.unsubscribe();
  }
}

/** This file's timeout and poll interval. */
const until = (what: string, cond: () => unknown, ms = 20_000) => poll(what, cond, ms, 25);

/** A classic JetStream request to `<node>:in` from a client module (x-reply-inbox, as Go's classic sender). */
async function callDoor(node: string, client: JetStreamTransport): Promise<{ runId: string; reply: { trail: string[] } }> {
  const r = await client.send({ edgeId: "", from: "", to: `${node}:in`, data: { trail: [] }, depth: 0 });
  if (r.kind !== "ok") throw new Error(`door answered ${JSON.stringify(r)}`);
  return JSON.parse(new TextDecoder().decode(r.value as Uint8Array));
}

beforeAll(async () => {
  srv = await startNats();
  tap = await connectNats(srv.url);
  ledger = await RunLedger.open(tap);
});

afterAll(async () => {
  for (const c of closers.reverse()) await c().catch(() => undefined);
  await tap.close();
  await srv.dispose();
});

beforeEach(() => {
  events.length = 0;
});

describe("a durable run across two modules on JetStream", () => {
  test("every hop is a JetStream publish with the run headers, each step runs once and is recorded, and the door gets its reply", async () => {
    const [front, back] = [mod("front"), mod("back")];
    const modules: Record<DurableKey, string> = { door: front, s1: back, s2: back, s3: front };
    const { manifests, names } = durableFlow({ modules });
    const nodes = [...manifests.nodes.values()];
    await Promise.all([replica(front, nodes), replica(back, nodes), replica(back, nodes, `${back}-1`)]);
    const client = (await replica(mod("client"), [])).transport;

    const { out, msgs } = await tapped(() => callDoor(names.door, client));
    expect(out.reply).toEqual({ trail: [names.s1, names.s2, names.s3] });
    const runId = out.runId;

    // Step keys are Go's: each child of its parent step and edge (runtime-spec §1.7 NextStepKey).
    const edge = (from: DurableKey, port: string, to: DurableKey, toPort: string) =>
      manifests.nodes.get(from)!.spec.edges!.find((e) => e.port === port && e.to === `${names[to]}:${toPort}`)!.id;
    const k1 = childStepKey(runId, rootStepKey(runId), edge("door", "out", "s1", "in"), 0);
    const k2 = childStepKey(runId, k1, edge("s1", "out", "s2", "in"), 0);
    const k3 = childStepKey(runId, k2, edge("s2", "out", "s3", "in"), 0);
    const kReply = childStepKey(runId, k3, edge("s3", "out", "door", "reply"), 0);

    // Every durable hop went through JetStream — the same-module s1 → s2 too (runtime-spec §3.5).
    // (`_INBOX.>` also sees the pull consumer's deliveries of these hops, acked on `$JS.ACK.…`:
    // only the publishes count.)
    const hops = msgs.filter((m) => m.subject.startsWith("tinymodule.") && !m.reply?.startsWith("$JS.ACK.") && m.headers?.get("x-run-id") === runId);
    expect(hops.map((m) => [m.subject, m.headers!.get("x-to"), m.headers!.get("x-step-key"), m.headers!.get("Nats-Msg-Id")])).toEqual([
      [`tinymodule.${back}.msg`, `${names.s1}:in`, k1, k1],
      [`tinymodule.${back}.msg`, `${names.s2}:in`, k2, k2],
      [`tinymodule.${front}.msg`, `${names.s3}:in`, k3, k3],
    ]);
    for (const m of hops) {
      expect(m.headers!.get("x-reply-target")).toBe(`${names.door}:reply`);
      expect(m.headers!.get("x-reply-subject")).toMatch(/^_INBOX\./);
      expect(Number(m.headers!.get("x-reply-deadline"))).toBeGreaterThan(Date.now());
    }
    // The reply hop: a core publish of the raw body to the reply subject, no headers (§4.4).
    const replySubject = hops[0]!.headers!.get("x-reply-subject");
    const reply = msgs.filter((m) => m.subject === replySubject);
    expect(reply.map((m) => [new TextDecoder().decode(m.data), m.headers?.keys().length ?? 0])).toEqual([
      [JSON.stringify({ trail: [names.s1, names.s2, names.s3] }), 0],
    ]);

    // One handler run per step, one record per step, the run done.
    const done = events.filter((e) => e.runId === runId && e.event === "done").map((e) => e.node);
    expect(done.sort()).toEqual([names.door, names.s1, names.s2, names.s3].sort());
    const recs = await ledger.readRun(runId);
    expect([...recs.keys()].sort()).toEqual([rootStepKey(runId), k1, k2, k3].sort());
    expect([...recs.values()].every((r) => r.status === "done")).toBe(true);
    expect(recs.get(rootStepKey(runId))!.node).toBe(names.door);
    expect(recs.get(k2)).toMatchObject({ node: names.s2, emits: [{ to: `${names.s3}:in`, from: `${names.s2}:out`, stepKey: k3 }] });
    expect(recs.get(k3)!.emits![0]).toMatchObject({ to: `${names.door}:reply`, stepKey: kReply, replyTarget: `${names.door}:reply` });
    expect(viewRun(runId, recs)).toMatchObject({ status: "done", frontier: [] });
  }, 60_000);

  test("a duplicate publish of a step key is stored once and handled once", async () => {
    const m = mod("dup");
    const { manifests, names } = durableFlow({ modules: { door: m, s1: m, s2: m, s3: m } });
    const r = await replica(m, [...manifests.nodes.values()]);
    const runId = crypto.randomUUID();
    const stepKey = `${runId}.00000000000000aa`;
    const h = () => {
      const x = natsHeaders();
      x.set("x-to", `${names.s3}:in`);
      x.set("x-from", `${names.s2}:out`);
      x.set("x-run-id", runId);
      x.set("x-step-key", stepKey);
      return x;
    };
    const js = r.transport.js;
    const first = await js.publish(`tinymodule.${m}.msg`, te.encode('{"trail":["x"]}'), { headers: h(), msgID: stepKey });
    const second = await js.publish(`tinymodule.${m}.msg`, te.encode('{"trail":["x"]}'), { headers: h(), msgID: stepKey });
    expect([first.duplicate, second.duplicate]).toEqual([false, true]);
    expect(second.seq).toBe(first.seq);
    await until("the step record", async () => (await ledger.getStep(runId, stepKey)) !== undefined);
    await Bun.sleep(300);
    expect(events.filter((e) => e.runId === runId && e.event === "start").length).toBe(1);
  });

  test("a step redelivered after its record exists is skipped without running", async () => {
    const m = mod("replay");
    const { manifests, names } = durableFlow({ modules: { door: m, s1: m, s2: m, s3: m } });
    const r = await replica(m, [...manifests.nodes.values()]);
    const runId = crypto.randomUUID();
    const stepKey = `${runId}.00000000000000bb`;
    await ledger.putStep(runId, stepKey, { node: names.s3, status: "done", completedAt: new Date().toISOString() });
    const h = natsHeaders();
    h.set("x-to", `${names.s3}:in`);
    h.set("x-run-id", runId);
    h.set("x-step-key", stepKey);
    // A new Nats-Msg-Id: the broker's duplicate window does not catch it, the ledger must.
    await r.transport.js.publish(`tinymodule.${m}.msg`, te.encode('{"trail":[]}'), { headers: h, msgID: `${stepKey}-redelivered` });
    await until("the skip", () => r.scheduler.durableStats.skipped === 1);
    expect(events.filter((e) => e.runId === runId)).toEqual([]);
  });

  test("a business hop to a node labelled durable mints a run; its emits go durable", async () => {
    const m = mod("label");
    const { manifests, names } = durableFlow({ modules: { door: m, s1: m, s2: m, s3: m } });
    const s1 = manifests.nodes.get("s1")!;
    s1.metadata.labels = { ...s1.metadata.labels, [EXECUTION_MODE_LABEL]: EXECUTION_MODE_DURABLE };
    const r = await replica(m, [...manifests.nodes.values()]);
    const client = (await replica(mod("client"), [])).transport;
    const answer = await client.send({ edgeId: "", from: "", to: `${names.s1}:in`, data: { trail: ["start"] }, depth: 0 });
    expect(answer).toEqual(empty); // the first durable emit returns at once: nothing comes back (Go)
    await until("s3 done", () => events.some((e) => e.node === names.s3 && e.event === "done"));
    const runId = events.find((e) => e.node === names.s1)!.runId;
    expect(runId).toMatch(/^[0-9a-f-]{36}$/);
    expect(new Set(events.filter((e) => e.node !== names.door).map((e) => e.runId))).toEqual(new Set([runId]));
    // s1 (the root, minted), s2, s3 and the door's `reply` (a plain step: this run has no reply address)
    await until("four records", async () => (await ledger.readRun(runId)).size === 4);
    expect([...(await ledger.readRun(runId)).values()].map((rec) => rec.node).sort()).toEqual([names.door, names.s1, names.s2, names.s3].sort());
    expect((await ledger.readRun(runId)).get(rootStepKey(runId))?.node).toBe(names.s1);
    expect(r.scheduler.durableStats.minted).toBe(1);
  });
});

describe("the run reconciler on JetStream", () => {
  test("re-drives a hop the stream lost, and the run completes", async () => {
    const [a, b] = [mod("rda"), mod("rdb")];
    const { manifests, names } = durableFlow({ modules: { door: a, s1: a, s2: b, s3: b } });
    const s1 = manifests.nodes.get("s1")!;
    s1.metadata.labels = { ...s1.metadata.labels, [EXECUTION_MODE_LABEL]: EXECUTION_MODE_DURABLE };
    // A test knob, not Go's: the 2-min duplicate window would take a re-drive sooner than Go's
    // 6 min for a duplicate of the lost original and drop it.
    const jsm = await jetstreamManager(tap);
    const ra = await replica(a, [...manifests.nodes.values()]);
    const client = (await replica(mod("client"), [])).transport;
    await client.send({ edgeId: "", from: "", to: `${names.s1}:in`, data: { trail: [] }, depth: 0 });
    const runId = await (async () => {
      await until("s1 recorded", () => ra.scheduler.durableStats.recorded === 1);
      return events.find((e) => e.node === names.s1)!.runId;
    })();
    // The hop to s2 sits in the stream: module b is down. Then the stream loses it.
    await jsm.streams.purge(EDGE_STREAM, { filter: `tinymodule.${b}.msg` });
    await replica(b, [...manifests.nodes.values()]);
    await jsm.streams.update(EDGE_STREAM, { duplicate_window: nanos(1000) }); // after b ensured the stream
    await Bun.sleep(1500);
    expect(events.some((e) => e.node === names.s2)).toBe(false);
    expect(viewRun(runId, await ledger.readRun(runId))?.status).toBe("running");

    const reconciler = new RunReconciler({ ledger, isLeader: () => true, republish: (msg) => ra.transport.send(msg), staleAfterMs: 500 });
    const report = await reconciler.pass();
    expect(report.redriven).toBeGreaterThanOrEqual(1);
    await until("the run is done", async () => viewRun(runId, await ledger.readRun(runId))?.status === "done");
    expect(events.filter((e) => e.node === names.s2 && e.event === "done").length).toBe(1);
    expect(events.filter((e) => e.node === names.s3 && e.event === "done").length).toBe(1);
    await jsm.streams.update(EDGE_STREAM, { duplicate_window: nanos(120_000) });
  }, 60_000);

  test("gives up on a hop nobody takes after the re-drive limit, with a terminal failed record", async () => {
    const [a, ghost] = [mod("gua"), mod("ghost")];
    const { manifests, names } = durableFlow({ modules: { door: a, s1: a, s2: ghost, s3: ghost } });
    const s1 = manifests.nodes.get("s1")!;
    s1.metadata.labels = { ...s1.metadata.labels, [EXECUTION_MODE_LABEL]: EXECUTION_MODE_DURABLE };
    const ra = await replica(a, [...manifests.nodes.values()]);
    const client = (await replica(mod("client"), [])).transport;
    await client.send({ edgeId: "", from: "", to: `${names.s1}:in`, data: { trail: [] }, depth: 0 });
    await until("s1 recorded", () => ra.scheduler.durableStats.recorded === 1);
    const runId = events.find((e) => e.node === names.s1)!.runId;
    const hop = viewRun(runId, await ledger.readRun(runId))!.frontier[0]!;
    expect(hop.to).toBe(`${names.s2}:in`);
    const republished: string[] = [];
    // (The ledger is shared with the other tests: count this run's re-drives only.)
    const reconciler = new RunReconciler({
      ledger,
      isLeader: () => true,
      republish: (msg) => (msg.runId === runId && republished.push(msg.stepKey!), ra.transport.send(msg)),
      staleAfterMs: 0,
      maxRedrives: 3,
    });
    const reports = [];
    for (let i = 0; i < 4; i++) reports.push(await reconciler.pass());
    expect(republished).toEqual([hop.stepKey, hop.stepKey, hop.stepKey]);
    expect(await ledger.redrives(runId, hop.stepKey)).toBe(3);
    expect(reports.map((r) => r.gaveUp >= 1)).toEqual([false, false, false, true]);
    const failed = await ledger.getStep(runId, hop.stepKey);
    expect(failed).toMatchObject({ node: `${names.s2}:in`, status: "failed" });
    expect(failed!.error).toContain("re-drive limit reached after 3 attempts");
    expect(viewRun(runId, await ledger.readRun(runId))?.status).toBe("failed");
    await reconciler.pass(); // terminal: nothing more to do for this run
    expect(republished.length).toBe(3);
  }, 60_000);
});

describe("against the Go SDK (test/go/wire-peer)", () => {
  async function peer(cmd: string, lines: unknown[]): Promise<unknown[]> {
    const proc = Bun.spawn([await goTool("wire-peer"), cmd], { stdin: "pipe", stdout: "pipe", stderr: "pipe" });
    proc.stdin.write(lines.map((l) => JSON.stringify(l)).join("\n") + "\n");
    await proc.stdin.end();
    const [out, code] = await Promise.all([new Response(proc.stdout).text(), proc.exited]);
    if (code !== 0) throw new Error(`wire-peer ${cmd} exited ${code}: ${await new Response(proc.stderr).text()}`);
    return out
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
  }

  test("the step keys we mint are the keys Go's Run.NextStepKey mints", async () => {
    const cases = Array.from({ length: 40 }, (_, i) => {
      const runId = crypto.randomUUID();
      const stepKey = i % 2 === 0 ? rootStepKey(runId) : `${runId}.${(i * 0x9e3779b1).toString(16).padStart(16, "0").slice(-16)}`;
      const edges = Array.from({ length: 1 + (i % 4) }, (_, j) => (j % 2 === 0 ? `e${i}` : `${crypto.randomUUID()}_out-ä${j}`));
      return { runId, stepKey, edges };
    });
    const go = (await peer("stepkeys", cases)) as { keys: string[] }[];
    const ours = cases.map((c) => {
      const n = new Map<string, number>();
      return { keys: c.edges.map((e) => childStepKey(c.runId, c.stepKey, e, (n.set(e, (n.get(e) ?? -1) + 1), n.get(e)!))) };
    });
    expect(ours).toEqual(go);
  });

  test("Go decodes the step records we write into module.StepRecord", async () => {
    const [front, back] = [mod("gofront"), mod("goback")];
    const { manifests, names } = durableFlow({ modules: { door: front, s1: back, s2: back, s3: front } });
    const nodes = [...manifests.nodes.values()];
    await Promise.all([replica(front, nodes), replica(back, nodes)]);
    const { runId } = await callDoor(names.door, (await replica(mod("client"), [])).transport);
    const recs = [...(await ledger.readRun(runId)).values()];
    expect(recs.length).toBe(4);
    const go = (await peer("record", recs)) as { record?: Record<string, unknown>; error?: string }[];
    for (const [i, g] of go.entries()) {
      expect(g.error).toBeUndefined();
      const ours = recs[i]!;
      expect(g.record).toMatchObject({ node: ours.node, status: ours.status });
      expect(g.record!.durationMs ?? 0).toBe(ours.durationMs ?? 0); // Go's omitempty drops a 0 ms duration
      expect(Date.parse(g.record!.completedAt as string)).toBe(Date.parse(ours.completedAt));
      expect((g.record!.emits as unknown[] | undefined) ?? []).toEqual(ours.emits ?? []);
    }
  });
});
