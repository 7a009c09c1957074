/**
 * run_start and run_status on the JetStream transport with a real nats-server: run_start (module
 * F) begins a durable run whose steps run on module B, answers its caller `{context, runID}`, and
 * run_status reads the run from KV `TINY_EXEC` — from another replica of F, and after every replica
 * that took part stopped and a new one started (the ledger is the broker's, as in Go).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { NatsConnection } from "@nats-io/transport-node";
import { defineComponent, ok, target, Type } from "tinyhost";
import runStart from "../../components/run_start.ts";
import runStatus from "../../components/run_status.ts";
import type { TinyNode } from "../../src/core/api/index.ts";
import { buildFlow } from "../../src/cli/scaffold/flow-builder.ts";
import { Scheduler } from "../../src/runtime/scheduler/index.ts";
import type { ComponentDefinition } from "../../src/core/component.ts";
import { connectNats } from "../../src/transport/nats/connect.ts";
import { JetStreamTransport } from "../../src/transport/nats/jetstream.ts";
import { RunLedger } from "../../src/runtime/durable/run-ledger.ts";
import step from "../fixtures/durable-components/step.ts";
import { moveNodeToModule } from "../support/flows.ts";
import { startNats, type NatsServer } from "../support/nats.ts";

process.env.TINYHOST_LOG_LEVEL ??= "silent";

/** Answers each message with `ok(message)`: how the caller gets run_start's and run_status's payloads back. */
const echo = defineComponent({
  info: { name: "echo", description: "Echo", info: "answers with what it got" },
  ports: () => [target("in", Type.Any())],
  handle: (_ctx, _output, _port, data) => ok(data),
});

let srv: NatsServer;

/** One replica: its own connection, JetStream transport, KV ledger and scheduler. */
interface Replica {
  transport: JetStreamTransport;
  close(): Promise<void>;
}

async function replica(module: string, nodes: readonly TinyNode[], pod: string): Promise<Replica> {
  const nc: NatsConnection = await connectNats(srv.url, { reconnectTimeWaitMs: 100 });
  const transport = await JetStreamTransport.create({ nc, module, pod, ackWaitMs: 5000, healthCheckMs: 500, rebuildPauseMs: 100, requestTimeoutMs: 30_000 });
  const scheduler = new Scheduler({ module, remote: transport, ledger: await RunLedger.open(nc), readyTimeoutMs: 5000 });
  for (const d of [runStart, runStatus, echo, step] as ComponentDefinition[]) scheduler.install(d);
  for (const n of nodes) if (n.metadata.name!.split(".")[1] === module) await scheduler.update(n);
  await transport.serve({ handler: (m, s) => scheduler.handle(m, s) });
  return {
    transport,
    async close() {
      await transport.close(200);
      await scheduler.stopAll();
      await nc.close();
    },
  };
}

beforeAll(async () => {
  srv = await startNats();
});

afterAll(async () => {
  await srv.dispose();
});

describe("run_start + run_status across modules and replicas on JetStream", () => {
  test("the caller gets the run id at once; run_status reads the run from any replica, also after a restart", async () => {
    const [F, B] = ["front", "back"];
    const manifests = buildFlow({
      project: "runs",
      flow: "front-door",
      module: F,
      nodes: {
        door: { component: "run_start" },
        s1: { component: "durable_step" },
        s2: { component: "durable_step" },
        ans: { component: "echo" },
        status: { component: "run_status" },
      },
      edges: [
        { from: "door:out", to: "s1:in", configuration: { trail: "{{$.context.trail}}", holdFirstMs: 300 } },
        { from: "s1:out", to: "s2:in", configuration: { trail: "{{$.trail}}" } },
        { from: "door:started", to: "ans:in", configuration: "{{$}}" },
        { from: "status:response", to: "ans:in", configuration: "{{$}}" },
      ],
    });
    const names = {
      door: manifests.nodes.get("door")!.metadata.name!,
      status: manifests.nodes.get("status")!.metadata.name!,
      s1: moveNodeToModule(manifests, "s1", B),
      s2: moveNodeToModule(manifests, "s2", B),
    };
    const nodes = [...manifests.nodes.values()];
    const front0 = await replica(F, nodes, "front-0");
    const front1 = await replica(F, nodes, "front-1");
    const back0 = await replica(B, nodes, "back-0");
    const client = await replica("client", [], "client-0");
    const call = async (to: string, data: unknown) => {
      const r = await client.transport.send({ edgeId: "", from: "signal", to, data, depth: 0 });
      if (r.kind !== "ok") throw new Error(`${to} answered ${JSON.stringify(r)}`);
      return JSON.parse(new TextDecoder().decode(r.value as Uint8Array)) as Record<string, any>;
    };

    // On JetStream the run's first hop returns once stored: the answer comes before s1 (held 300 ms) ran.
    const started = await call(`${names.door}:in`, { context: { trail: [] } });
    expect(started.context).toEqual({ trail: [] });
    const runId = started.runID as string;
    expect(runId).toMatch(/^[0-9a-f-]{36}$/);
    const early = await call(`${names.status}:request`, { runID: runId });
    expect(early).toMatchObject({ runID: runId, found: true, complete: false, failed: false });
    expect(early.pendingSteps).toBeGreaterThanOrEqual(1);

    const deadline = Date.now() + 20_000;
    let seen = early;
    while (!seen.complete && Date.now() < deadline) {
      await Bun.sleep(50);
      seen = await call(`${names.status}:request`, { context: "poll", runID: runId });
    }
    expect(seen).toMatchObject({ context: "poll", runID: runId, found: true, complete: true, failed: false, pendingSteps: 0 });
    expect(seen.steps.map((s: { node: string }) => s.node).sort()).toEqual([names.door, names.s1, names.s2].sort());

    // Every replica that took part stops; a new replica of F answers from the broker's ledger.
    await Promise.all([front0.close(), front1.close(), back0.close()]);
    const front2 = await replica(F, nodes, "front-2");
    const after = await call(`${names.status}:request`, { runID: runId });
    expect(after).toEqual({ ...seen, context: undefined, steps: seen.steps });
    expect(await call(`${names.status}:request`, { runID: "no-such-run" })).toEqual({
      runID: "no-such-run",
      found: false,
      complete: false,
      failed: false,
      pendingSteps: 0,
    });
    await front2.close();
    await client.close();
  }, 90_000);
});
