/**
 * JetStream hops resume promptly after a broker outage: nats-server stopped for ~8 s and started
 * again on the same port and store, the receiver's pull loop takes the hops waiting in the stream
 * soon after its connection is back — whatever the loop was doing when the broker went away (a
 * pull just sent, half-way, about to expire). Measures reconnect → first hop handled and prints it.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { NatsConnection } from "@nats-io/transport-node";
import { empty } from "../../src/core/result.ts";
import { connectNats } from "../../src/transport/nats/connect.ts";
import { JetStreamTransport } from "../../src/transport/nats/jetstream.ts";
import { mintRun } from "../../src/core/durable/run.ts";
import { PULL_EXPIRES_MS } from "../../src/transport/nats/supervisor.ts";
import type { Msg } from "../../src/core/hop.ts";
import { startNats, type NatsServer } from "../support/nats.ts";
import { until } from "../support/until.ts";

/** Outage length: longer than a pull's expiry and several reconnect attempts (production wait: 2 s). */
const OUTAGE_MS = 8_000;
/**
 * Reconnect → first hop bound. The loop's own target is well under a second; the bound leaves room
 * for a loaded 2-core machine (JetStream recovering its store, the handler's event loop busy).
 */
const RESUME_BOUND_MS = 3_000;

let srv: NatsServer;
const conns: NatsConnection[] = [];
const closers: Array<() => Promise<void>> = [];

beforeAll(async () => {
  srv = await startNats();
});

afterAll(async () => {
  for (const c of closers) await c().catch(() => undefined);
  await Promise.allSettled(conns.map((c) => c.close()));
  await srv.dispose();
});

describe("JetStream hops after a broker outage", () => {
  test(`resume within ${RESUME_BOUND_MS} ms of the reconnect, wherever the pull loop was`, async () => {
    const module = "reconnect-mod";
    // The receiver connects as production does (reconnect wait 2 s, supervisor defaults).
    const rnc = await connectNats(srv.url);
    conns.push(rnc);
    const receiver = await JetStreamTransport.create({ nc: rnc, module, pod: "pod-r" });
    closers.push(() => receiver.close(200));
    const handled: number[] = [];
    await receiver.serve({ handler: async () => (handled.push(performance.now()), empty) });
    const reconnects: number[] = [];
    void (async () => {
      for await (const s of rnc.status()) if (s.type === "reconnect") reconnects.push(performance.now());
    })();

    // The sender keeps publishing durable hops (stored, fire-and-forget) every 50 ms through the outage;
    // it reconnects faster than the receiver, so hops usually wait in the stream when the receiver is
    // back (otherwise the figure also holds the sender's publish: an upper bound).
    const snc = await connectNats(srv.url, { reconnectTimeWaitMs: 100 });
    conns.push(snc);
    const sender = await JetStreamTransport.create({ nc: snc, module: "reconnect-sender" });
    let sending = true;
    const run = mintRun();
    const sendLoop = (async () => {
      for (let i = 0; sending; i++) {
        const msg: Msg = { edgeId: "e", from: "h.src.x-1:out", to: `h.${module}.y:in`, data: { i }, depth: 1, runId: run.runId, stepKey: `${run.runId}.${i}` };
        // Not awaited: a publish lost with the broker waits out its own timeout, the next ones go on.
        void sender.send(msg);
        await Bun.sleep(50);
      }
    })();

    const figures: string[] = [];
    try {
      await until("hops before the outage", () => handled.length >= 5, 20_000);
      // Outages starting at different points of the receiver's pull cycle: graceful stops (the
      // server ends the pull with "server shutdown") and a crash (the pull is left open).
      const outages: Array<{ offset: number; how: "stop" | "kill" }> = [
        { offset: 0, how: "stop" },
        { offset: Math.round(PULL_EXPIRES_MS * 0.4), how: "stop" },
        { offset: Math.round(PULL_EXPIRES_MS * 0.9), how: "stop" },
        { offset: Math.round(PULL_EXPIRES_MS * 0.5), how: "kill" },
      ];
      for (const { offset, how } of outages) {
        const lastBefore = handled.at(-1)!;
        await until("a hop to time the outage from", () => handled.at(-1)! > lastBefore, 10_000);
        await Bun.sleep(offset);
        const reconnectsBefore = reconnects.length;
        await (how === "kill" ? srv.kill() : srv.stop());
        const down = performance.now();
        await Bun.sleep(OUTAGE_MS);
        await srv.restart();
        const up = performance.now();
        await until("the receiver to reconnect", () => reconnects.length > reconnectsBefore, 30_000);
        const reconnectAt = reconnects.at(-1)!;
        await until("a hop after the reconnect", () => handled.some((t) => t > reconnectAt), 30_000);
        const firstHop = handled.find((t) => t > reconnectAt)!;
        const resumeMs = Math.round(firstHop - reconnectAt);
        figures.push(
          `${how} at ${offset} ms into a pull: down ${Math.round(up - down)} ms, server up → reconnect ${Math.round(reconnectAt - up)} ms, reconnect → first hop ${resumeMs} ms`,
        );
        expect(resumeMs).toBeLessThan(RESUME_BOUND_MS);
      }
    } finally {
      console.error(`[jetstream reconnect] ${figures.join("; ")}`);
      sending = false;
      await sendLoop;
    }
  }, 180_000);
});
