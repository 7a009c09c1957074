/**
 * JetStream transport against a real nats-server (runtime-spec §4.4, §1.7, §2.7, §3.6, §14.4):
 * streams and consumers as Go names them, classic and durable hops, reply hops, a broker restart
 * under durable load (through the scheduler, which runs the step ledger), a consumer deleted under
 * load, the run reconciler. Whole durable runs: durable-runs.test.ts.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { jetstream, jetstreamManager, RetentionPolicy, AckPolicy, DeliverPolicy } from "@nats-io/jetstream";
import { headers, type NatsConnection } from "@nats-io/transport-node";
import { coded, retryable, shouldRetry } from "../../src/core/errors.ts";
import { empty, fail, ok, type Result } from "../../src/core/result.ts";
import { connectNats } from "../../src/transport/nats/connect.ts";
import { JetStreamTransport, type JetStreamTransportOptions } from "../../src/transport/nats/jetstream.ts";
import { RunLedger } from "../../src/runtime/durable/run-ledger.ts";
import { RunReconciler } from "../../src/runtime/durable/reconciler.ts";
import { childStepKey, currentRun, mintRun } from "../../src/core/durable/run.ts";
import { Scheduler } from "../../src/runtime/scheduler/index.ts";
import { defineComponent, target as targetPort, Type } from "../../src/sdk/index.ts";
import type { Msg } from "../../src/core/hop.ts";
import { startNats, type NatsServer } from "../support/nats.ts";
import { until as poll } from "../support/until.ts";

const td = new TextDecoder();
const te = new TextEncoder();
let srv: NatsServer;
const conns: NatsConnection[] = [];
const closers: Array<() => Promise<void>> = [];
let ledger: RunLedger;

async function conn(): Promise<NatsConnection> {
  const nc = await connectNats(srv.url, { reconnectTimeWaitMs: 100 });
  conns.push(nc);
  return nc;
}

async function transport(module: string, o: Partial<JetStreamTransportOptions> = {}): Promise<JetStreamTransport> {
  const t = await JetStreamTransport.create({
    nc: await conn(),
    module,
    pod: `pod-${module}`,
    ackWaitMs: 2000,
    healthCheckMs: 300,
    rebuildPauseMs: 100,
    requestTimeoutMs: 10_000,
    ...o,
  });
  closers.push(() => t.close(200));
  return t;
}

let seq = 0;
const modName = (p: string) => `${p}-${++seq}`;
const hop = (to: string, data: unknown, extra: Partial<Msg> = {}): Msg => ({ edgeId: "e1", from: "h1.src.x-1:out", to, data, depth: 1, ...extra });

/** This file's timeout and poll interval. */
const until = (what: string, cond: () => unknown, ms = 20_000) => poll(what, cond, ms, 25);

beforeAll(async () => {
  srv = await startNats();
  ledger = await RunLedger.open(await conn());
});

afterAll(async () => {
  for (const c of closers) await c().catch(() => undefined);
  await Promise.allSettled(conns.map((c) => c.close()));
  await srv.dispose();
});

describe("JetStream transport", () => {
  test("streams, consumers and the KV bucket carry the Go names and settings", async () => {
    const mod = modName("names");
    const t = await transport(mod);
    await t.serve({ handler: async () => empty });
    const jsm = await jetstreamManager(await conn());
    const edges = await jsm.streams.info("module-edges");
    expect(edges.config.subjects).toEqual(["tinymodule.*.msg"]);
    expect(edges.config.retention).toBe(RetentionPolicy.Workqueue);
    expect(edges.config.storage).toBe("file");
    expect(edges.config.duplicate_window).toBe(120_000_000_000);
    expect(edges.config.max_age).toBe(3_600_000_000_000);
    const sys = await jsm.streams.info("module-sysmsgs");
    expect(sys.config.subjects).toEqual(["tinymodule.*.sysmsg"]);
    expect(sys.config.retention).toBe(RetentionPolicy.Limits);
    const c = await jsm.consumers.info("module-edges", mod);
    expect(c.config.filter_subject).toBe(`tinymodule.${mod}.msg`);
    expect(c.config.deliver_policy).toBe(DeliverPolicy.All);
    expect(c.config.ack_policy).toBe(AckPolicy.Explicit);
    expect(c.config.max_deliver).toBe(3);
    const s = await jsm.consumers.info("module-sysmsgs", `${mod}-sys-pod-${mod}`);
    expect(s.config.deliver_policy).toBe(DeliverPolicy.New);
    expect(s.config.inactive_threshold).toBe(300_000_000_000);
    const kv = await jsm.streams.info("KV_TINY_EXEC");
    expect(kv.config.max_msgs_per_subject).toBe(1);
    // created or updated idempotently: a second module start changes nothing
    await JetStreamTransport.create({ nc: await conn(), module: mod });
  });

  test("a classic hop waits on its core inbox and gets the reply; errors come back as x-error", async () => {
    const mod = modName("classic");
    const t = await transport(mod);
    const seen: Msg[] = [];
    await t.serve({
      handler: async (msg) => {
        seen.push(msg);
        const d = JSON.parse(td.decode(msg.data as Uint8Array)) as { n: number };
        return d.n < 0 ? fail(coded("E_NEG", new Error("negative"))) : ok({ twice: d.n * 2 });
      },
    });
    const client = await transport(modName("client"));
    const r = await client.send(hop(`h.${mod}.y:in`, { n: 4 }));
    expect(r.kind === "ok" && JSON.parse(td.decode(r.value as Uint8Array))).toEqual({ twice: 8 });
    const e = await client.send(hop(`h.${mod}.y:in`, { n: -1 }));
    expect(e.kind === "fail" && e.error.message).toBe("E_NEG: negative");
    expect(seen[0]?.runId).toBeUndefined();
  });

  test("the classic sender puts x-reply-inbox and no Nats-Msg-Id on the wire", async () => {
    const mod = modName("hdr");
    const nc = await conn();
    const js = jetstream(nc);
    const jsm = await jetstreamManager(nc);
    const client = await transport(modName("client"));
    await jsm.consumers.add("module-edges", { durable_name: mod, filter_subject: `tinymodule.${mod}.msg`, ack_policy: AckPolicy.Explicit });
    const pending = client.send(hop(`h.${mod}.y:in`, { a: 1 }));
    const c = await js.consumers.get("module-edges", mod);
    const m = await c.next({ expires: 5000 });
    if (!m) throw new Error("no message in the stream");
    expect(m.headers?.get("x-to")).toBe(`h.${mod}.y:in`);
    expect(m.headers?.get("Nats-Msg-Id")).toBe("");
    const inbox = m.headers?.get("x-reply-inbox") ?? "";
    expect(inbox).toStartWith("_INBOX.");
    const h = headers();
    h.set("x-empty", "1");
    nc.publish(inbox, new Uint8Array(), { headers: h }); // the Go receiver's reply
    m.ack();
    expect(await pending).toBe(empty);
  });

  test("a durable hop is fire-and-forget, carries the run headers and is stored once per step key", async () => {
    const mod = modName("durable");
    const t = await transport(mod);
    const runs: Msg[] = [];
    await t.serve({ handler: async (msg) => (runs.push(msg), ok({ done: true })) });
    const client = await transport(modName("client"));
    const run = mintRun({ replySubject: "_INBOX.origin", replyTarget: "h.web.srv-1:reply", replyDeadlineUnixMs: 1_900_000_000_000 });
    const msg = hop(
      `h.${mod}.y:in`,
      { v: 1 },
      { runId: run.runId, stepKey: run.stepKey, replySubject: run.replySubject!, replyTarget: run.replyTarget!, replyDeadlineUnixMs: run.replyDeadlineUnixMs! },
    );
    expect(await client.send(msg)).toBe(empty);
    expect(await client.send(msg)).toBe(empty); // a retry after a lost PubAck: the same Nats-Msg-Id
    await until("the hop", () => runs.length === 1);
    expect(runs[0]).toMatchObject({
      runId: run.runId,
      stepKey: run.stepKey,
      replySubject: "_INBOX.origin",
      replyTarget: "h.web.srv-1:reply",
      replyDeadlineUnixMs: 1_900_000_000_000,
    });
    await Bun.sleep(300);
    expect(runs).toHaveLength(1);
    const info = await (await jetstreamManager(await conn())).streams.info("module-edges", { subjects_filter: `tinymodule.${mod}.msg` });
    expect(info.state.subjects?.[`tinymodule.${mod}.msg`] ?? 0).toBe(0); // WorkQueue: acked and gone; the duplicate was never stored
  });

  test("a durable publish the broker did not take fails retryably: the step stays unrecorded and is redelivered, its copy dropped by step key", async () => {
    // A stream leader lost mid-publish answers 503 or never acks, though the message may be stored:
    // a terminal failure there would record the sending step `failed` while its emit runs on.
    const own = await startNats();
    try {
      const nc = await connectNats(own.url);
      try {
        const t = await JetStreamTransport.create({ nc, module: modName("nostream"), pod: "p", healthCheckMs: 60_000, requestTimeoutMs: 2000 });
        await (await jetstreamManager(nc)).streams.delete("module-edges");
        const r = await t.send(hop("h.other.y:in", { v: 1 }, { runId: "r-1", stepKey: "r-1.k" }));
        expect(r.kind).toBe("fail");
        if (r.kind === "fail") {
          expect(r.error.message).toContain("nats request to tinymodule.other.msg");
          expect(shouldRetry(r.error)).toBe(true);
        }
        await t.close(200);
      } finally {
        await nc.close();
      }
    } finally {
      await own.dispose();
    }
  });

  test("a reply hop goes to the reply subject with core NATS, raw body, no headers", async () => {
    const client = await transport(modName("client"));
    const nc = await conn();
    const inbox = `_INBOX.reply-${seq}`;
    const got = Promise.withResolvers<{ data: string; hasHeaders: boolean }>();
    nc.subscribe(inbox, { max: 1, callback: (_e, m) => got.resolve({ data: td.decode(m.data), hasHeaders: !!m.headers }) });
    await nc.flush();
    const run = mintRun();
    const r = await client.send(
      hop("h.web.srv-1:reply", { status: 200 }, { runId: run.runId, stepKey: "k", replySubject: inbox, replyTarget: "h.web.srv-1:reply" }),
    );
    expect(r).toBe(empty);
    expect(await got.promise).toEqual({ data: '{"status":200}', hasHeaders: false });
  });

  test("a retryable failure without an inbox is redelivered (nak), a plain one is terminated", async () => {
    const mod = modName("nak");
    const t = await transport(mod);
    const attempts = new Map<string, number>();
    await t.serve({
      handler: async (msg) => {
        const n = (attempts.get(msg.to) ?? 0) + 1;
        attempts.set(msg.to, n);
        return msg.to.endsWith(":retry") && n < 3 ? fail(retryable(new Error("flaky"))) : msg.to.endsWith(":plain") ? fail(new Error("nope")) : empty;
      },
    });
    const nc = await conn();
    const js = jetstream(nc);
    for (const port of ["retry", "plain"]) {
      const h = headers();
      h.set("x-to", `h.${mod}.y:${port}`);
      await js.publish(`tinymodule.${mod}.msg`, te.encode("{}"), { headers: h });
    }
    await until("three attempts of the retryable hop", () => attempts.get(`h.${mod}.y:retry`) === 3);
    await Bun.sleep(300);
    expect(attempts.get(`h.${mod}.y:plain`)).toBe(1);
  });

  test("a failed hop is terminated once: one handler run, one error reply, the message leaves the stream (issue 21)", async () => {
    // nats-server < 2.10 ignores `+TERM <reason>` (exact match on `+TERM`): such a hop was
    // redelivered after every AckWait, up to MaxDeliver, its error reply re-sent each time.
    const version = Bun.spawnSync(["nats-server", "--version"]).stdout.toString().trim();
    const mod = modName("term");
    const t = await transport(mod, { ackWaitMs: 1000, heartbeatMs: 300 });
    let runs = 0;
    await t.serve({ handler: async () => (runs++, fail(new Error("handler failed"))) });
    const nc = await conn();
    const inbox = `_INBOX.term-${seq}`;
    const replies: string[] = [];
    nc.subscribe(inbox, { callback: (_e, m) => void replies.push(m.headers?.get("x-error") ?? "") });
    await nc.flush();
    const h = headers();
    h.set("x-to", `h.${mod}.y:in`);
    h.set("x-reply-inbox", inbox);
    await jetstream(nc).publish(`tinymodule.${mod}.msg`, te.encode("{}"), { headers: h });
    await until("the first run", () => runs === 1 && replies.length === 1);
    await Bun.sleep(3500); // > 3 AckWaits: an ignored term would have been redelivered by now
    expect({ version, runs, replies }).toEqual({ version, runs: 1, replies: ["handler failed"] });
    const jsm = await jetstreamManager(nc);
    const info = await jsm.streams.info("module-edges", { subjects_filter: `tinymodule.${mod}.msg` });
    expect(info.state.subjects?.[`tinymodule.${mod}.msg`] ?? 0).toBe(0);
    const ci = await jsm.consumers.info("module-edges", mod);
    expect({ pending: ci.num_ack_pending, redelivered: ci.num_redelivered }).toEqual({ pending: 0, redelivered: 0 });
  });

  test("a consumer deleted under load is recreated and no hop is lost", async () => {
    const mod = modName("del");
    const t = await transport(mod);
    const got = new Set<number>();
    await t.serve({ handler: async (msg) => (got.add((JSON.parse(td.decode(msg.data as Uint8Array)) as { i: number }).i), empty) });
    const client = await transport(modName("client"));
    const jsm = await jetstreamManager(await conn());
    const total = 400;
    const sends: Promise<Result>[] = [];
    for (let i = 0; i < total; i++) {
      if (i === 150) await jsm.consumers.delete("module-edges", mod);
      sends.push(client.send(hop(`h.${mod}.y:in`, { i }, { runId: "load", stepKey: `load.${mod}.${i}` })));
      if (i % 50 === 0) await Bun.sleep(20);
    }
    const rs = await Promise.all(sends);
    expect(rs.filter((r) => r.kind === "fail")).toEqual([]);
    await until(
      "the consumer is back",
      async () =>
        (await jsm.consumers.info("module-edges", mod).then(
          () => true,
          () => false,
        )) && t.supervisors[0]!.starts >= 2,
    );
    await until(`all ${total} hops handled`, () => got.size === total, 30_000);
    expect(t.supervisors[0]!.starts).toBeGreaterThanOrEqual(2);
  }, 60_000);
});

describe("run reconciler", () => {
  test("re-drives a stale frontier hop, gives up after maxRedrives, and deletes finished runs", async () => {
    const runId = crypto.randomUUID();
    const root = `${runId}.root`;
    const child = childStepKey(runId, root, "e9", 0);
    const old = new Date(Date.now() - 10 * 60_000).toISOString();
    await ledger.putStep(runId, root, {
      node: "h.a.x",
      status: "done",
      completedAt: old,
      emits: [{ to: "h.b.y:in", from: "h.a.x:out", edgeID: "e9", stepKey: child, data: Buffer.from('{"k":1}').toString("base64") }],
    });
    const doneRun = crypto.randomUUID();
    await ledger.putStep(doneRun, `${doneRun}.root`, { node: "h.a.x", status: "done", completedAt: new Date(Date.now() - 25 * 3600_000).toISOString() });
    const republished: Msg[] = [];
    const rec = new RunReconciler({
      ledger,
      isLeader: () => true,
      republish: async (m) => (republished.push(m), empty),
      staleAfterMs: 1000,
      gcAfterMs: 24 * 3600_000,
      maxRedrives: 2,
    });
    const first = await rec.pass();
    expect(first.redriven).toBe(1);
    expect(first.deletedRuns).toBe(1);
    expect(republished[0]).toMatchObject({ to: "h.b.y:in", from: "h.a.x:out", edgeId: "e9", runId, stepKey: child });
    expect(td.decode(republished[0]!.data as Uint8Array)).toBe('{"k":1}');
    expect(await ledger.redrives(runId, child)).toBe(1);
    expect(await ledger.getStep(doneRun, `${doneRun}.root`)).toBeUndefined();
    await rec.pass();
    const third = await rec.pass();
    expect(third.gaveUp).toBe(1);
    const failed = await ledger.getStep(runId, child);
    expect(failed?.status).toBe("failed");
    expect(failed?.node).toBe("h.b.y:in");
    expect(failed?.error).toContain("re-drive limit reached after 2 attempts");
    expect(republished).toHaveLength(2);
  });

  test("does nothing while not the leader", async () => {
    let passes = 0;
    const rec = new RunReconciler({ ledger, isLeader: () => false, republish: async () => (passes++, empty), intervalMs: 20, staleAfterMs: 0 });
    rec.start();
    await Bun.sleep(120);
    await rec.stop();
    expect(passes).toBe(0);
  });
});

describe("durable hops across a nats-server restart", () => {
  test("none is lost and none runs again once its ledger record exists", async () => {
    const mod = modName("restart");
    const t = await transport(mod);
    const runsPerStep = new Map<string, number>();
    let violations = 0;
    // The handler must never run for a step that already has a record (the scheduler checks the ledger).
    const count = defineComponent({
      info: { name: "count", description: "Count", info: "counts runs per step" },
      ports: () => [targetPort("in", Type.Any())],
      handle: async () => {
        const run = currentRun()!;
        if (await ledger.hasStep(run.runId, run.stepKey).catch(() => false)) violations++;
        runsPerStep.set(run.stepKey, (runsPerStep.get(run.stepKey) ?? 0) + 1);
      },
    });
    const scheduler = new Scheduler({ module: mod, remote: t, ledger });
    scheduler.install(count);
    await scheduler.update({ metadata: { name: `h.${mod}.y`, namespace: "ns", generation: 1 }, spec: { module: mod, component: "count" } });
    await t.serve({ handler: (msg, sig) => scheduler.handle(msg, sig) });
    const client = await transport(modName("client"));
    const runId = crypto.randomUUID();
    const budgetMs = 60_000;
    const target = Number(process.env.TINYHOST_DURABLE_HOPS ?? 10_000);
    const started = Date.now();
    let sent = 0;
    let restarted = false;
    const window = 256;
    const inflight = new Set<Promise<void>>();
    const sendOne = async (i: number) => {
      const stepKey = `${runId}.${i.toString(16).padStart(16, "0")}`;
      for (;;) {
        const r = await client.send(hop(`h.${mod}.y:in`, { i }, { runId, stepKey }));
        if (r.kind !== "fail") return;
        await Bun.sleep(100); // broker down: the origin re-publishes the same step (de-duplicated by Nats-Msg-Id)
      }
    };
    for (let i = 0; i < target && Date.now() - started < budgetMs / 2; i++) {
      if (!restarted && i === Math.floor(target / 3)) {
        restarted = true;
        void srv.restart();
      }
      const p = sendOne(i).finally(() => inflight.delete(p));
      inflight.add(p);
      sent++;
      if (inflight.size >= window) await Promise.race(inflight);
    }
    await Promise.all(inflight);
    const keys = Array.from({ length: sent }, (_, i) => `${runId}.${i.toString(16).padStart(16, "0")}`);
    await until(
      `records for all ${sent} steps`,
      async () => {
        if (runsPerStep.size < sent) return false;
        for (const k of keys) if (!(await ledger.hasStep(runId, k).catch(() => false))) return false;
        return true;
      },
      budgetMs,
    );
    const elapsed = Date.now() - started;
    console.error(
      `[durable restart] ${sent} hops (target ${target}) in ${elapsed} ms; re-runs before a record existed: ${[...runsPerStep.values()].filter((n) => n > 1).length}; skipped by ledger: ${scheduler.durableStats.skipped}`,
    );
    expect(restarted).toBe(true);
    expect(runsPerStep.size).toBe(sent);
    expect(violations).toBe(0);
  }, 180_000);
});
