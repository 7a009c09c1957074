/**
 * A durable run survives the replica running its middle step dying (runtime-spec §4.4, §14.4):
 * real `tinyhost run` processes on a real kube-apiserver and a nats-server with JetStream —
 * module `front` (one replica: the door and s3) and module `back` (two replicas: s1 and s2). The
 * caller's request waits at the door (Go `BeginRunWithReply`); s2 holds its first execution; the
 * replica running it is SIGKILLed. JetStream redelivers the unacked hop to the other replica once
 * AckWait passes; the run completes there, the caller gets its reply, and the ledger holds one
 * record per step whose handler finished exactly once.
 *
 * To put a Go module in the flow, give `durableFlow` its module name and component for a key and
 * start it beside these processes (test/support/durable-flow.ts).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import type { KubeClient } from "../../src/k8s/client/index.ts";
import { tinyModules } from "../../src/k8s/controllers/index.ts";
import { rootStepKey } from "../../src/core/durable/run.ts";
import { viewRun } from "../../src/core/durable/view.ts";
import { connectNats } from "../../src/transport/nats/connect.ts";
import { JetStreamTransport } from "../../src/transport/nats/jetstream.ts";
import { RunLedger } from "../../src/runtime/durable/run-ledger.ts";
import { BUN } from "../support/bun-test.ts";
import { openClusterFixture } from "../support/cluster-fixture.ts";
import type { ControlPlane } from "../support/control-plane.ts";
import { durableFlow } from "../support/durable-flow.ts";
import { readJournal } from "../support/durable-journal.ts";
import { applyObjects, flowObjects, waitForReconciled } from "../support/flows.ts";
import { startModuleProcess, type ModuleProcess } from "../support/module-process.ts";
import { waitUntil } from "../support/process.ts";
import { startNats, type NatsServer } from "../support/nats.ts";

/** AckWait of the module processes, ms: how long a hop held by the dead replica waits (Go: 30 000). */
const ACK_WAIT_MS = Number(process.env.DURABLE_KILL_ACK_WAIT_MS ?? 5000);

let cp: ControlPlane;
let kube: KubeClient;
let dir: string;
let nats: NatsServer;
let ns: string;
const procs: ModuleProcess[] = [];

beforeAll(async () => {
  ({ cp, kube, dir } = await openClusterFixture("durable-kill"));
  nats = await startNats();
}, 900_000);

afterAll(async () => {
  await Promise.all(procs.map((p) => p.stop(5000)));
  await nats?.dispose();
});

describe("a durable run across two modules when a replica dies", () => {
  test("the run completes on the other replica, each recorded step ran to completion once, and the caller gets its reply", async () => {
    ns = await cp.newNamespace("durable-kill");
    const logDir = join(dir, ns);
    mkdirSync(logDir);
    const journalFile = join(logDir, "journal.jsonl");
    const env = {
      TINY_NATS_URL: nats.url,
      TINY_NATS_TRANSPORT: "jetstream",
      TINYHOST_JETSTREAM_ACK_WAIT_MS: String(ACK_WAIT_MS),
      DURABLE_JOURNAL: journalFile,
      DURABLE_REPLY_TIMEOUT_MS: "120000",
    };
    const start = (hostname: string, name: string) =>
      startModuleProcess({ hostname, name, namespace: ns, kubeconfig: cp.tokenKubeconfig, components: "test/fixtures/durable-components", env, logDir });
    procs.push(...(await Promise.all([start("front-0", "front"), start("back-0", "back"), start("back-1", "back")])));
    const byPod = new Map(procs.map((p) => [p.name.replace(/^module /, ""), p]));

    const { manifests, names } = durableFlow({ modules: { door: "front", s1: "back", s2: "back", s3: "front" }, holdFirstMs: { s2: 90_000 }, namespace: ns });
    const objects = flowObjects(manifests, ns);
    await applyObjects(kube, ns, objects);
    await waitForReconciled(
      kube,
      ns,
      objects.filter((o) => o.kind === "TinyNode").map((o) => o.metadata.name!),
    );

    // The caller: a classic JetStream request to the door, as Go's classic sender makes it.
    const nc = await connectNats(nats.url);
    const caller = await JetStreamTransport.create({ nc, module: "caller", requestTimeoutMs: 150_000 });
    const t0 = performance.now();
    const answer = caller.send({ edgeId: "", from: "", to: `${names.door}:in`, data: { trail: [] }, depth: 0 });

    let victim = "";
    await waitUntil(
      "s2 started on a back replica",
      async () => {
        victim = readJournal(journalFile).find((e) => e.node === names.s2 && e.event === "start")?.pod ?? "";
        return victim !== "";
      },
      60_000,
      50,
    );
    const tStarted = performance.now();
    await byPod.get(victim)!.kill();
    const tKilled = performance.now();

    const r = await answer;
    const tDone = performance.now();
    expect(r.kind).toBe("ok");
    const { runId, reply } = JSON.parse(new TextDecoder().decode((r as { value: Uint8Array }).value)) as { runId: string; reply: { trail: string[] } };
    expect(reply).toEqual({ trail: [names.s1, names.s2, names.s3] });

    // The journal: s2 started twice (the dead replica's run never finished), finished once, elsewhere.
    const journal = readJournal(journalFile).filter((e) => e.runId === runId);
    const s2 = journal.filter((e) => e.node === names.s2);
    expect(s2.map((e) => [e.pod, e.event])).toEqual([
      [victim, "start"],
      [s2[1]!.pod, "start"],
      [s2[1]!.pod, "done"],
    ]);
    expect(s2[1]!.pod).not.toBe(victim);

    // The ledger: one record per step, each done, each by a handler that finished exactly once.
    const ledger = await RunLedger.open(nc);
    const records = await ledger.readRun(runId);
    expect([...records.values()].map((rec) => rec.node).sort()).toEqual([names.door, names.s1, names.s2, names.s3].sort());
    expect(records.get(rootStepKey(runId))?.node).toBe(names.door);
    for (const rec of records.values()) {
      expect(rec.status).toBe("done");
      expect(journal.filter((e) => e.node === rec.node && e.event === "done").length).toBe(1);
    }
    expect(viewRun(runId, records)).toMatchObject({ status: "done", frontier: [] });

    const ms = (a: number, b: number) => Math.round(b - a);
    console.log(
      `[durable-kill] AckWait ${ACK_WAIT_MS} ms: s2 started ${ms(t0, tStarted)} ms after the call; run finished ${ms(tKilled, tDone)} ms after the kill of ${victim}; ledger: ${[
        ...records.entries(),
      ]
        .map(([k, rec]) => `${k.slice(37)} ${rec.node.split(".").slice(1).join(".")} ${rec.status} ${rec.durationMs} ms`)
        .join("; ")}`,
    );
    await caller.close(100);
    await nc.close();
  }, 240_000);

  test("the surviving back replica answers tinyhost rpc, and TinyModule status lists the agent tool as authored (as Go)", async () => {
    const proc = Bun.spawn([BUN, "src/cli/main.ts", "rpc", "--nats-url", nats.url, "back", "durable_double", '{"n":21}'], {
      cwd: join(import.meta.dir, "../.."),
      stdout: "pipe",
      stderr: "pipe",
    });
    const [out, code] = await Promise.all([new Response(proc.stdout).text(), proc.exited]);
    expect({ code, out: out.trim() }).toEqual({ code: 0, out: '{"n":42,"calls":1}' });
    let entry: { info?: string; tags?: string[]; ports?: { name: string }[] } | undefined;
    await waitUntil(
      "TinyModule back lists durable_double",
      async () => {
        const m = await kube.get(tinyModules, "back", ns).catch(() => undefined);
        entry = m?.status?.components?.find((c) => c.name === "durable_double");
        return entry !== undefined;
      },
      30_000,
      200,
    );
    // Go's TinyModule controller lists GetInfo() unchanged: no agent_tool tag, the component's own info.
    expect(entry).toMatchObject({ info: "doubles n", tags: ["test"] });
    expect(entry!.ports!.map((p) => p.name)).toEqual(["in", "out"]);
  }, 60_000);
});
