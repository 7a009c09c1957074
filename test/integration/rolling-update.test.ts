/**
 * A rolling update loses nothing (issue 21): real `tinyhost run` processes on a real kube-apiserver
 * and nats-server; module `back` runs two replicas, each stopped by SIGTERM in turn while load flows
 * and replaced by a new pod (a Deployment's rolling update), one at a time.
 * - JetStream: a durable flow `s1 → s2 → s3` (test/fixtures/rolling-components) under
 *   {@link RUNS} × 3 = 10 002 hops. Every hop completes exactly once — one `done` in the journal per
 *   step and run, one `done` record in the step ledger — none is terminated by a shutdown and the
 *   stream is empty at the end.
 * - Core NATS request/reply: callers keep requesting the module through the rolling update; none
 *   sees an error (the stopping replica leaves the queue group first and finishes what it has).
 * Printed: hops sent, completed, duplicated, lost; each replica's time from SIGTERM to exit.
 * `ROLLING_KEEP_LOGS=<dir>` copies the module logs and the journal there (the suite removes its temp dir).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { cpSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { jetstreamManager } from "@nats-io/jetstream";
import type { NatsConnection } from "@nats-io/transport-node";
import { buildFlow } from "../../src/cli/scaffold/flow-builder.ts";
import type { KubeClient } from "../../src/k8s/client/index.ts";
import { mintRun } from "../../src/core/durable/run.ts";
import type { Result } from "../../src/core/result.ts";
import { connectNats } from "../../src/transport/nats/connect.ts";
import { CoreNatsTransport } from "../../src/transport/nats/core.ts";
import { JetStreamTransport } from "../../src/transport/nats/jetstream.ts";
import { RunLedger } from "../../src/runtime/durable/run-ledger.ts";
import { parseStepRecord } from "../../src/runtime/durable/ledger.ts";
import type { StepRecord } from "../../src/core/durable/run.ts";
import { openClusterFixture } from "../support/cluster-fixture.ts";
import type { ControlPlane } from "../support/control-plane.ts";
import { readJournal, type JournalEvent } from "../support/durable-journal.ts";
import { applyObjects, flowObjects, waitForReconciled } from "../support/flows.ts";
import { startModuleProcess, type ModuleProcess } from "../support/module-process.ts";
import { waitUntil } from "../support/process.ts";
import { startNats, type NatsServer } from "../support/nats.ts";

/** Durable runs sent; each is three hops (s1, s2, s3): 10 002 hops, the issue's 10 000. */
const RUNS = 3334;
/** Work per step, ms: hops are in flight when SIGTERM comes, and the drain waits for them. */
const HOLD_MS = 100;

let cp: ControlPlane;
let kube: KubeClient;
let dir: string;
let js: NatsServer;
/** Core NATS on a server without JetStream: `module-edges` would capture the module's subject. */
let core: NatsServer;
const procs: ModuleProcess[] = [];

beforeAll(async () => {
  ({ cp, kube, dir } = await openClusterFixture("rolling-update"));
  [js, core] = await Promise.all([startNats(), startNats({ jetstream: false })]);
}, 900_000);

afterAll(async () => {
  await Promise.all(procs.map((p) => p.stop(5000)));
  await Promise.all([js?.dispose(), core?.dispose()]);
});

/** The flow `s1 → s2 → s3` on module `back`, applied and reconciled; node names by key. */
async function applyFlow(ns: string): Promise<Record<"s1" | "s2" | "s3", string>> {
  const cfg = { trail: "{{$.trail}}", holdMs: HOLD_MS };
  const m = buildFlow({
    project: "rolling",
    flow: "chain",
    module: "back",
    namespace: ns,
    nodes: { s1: { component: "rolling_step" }, s2: { component: "rolling_step" }, s3: { component: "rolling_step" } },
    edges: [
      { from: "s1:out", to: "s2:in", configuration: cfg },
      { from: "s2:out", to: "s3:in", configuration: cfg },
    ],
  });
  const objects = flowObjects(m, ns);
  await applyObjects(kube, ns, objects);
  await waitForReconciled(
    kube,
    ns,
    objects.filter((o) => o.kind === "TinyNode").map((o) => o.metadata.name!),
  );
  return { s1: m.nodes.get("s1")!.metadata.name!, s2: m.nodes.get("s2")!.metadata.name!, s3: m.nodes.get("s3")!.metadata.name! };
}

/**
 * Replaces each of `replicas` in turn: SIGTERM, wait for the exit (timed), start its successor and
 * wait until it is ready. Returns the SIGTERM→exit times and exit codes.
 */
async function rollingUpdate(
  replicas: ModuleProcess[],
  start: (hostname: string) => Promise<ModuleProcess>,
): Promise<{ pod: string; ms: number; code: number }[]> {
  const out: { pod: string; ms: number; code: number }[] = [];
  for (const [i, old] of replicas.entries()) {
    await Bun.sleep(1500); // load reaches both replicas first
    const t0 = performance.now();
    await old.stop(15_000);
    out.push({ pod: old.name.replace(/^module /, ""), ms: Math.round(performance.now() - t0), code: await old.exited });
    procs.push(await start(`back-${replicas.length + i}`));
  }
  return out;
}

describe("a rolling update of a module with two replicas", () => {
  test("JetStream: 10 002 durable hops through the update, each completes exactly once, none terminated or lost", async () => {
    const ns = await cp.newNamespace("rolling-js");
    const logDir = join(dir, ns);
    mkdirSync(logDir);
    const journalFile = join(logDir, "journal.jsonl");
    const env = { TINY_NATS_URL: js.url, TINY_NATS_TRANSPORT: "jetstream", TINYHOST_JETSTREAM_ACK_WAIT_MS: "10000", DURABLE_JOURNAL: journalFile };
    const start = (hostname: string) =>
      startModuleProcess({
        hostname,
        name: "back",
        namespace: ns,
        kubeconfig: cp.tokenKubeconfig,
        components: "test/fixtures/rolling-components",
        env,
        logDir,
      });
    const first = await Promise.all([start("back-0"), start("back-1")]);
    procs.push(...first);
    const names = await applyFlow(ns);

    const nc = await connectNats(js.url);
    // The server's advisory for every message a consumer terminated: none may come from a shutdown.
    const terminated: string[] = [];
    nc.subscribe("$JS.EVENT.ADVISORY.CONSUMER.MSG_TERMINATED.module-edges.back", {
      callback: (_e, m) => void terminated.push(new TextDecoder().decode(m.data)),
    });
    await nc.flush();
    const sender = await JetStreamTransport.create({ nc, module: "loadgen" });
    const runs: string[] = [];
    const sendFailures: string[] = [];
    // The load: ~300 runs/s, spread over the whole rolling update.
    const load = (async () => {
      for (let i = 0; i < RUNS; i += 30) {
        const batch = Array.from({ length: Math.min(30, RUNS - i) }, () => {
          const run = mintRun();
          runs.push(run.runId);
          return sender.send({
            edgeId: "",
            from: "",
            to: `${names.s1}:in`,
            data: { trail: [], holdMs: HOLD_MS },
            depth: 0,
            runId: run.runId,
            stepKey: run.stepKey,
          });
        });
        for (const r of await Promise.all(batch)) if (r.kind === "fail") sendFailures.push(r.error.message);
        await Bun.sleep(100);
      }
    })();
    const stops = await rollingUpdate(first, start);
    await load;
    expect(sendFailures).toEqual([]);

    const expected = RUNS * 3;
    const done = () => readJournal(journalFile).filter((e) => e.event === "done");
    // A stall is not thrown here: the figures below say what was lost, the diagnosis says why.
    const stalled = await waitUntil(`${expected} hops done`, async () => new Set(done().map((e) => `${e.node}/${e.runId}`)).size >= expected, 90_000, 500).then(
      () => false,
      () => true,
    );
    if (process.env.ROLLING_KEEP_LOGS) cpSync(logDir, process.env.ROLLING_KEEP_LOGS, { recursive: true });
    if (stalled) await diagnose(nc, done(), runs, Object.values(names));
    await Bun.sleep(2000); // a late duplicate would show now

    const counts = new Map<string, number>();
    for (const e of done()) counts.set(`${e.node}/${e.runId}`, (counts.get(`${e.node}/${e.runId}`) ?? 0) + 1);
    const mine = new Set(runs);
    const completed = [...counts.keys()].filter((k) => mine.has(k.slice(k.indexOf("/") + 1))).length;
    const duplicated = [...counts.values()].reduce((n, c) => n + (c - 1), 0);
    const lost = expected - completed;

    // The ledger: one `done` record per step of every run (the bucket listed once).
    const ledger = await RunLedger.open(nc);
    const stepKeys = (await ledger.keys()).filter((k) => k.startsWith("exec/") && k.includes("/step/") && mine.has(k.split("/")[1]!));
    const records = (
      await Promise.all(
        chunk(stepKeys, 100).map(async (part) => {
          const out: StepRecord[] = [];
          for (const key of part) {
            const rec = parseStepRecord(await ledger.raw(key));
            if (rec) out.push(rec);
          }
          return out;
        }),
      )
    ).flat();
    const ledgerDone = records.filter((r) => r.status === "done" && Object.values(names).includes(r.node)).length;
    const jsm = await jetstreamManager(nc);
    const left = (await jsm.streams.info("module-edges", { subjects_filter: "tinymodule.back.msg" })).state.subjects?.["tinymodule.back.msg"] ?? 0;
    // Deliveries beyond one per hop: messages a stopping replica pulled and nak'd to the other.
    const ci = await jsm.consumers.info("module-edges", "back");
    const redeliveries = ci.delivered.consumer_seq - ci.delivered.stream_seq;
    const byPod = new Map<string, number>();
    for (const e of done()) byPod.set(e.pod, (byPod.get(e.pod) ?? 0) + 1);
    console.log(
      `[rolling-update] jetstream: hops by pod ${JSON.stringify(Object.fromEntries(byPod))}; hops sent ${expected}, completed ${completed}, duplicated ${duplicated}, lost ${lost}; ledger done records ${ledgerDone}; left in stream ${left}; terminated ${terminated.length}; redeliveries ${redeliveries}; SIGTERM→exit ${stops.map((s) => `${s.pod} ${s.ms} ms (code ${s.code})`).join(", ")}`,
    );
    expect({ completed, duplicated, lost, ledgerDone, left, terminated: terminated.length }).toEqual({
      completed: expected,
      duplicated: 0,
      lost: 0,
      ledgerDone: expected,
      left: 0,
      terminated: 0,
    });
    // Both original replicas took their share before their SIGTERM (one pull starving the other would not).
    expect({ "back-0": (byPod.get("back-0") ?? 0) > 0, "back-1": (byPod.get("back-1") ?? 0) > 0 }).toEqual({ "back-0": true, "back-1": true });
    expect(stops.map((s) => s.code)).toEqual([0, 0]);
    await sender.close(100);
    await nc.close();
  }, 240_000);

  test("core NATS: callers requesting through the update never see an error", async () => {
    const ns = await cp.newNamespace("rolling-core");
    const logDir = join(dir, ns);
    mkdirSync(logDir);
    const env = { TINY_NATS_URL: core.url, TINYHOST_MAX_CONCURRENT_HOPS: "64" };
    const start = (hostname: string) =>
      startModuleProcess({
        hostname,
        name: "back",
        namespace: ns,
        kubeconfig: cp.tokenKubeconfig,
        components: "test/fixtures/rolling-components",
        env,
        logDir,
      });
    const first = await Promise.all([start("back-0"), start("back-1")]);
    procs.push(...first);
    const names = await applyFlow(ns);

    const nc = await connectNats(core.url);
    const client = new CoreNatsTransport({ nc, module: "caller", requestTimeoutMs: 30_000 });
    let rolling = true;
    let sent = 0;
    const errors: string[] = [];
    const caller = async () => {
      while (rolling) {
        sent++;
        const r: Result = await client.send({ edgeId: "", from: "", to: `${names.s1}:in`, data: { trail: [], holdMs: HOLD_MS }, depth: 0 });
        if (r.kind === "fail") errors.push(r.error.message);
      }
    };
    const callers = Array.from({ length: 20 }, caller);
    const stops = await rollingUpdate(first, start);
    await Bun.sleep(1000);
    rolling = false;
    await Promise.all(callers);
    console.log(
      `[rolling-update] core: requests ${sent}, errors ${errors.length}; SIGTERM→exit ${stops.map((s) => `${s.pod} ${s.ms} ms (code ${s.code})`).join(", ")}`,
    );
    expect(errors.slice(0, 5)).toEqual([]);
    expect(sent).toBeGreaterThan(100);
    expect(stops.map((s) => s.code)).toEqual([0, 0]);
    // The hop limit of the env, on /metrics of a replacement replica.
    const last = procs.at(-1)!;
    expect(await last.metric("tinyhost_hop_slots_limit")).toBe(64);
    expect(await last.metric("tinyhost_hop_slots_taken")).toBe(0);
    await nc.close();
  }, 240_000);
});

function chunk<T>(xs: T[], n: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < xs.length; i += n) out.push(xs.slice(i, i + n));
  return out;
}

/** Prints what a stalled run needs to be read: progress per node and pod, the consumer, the ledger of a few missing steps. */
async function diagnose(nc: NatsConnection, done: JournalEvent[], runs: string[], nodes: string[]): Promise<void> {
  const byNode = new Map<string, number>();
  const byPod = new Map<string, number>();
  for (const e of done) byNode.set(e.node, (byNode.get(e.node) ?? 0) + 1), byPod.set(e.pod, (byPod.get(e.pod) ?? 0) + 1);
  const ci = await (await jetstreamManager(nc)).consumers.info("module-edges", "back").then(
    (i) => ({ delivered: i.delivered, ackFloor: i.ack_floor, pending: i.num_ack_pending, redelivered: i.num_redelivered }),
    (e: Error) => e.message,
  );
  console.log(`[rolling-update] stalled: by node ${JSON.stringify([...byNode])}, by pod ${JSON.stringify([...byPod])}, consumer ${JSON.stringify(ci)}`);
  const seen = new Set(done.map((e) => `${e.node}/${e.runId}`));
  const missing = runs.flatMap((r) => nodes.filter((n) => !seen.has(`${n}/${r}`)).map((n) => ({ n, r })));
  const ledger = await RunLedger.open(nc);
  for (const { n, r } of missing.slice(0, 4)) {
    const recs = await ledger.readRun(r);
    console.log(`[rolling-update] missing ${n} of run ${r}: ledger ${JSON.stringify([...recs.values()].map((x) => [x.node, x.status, x.startedAt]))}`);
  }
}
