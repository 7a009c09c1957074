/**
 * A message over the server's `max_payload` at every place one can occur on NATS — a core request
 * and its reply (nats-core.test.ts), a JetStream classic hop and its reply, a durable hop, a durable
 * run's reply hop, an agent-tool call and its answer, `tinyhost send`, and the run ledger's KV
 * writes — fails promptly with a coded `PAYLOAD_TOO_LARGE` naming both sizes, never a timeout. One
 * nats-server with a small max_payload.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { NatsConnection } from "@nats-io/transport-node";
import { errorCode, shouldRetry, TinyError } from "../../src/core/errors.ts";
import { empty, fail, ok, type Result } from "../../src/core/result.ts";
import { connectNats } from "../../src/transport/nats/connect.ts";
import { JetStreamTransport, type JetStreamTransportOptions } from "../../src/transport/nats/jetstream.ts";
import { RunLedger } from "../../src/runtime/durable/run-ledger.ts";
import { publishRpc } from "../../src/transport/nats/rpc.ts";
import { publishToNode } from "../../src/transport/nats/publish.ts";
import { PayloadTooLargeError } from "../../src/transport/nats/errors.ts";
import { DurableSteps } from "../../src/runtime/durable/steps.ts";
import { mintRun } from "../../src/core/durable/run.ts";
import type { Msg } from "../../src/core/hop.ts";
import { startNats, type NatsServer } from "../support/nats.ts";

const MAX = 8192;
/** Far below every wait in these paths (request 60 s, run reply 60 s): a failure this fast is not a timeout. */
const PROMPT_MS = 5_000;
const SIZE_TEXT = new RegExp(`message is \\d+ bytes, server max_payload is ${MAX} bytes`);

let srv: NatsServer;
const conns: NatsConnection[] = [];
const closers: Array<() => Promise<void>> = [];

async function conn(): Promise<NatsConnection> {
  const nc = await connectNats(srv.url, { reconnectTimeWaitMs: 100 });
  conns.push(nc);
  return nc;
}

async function transport(module: string, o: Partial<JetStreamTransportOptions> = {}): Promise<JetStreamTransport> {
  const t = await JetStreamTransport.create({ nc: await conn(), module, pod: `pod-${module}`, ackWaitMs: 2000, requestTimeoutMs: 60_000, ...o });
  closers.push(() => t.close(200));
  return t;
}

let seq = 0;
const modName = (p: string) => `${p}-${++seq}`;
const hop = (to: string, data: unknown, extra: Partial<Msg> = {}): Msg => ({ edgeId: "e1", from: "h1.src.x-1:out", to, data, depth: 1, ...extra });
const big = () => ({ blob: "x".repeat(MAX * 2) });

/** Runs `f`, asserting it resolves within {@link PROMPT_MS} to a PAYLOAD_TOO_LARGE failure naming both sizes. */
async function expectTooLarge(f: () => Promise<Result>): Promise<Error> {
  const t0 = performance.now();
  const r = await f();
  const ms = performance.now() - t0;
  if (r.kind !== "fail") throw new Error(`expected a failure, got ${r.kind}`);
  const code = errorCode(r.error) ?? (r.error instanceof TinyError ? r.error.code : undefined);
  expect(code).toBe("PAYLOAD_TOO_LARGE");
  expect(r.error.message).toMatch(SIZE_TEXT);
  expect(ms).toBeLessThan(PROMPT_MS);
  return r.error;
}

beforeAll(async () => {
  srv = await startNats({ maxPayload: MAX });
});

afterAll(async () => {
  for (const c of closers) await c().catch(() => undefined);
  await Promise.allSettled(conns.map((c) => c.close()));
  await srv.dispose();
});

describe("JetStream hops over max_payload", () => {
  test("a classic hop is refused before it is published", async () => {
    const mod = modName("classic-out");
    const seen: Msg[] = [];
    await (await transport(mod)).serve({ handler: async (m) => (seen.push(m), empty) });
    const client = await transport(modName("client"));
    const err = await expectTooLarge(() => client.send(hop(`h.${mod}.y:in`, big())));
    expect(err).toBeInstanceOf(PayloadTooLargeError);
    expect(err.message).toContain(`tinymodule.${mod}.msg`);
    await Bun.sleep(300);
    expect(seen).toHaveLength(0);
  });

  test("a classic hop's reply over the limit reaches the caller as a coded error", async () => {
    const mod = modName("classic-back");
    await (await transport(mod)).serve({ handler: async () => ok(big()) });
    const client = await transport(modName("client"));
    await expectTooLarge(() => client.send(hop(`h.${mod}.y:in`, {})));
  });

  test("a durable hop is refused before it is published", async () => {
    const mod = modName("durable-out");
    const client = await transport(modName("client"));
    const run = mintRun();
    const err = await expectTooLarge(() => client.send(hop(`h.${mod}.y:in`, big(), { runId: run.runId, stepKey: run.stepKey })));
    expect(err.message).toContain(`tinymodule.${mod}.msg`);
  });

  test("a durable run's reply hop over the limit fails the sending hop and the waiting caller at once", async () => {
    const origin = await transport(modName("origin"));
    const inbox = origin.openReply(60_000);
    await origin.nc.flush();
    const sender = await transport(modName("sender"));
    const run = mintRun({ replySubject: inbox.subject, replyTarget: "h.web.door-1:reply" });
    const reply = hop("h.web.door-1:reply", big(), { runId: run.runId, stepKey: "k", replySubject: inbox.subject, replyTarget: "h.web.door-1:reply" });
    await expectTooLarge(() => sender.send(reply));
    const caller = await expectTooLarge(() => inbox.reply);
    expect(caller.message).toContain(inbox.subject);
  });

  test("a durable run's reply hop within the limit still arrives as the raw body", async () => {
    const origin = await transport(modName("origin"));
    const inbox = origin.openReply(60_000);
    await origin.nc.flush();
    const sender = await transport(modName("sender"));
    const run = mintRun({ replySubject: inbox.subject, replyTarget: "h.web.door-1:reply" });
    expect(
      await sender.send(
        hop("h.web.door-1:reply", { fine: true }, { runId: run.runId, stepKey: "k", replySubject: inbox.subject, replyTarget: "h.web.door-1:reply" }),
      ),
    ).toBe(empty);
    const r = await inbox.reply;
    expect(r.kind === "ok" && new TextDecoder().decode(r.value as Uint8Array)).toBe('{"fine":true}');
  });
});

describe("agent-tool calls over max_payload", () => {
  test("a call over the limit is refused before it is published", async () => {
    const nc = await conn();
    const err = await expectTooLarge(() => publishRpc(nc, "some-module", "tool", new TextEncoder().encode(JSON.stringify(big())), 60_000));
    expect(err.message).toContain("tinymodule.some-module.msg");
  });

  test("a tool's answer over the limit reaches the caller as a coded error", async () => {
    const mod = modName("tool");
    await (await transport(mod)).serve({ handler: async () => ok(big()) });
    await expectTooLarge(async () => publishRpc(await conn(), mod, "tool", new TextEncoder().encode("{}"), 60_000));
  });
});

describe("sending into a flow (`tinyhost send`) over max_payload", () => {
  for (const transport of ["core", "jetstream"] as const) {
    test(`a ${transport} send over the limit is refused before it is published`, async () => {
      const nc = await conn();
      const err = await expectTooLarge(
        async () => (await publishToNode(nc, "h.some-module.node-1", "in", big(), { transport, wait: true, timeoutMs: 60_000 })).result,
      );
      expect(err.message).toContain("tinymodule.some-module.msg");
    });
  }
});

describe("the run ledger (KV TINY_EXEC) over max_payload", () => {
  test("a step record over the limit is refused with both sizes", async () => {
    const ledger = await RunLedger.open(await conn());
    const run = mintRun();
    const t0 = performance.now();
    const err = await ledger
      .putStep(run.runId, run.stepKey, { node: "n", status: "failed", error: "e".repeat(MAX * 2), completedAt: new Date().toISOString() })
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    expect(err).toBeInstanceOf(PayloadTooLargeError);
    expect((err as Error).message).toMatch(SIZE_TEXT);
    expect((err as Error).message).toContain(`KV TINY_EXEC key exec/${run.runId}/step/`);
    expect(performance.now() - t0).toBeLessThan(PROMPT_MS);
    expect(await ledger.hasStep(run.runId, run.stepKey)).toBe(false);
  });

  test("a durable step whose record does not fit fails with PAYLOAD_TOO_LARGE, not retryable (a re-run writes the same record)", async () => {
    const ledger = await RunLedger.open(await conn());
    const logged: unknown[] = [];
    const log = { debug: () => undefined, info: () => undefined, warn: (o: unknown) => void logged.push(o), error: () => undefined };
    const steps = new DurableSteps(ledger, log as never);
    const run = mintRun();
    let runs = 0;
    const msg = hop("h.m.n-1:in", {}, { runId: run.runId, stepKey: `${run.runId}/child-1` });
    const err = await expectTooLarge(async () => steps.run("h.m.n-1", msg, async () => (runs++, fail(new Error("e".repeat(MAX * 2))))));
    expect(shouldRetry(err)).toBe(false);
    expect(err.message).toContain("ledger record was not written");
    expect(runs).toBe(1);
    expect(steps.stats.recordFailures).toBe(1);
  });
});
