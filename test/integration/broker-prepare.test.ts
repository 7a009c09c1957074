/**
 * The consumer outlives the pods (issue 36 item 1), against a real nats-server: `pre-install
 * --broker-only --nats-url` creates both streams and the business consumer `<module>` with the
 * module's own config and no inactivity threshold; a durable hop published while no replica runs
 * waits in it, and the broker's `/jsz` — the query KEDA's nats-jetstream scaler sends — reports it as
 * the consumer's lag; the first module that starts verifies the consumer (changes nothing) and handles
 * the hop; a drifted consumer (an inactivity threshold set by someone else) is put right; an
 * unreachable broker fails the hook with the redacted URL. And (item 5d) a core NATS request to a
 * module with no replica is refused at once with "no responders", not left to time out.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { jetstreamManager, type JetStreamManager } from "@nats-io/jetstream";
import { nanos, type NatsConnection } from "@nats-io/transport-node";
import { preInstallCommand } from "../../src/cli/commands/pre-install.ts";
import { BrokerPrepareError, prepareBroker } from "../../src/provision/hooks/broker-prepare.ts";
import { connectNats } from "../../src/transport/nats/connect.ts";
import { CoreNatsTransport } from "../../src/transport/nats/core.ts";
import { JetStreamTransport } from "../../src/transport/nats/jetstream.ts";
import { ACK_WAIT_MS, businessConsumerConfig, ensureConsumer, MAX_DELIVER } from "../../src/transport/nats/streams.ts";
import { EDGE_STREAM, SYSMSG_STREAM } from "../../src/transport/nats/names.ts";
import { empty, type Result } from "../../src/core/result.ts";
import type { Msg } from "../../src/core/hop.ts";
import { startNats, type NatsServer } from "../support/nats.ts";
import { until } from "../support/until.ts";

let srv: NatsServer;
let nc: NatsConnection;
let jsm: JetStreamManager;

beforeAll(async () => {
  srv = await startNats();
  nc = await connectNats(srv.url, { reconnectTimeWaitMs: 100 });
  jsm = await jetstreamManager(nc);
});

afterAll(async () => {
  await nc?.drain();
  await srv?.dispose();
});

/** What KEDA's nats-jetstream scaler (v2.21.0) asks the monitoring endpoint for, and how it reads the lag. */
async function kedaLag(stream: string, consumer: string): Promise<number | undefined> {
  const res = await fetch(`http://127.0.0.1:${srv.monitorPort}/jsz?acc=%24G&consumers=true&config=true`);
  const body = (await res.json()) as {
    account_details?: {
      name: string;
      stream_detail?: { name: string; consumer_detail?: { name: string; num_pending: number; num_ack_pending: number }[] }[];
    }[];
  };
  const c = body.account_details
    ?.find((a) => a.name === "$G")
    ?.stream_detail?.find((s) => s.name === stream)
    ?.consumer_detail?.find((x) => x.name === consumer);
  return c === undefined ? undefined : c.num_pending + c.num_ack_pending;
}

async function runHook(...args: string[]): Promise<number> {
  return preInstallCommand.run(args);
}

describe("pre-install prepares the broker before the first pod", () => {
  test("streams and consumer <module> exist with the module's config and no inactivity threshold", async () => {
    expect(await runHook("--broker-only", "--nats-url", srv.url, "--name", "Shop")).toBe(0);
    expect((await jsm.streams.info(EDGE_STREAM)).config.subjects).toEqual(["tinymodule.*.msg"]);
    expect((await jsm.streams.info(SYSMSG_STREAM)).config.name).toBe(SYSMSG_STREAM);
    const c = (await jsm.consumers.info(EDGE_STREAM, "shop")).config;
    expect(c.filter_subject).toBe("tinymodule.shop.msg");
    expect(c.ack_wait).toBe(nanos(ACK_WAIT_MS));
    expect(c.max_deliver).toBe(MAX_DELIVER);
    expect(c.inactive_threshold ?? 0).toBe(0);
    // A second run (the chart's pre-upgrade) finds it as it should be.
    expect((await prepareBroker(srv.url, "Shop")).outcome).toBe("verified");
  });

  test("a hop published at zero replicas waits in the consumer, KEDA's /jsz query sees it, and the first module handles it", async () => {
    await prepareBroker(srv.url, "cold");
    expect(await kedaLag(EDGE_STREAM, "cold")).toBe(0);
    // A durable hop from another module, by the real sender (JetStream publish with the run headers).
    const sender = await JetStreamTransport.create({ nc, module: "other" });
    const sent = await sender.send({ edgeId: "e1", from: "f.other.y-1:out", to: "f.cold.x-1:in", data: {}, depth: 1, runId: "run-1" });
    expect(sent.kind).not.toBe("fail");
    // What KEDA activates on: lag 1 > activationLagThreshold 0.
    await until("the lag reaches /jsz", async () => (await kedaLag(EDGE_STREAM, "cold")) === 1, 10_000);
    // The module starts: its consumer check is a verification, and the waiting hop reaches it.
    expect(await ensureConsumer(jsm, EDGE_STREAM, businessConsumerConfig("cold"))).toBe("verified");
    const seen: Msg[] = [];
    const t = await JetStreamTransport.create({ nc: await connectNats(srv.url), module: "cold", pod: "pod-a", healthCheckMs: 300 });
    try {
      await t.serve({
        handler: async (msg): Promise<Result> => {
          seen.push(msg);
          return empty;
        },
      });
      await until("the waiting hop is handled", () => seen.length >= 1, 10_000);
      await until("the lag is back to 0", async () => (await kedaLag(EDGE_STREAM, "cold")) === 0, 10_000);
      expect(seen[0]!.to).toBe("f.cold.x-1:in");
      expect(seen[0]!.runId).toBe("run-1");
    } finally {
      await t.close(200);
      await t.nc.close();
    }
    // The pod is gone; the consumer stays for the next one.
    expect((await jsm.consumers.info(EDGE_STREAM, "cold")).name).toBe("cold");
  });

  test("an inactivity threshold someone set is cleared (updated), so the consumer cannot expire at zero replicas", async () => {
    await prepareBroker(srv.url, "drift");
    await jsm.consumers.update(EDGE_STREAM, "drift", { inactive_threshold: nanos(60_000) });
    expect((await jsm.consumers.info(EDGE_STREAM, "drift")).config.inactive_threshold).toBe(nanos(60_000));
    expect((await prepareBroker(srv.url, "drift")).outcome).toBe("updated");
    expect((await jsm.consumers.info(EDGE_STREAM, "drift")).config.inactive_threshold ?? 0).toBe(0);
  });

  test("an unreachable broker fails the hook after its deadline, naming the redacted URL and the consumer", async () => {
    const dead = `nats://secret-token@127.0.0.1:${srv.port + 7}`;
    const err = await prepareBroker(dead, "shop", { timeoutMs: 300, retryMs: 100 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(BrokerPrepareError);
    expect((err as Error).message).toContain('consumer "shop" on nats://***@127.0.0.1:');
    expect((err as Error).message).not.toContain("secret-token");
  });
});

describe("core NATS at zero replicas", () => {
  test("on a core NATS broker, a request to a module with no replica fails at once with no responders, not a hang", async () => {
    const plain = await startNats({ jetstream: false });
    const pc = await connectNats(plain.url);
    try {
      const t = new CoreNatsTransport({ nc: pc, module: "caller", requestTimeoutMs: 60_000 });
      const t0 = performance.now();
      const r = await t.send({ edgeId: "e", from: "f.caller.a-1:out", to: "f.nobody.b-1:in", data: {}, depth: 1 });
      expect(r.kind === "fail" && (r.error as { code?: string }).code).toBe("NO_RESPONDERS");
      expect(r.kind === "fail" && r.error.message).toContain("no responders (no module serves this subject)");
      // Not the 60 s request timeout: the broker answered 503 at once (a generous bound for a busy machine).
      expect(performance.now() - t0).toBeLessThan(30_000);
    } finally {
      await pc.close();
      await plain.dispose();
    }
  });

  test("on a broker holding module-edges, a core request is stored for the module and fails at once with TRANSPORT_MISMATCH: scale-to-zero needs the JetStream transport", async () => {
    await prepareBroker(srv.url, "zero");
    const t = new CoreNatsTransport({ nc, module: "caller", requestTimeoutMs: 60_000 });
    const r = await t.send({ edgeId: "e", from: "f.caller.a-1:out", to: "f.zero.b-1:in", data: {}, depth: 1 });
    expect(r.kind === "fail" && (r.error as { code?: string }).code).toBe("TRANSPORT_MISMATCH");
    expect(r.kind === "fail" && r.error.message).toContain("run this module with TINY_NATS_TRANSPORT=jetstream too");
  });
});
