/**
 * Bounded concurrency and backpressure of the NATS receivers (issue 21 item 4) against a real
 * nats-server: a receiver process (test/fixtures/nats/burst-receiver.ts) with hop slots of
 * {@link LIMIT} gets a burst of 10× that many hops, each holding {@link ALLOC_BYTES} while it runs.
 * - JetStream: the consumer never has more messages out than slots (num_ack_pending ≤ limit), every
 *   hop is handled exactly once, none is lost.
 * - Core NATS: beyond the slots and the bounded queue a hop is refused with the retryable `BUSY`;
 *   the sender re-sends those until each hop is handled — each exactly once, none lost.
 * In both, no more than the limit run at once, and the receiver's RSS grows by far less than the
 * burst would need unbounded (RSS read after a full GC: live memory, not garbage not yet
 * collected). The RSS figures are printed.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { jetstream, jetstreamManager } from "@nats-io/jetstream";
import { headers, type NatsConnection } from "@nats-io/transport-node";
import { shouldRetry, errorCode } from "../../src/core/errors.ts";
import type { Result } from "../../src/core/result.ts";
import { connectNats } from "../../src/transport/nats/connect.ts";
import { CoreNatsTransport } from "../../src/transport/nats/core.ts";
import { startNats, type NatsServer } from "../support/nats.ts";

const LIMIT = 20;
const BURST = LIMIT * 10;
const HOLD_MS = 300;
const ALLOC_BYTES = 1 << 20;
const MiB = (n: number) => `${(n / 2 ** 20).toFixed(1)} MiB`;

let srv: NatsServer;
/** Core NATS runs on a server without JetStream: `module-edges` would capture its subjects. */
let coreSrv: NatsServer;
let nc: NatsConnection;
let coreNc: NatsConnection;
const children: { kill(sig?: number | NodeJS.Signals): void; exited: Promise<number> }[] = [];

interface Probe {
  rss: number;
  running: number;
  maxRunning: number;
  handled: Record<string, number>;
  taken: number;
  queued: number;
  busy: number;
}

beforeAll(async () => {
  [srv, coreSrv] = await Promise.all([startNats(), startNats({ jetstream: false })]);
  [nc, coreNc] = await Promise.all([connectNats(srv.url), connectNats(coreSrv.url)]);
});

afterAll(async () => {
  for (const c of children) {
    c.kill("SIGTERM");
    await c.exited;
  }
  await Promise.all([nc?.close(), coreNc?.close()]);
  await Promise.all([srv?.dispose(), coreSrv?.dispose()]);
});

async function receiver(module: string, kind: "core" | "jetstream"): Promise<() => Promise<Probe>> {
  const conn = kind === "core" ? coreNc : nc;
  const child = Bun.spawn(
    [
      process.execPath,
      "--smol",
      "test/fixtures/nats/burst-receiver.ts",
      (kind === "core" ? coreSrv : srv).url,
      module,
      kind,
      String(LIMIT),
      String(HOLD_MS),
      String(ALLOC_BYTES),
    ],
    {
      stdout: "pipe",
      stderr: "inherit",
      env: { ...process.env, TINYHOST_LOG_LEVEL: "error" },
    },
  );
  children.push(child);
  const first = await child.stdout.getReader().read();
  expect(new TextDecoder().decode(first.value)).toContain("ready");
  return async () => JSON.parse(new TextDecoder().decode((await conn.request(`probe.${module}`, "", { timeout: 5000 })).data)) as Probe;
}

/** Samples the receiver until `done` resolves; returns the peak RSS seen. */
async function peakWhile(probe: () => Promise<Probe>, done: Promise<unknown>, extra?: () => Promise<void>): Promise<number> {
  let finished = false;
  void done.finally(() => (finished = true));
  let peak = 0;
  while (!finished) {
    peak = Math.max(peak, (await probe()).rss);
    await extra?.();
    await Bun.sleep(50);
  }
  return Math.max(peak, (await probe()).rss);
}

describe("hop backpressure (a burst of 10× the concurrency limit)", () => {
  test("JetStream pulls no more than it can start: every hop handled once, RSS bounded", async () => {
    const mod = "burst-js";
    const probe = await receiver(mod, "jetstream");
    const before = (await probe()).rss;
    const js = jetstream(nc);
    const jsm = await jetstreamManager(nc);
    let maxAckPending = 0;
    const publishes: Promise<unknown>[] = [];
    for (let i = 0; i < BURST; i++) {
      const h = headers();
      h.set("x-to", `h.${mod}.n-1:in`);
      publishes.push(js.publish(`tinymodule.${mod}.msg`, JSON.stringify({ i }), { headers: h }));
    }
    await Promise.all(publishes);
    const all = (async () => {
      for (;;) {
        const p = await probe();
        if (Object.keys(p.handled).length === BURST) return;
        await Bun.sleep(100);
      }
    })();
    const peak = await peakWhile(probe, all, async () => {
      maxAckPending = Math.max(maxAckPending, (await jsm.consumers.info("module-edges", mod)).num_ack_pending);
    });
    await Bun.sleep(1000);
    const end = await probe();
    const counts = Object.values(end.handled);
    expect({ handled: counts.length, onceEach: counts.every((c) => c === 1) }).toEqual({ handled: BURST, onceEach: true });
    expect(end.maxRunning).toBeLessThanOrEqual(LIMIT);
    // The server's count lags by the acks it has not applied yet: nats-server queues acks and pull
    // requests separately, so a pull sent right after an ack can be served before that ack is
    // counted (seen: 21 with a limit of 20 on a quiet machine, 25 at load 15). The receiver never
    // runs more than LIMIT (above); a prefetching consumer (nats.js consume(), 100) would show ≥ 100 here.
    expect(maxAckPending).toBeLessThanOrEqual(LIMIT * 1.5);
    const info = await jsm.streams.info("module-edges", { subjects_filter: `tinymodule.${mod}.msg` });
    expect(info.state.subjects?.[`tinymodule.${mod}.msg`] ?? 0).toBe(0);
    expect(peak - before).toBeLessThan((BURST * ALLOC_BYTES) / 4); // unbounded (limit = burst) measured +100 MiB here
    console.log(
      `[hop-backpressure] jetstream: limit ${LIMIT}, burst ${BURST} × ${MiB(ALLOC_BYTES)}: RSS before ${MiB(before)}, peak during ${MiB(peak)}, after ${MiB(end.rss)}; max running ${end.maxRunning}, max ack pending ${maxAckPending}`,
    );
  }, 60_000);

  test("core NATS: hops beyond the limit and the queue are refused with the retryable BUSY, re-sent, each handled once, RSS bounded", async () => {
    const mod = "burst-core";
    const probe = await receiver(mod, "core");
    const before = (await probe()).rss;
    const client = new CoreNatsTransport({ nc: coreNc, module: "burst-client", requestTimeoutMs: 30_000 });
    let refused = 0;
    const other: string[] = [];
    const sendUntilHandled = async (i: number): Promise<Result> => {
      for (;;) {
        const r = await client.send({ edgeId: "", from: "", to: `h.${mod}.n-1:in`, data: { i }, depth: 0 });
        if (r.kind !== "fail") return r;
        if (errorCode(r.error) !== "BUSY" || !shouldRetry(r.error)) {
          other.push(r.error.message);
          return r;
        }
        refused++;
        await Bun.sleep(100 + Math.random() * 200);
      }
    };
    const all = Promise.all(Array.from({ length: BURST }, (_, i) => sendUntilHandled(i)));
    const peak = await peakWhile(probe, all);
    const results = await all;
    await Bun.sleep(1000);
    const end = await probe();
    expect(other).toEqual([]);
    expect(results.every((r) => r.kind === "ok")).toBe(true);
    const counts = Object.values(end.handled);
    expect({ handled: counts.length, onceEach: counts.every((c) => c === 1) }).toEqual({ handled: BURST, onceEach: true });
    expect(refused).toBeGreaterThan(0); // the burst did meet the bound
    expect(end.busy).toBe(refused);
    expect(end.maxRunning).toBeLessThanOrEqual(LIMIT);
    expect(peak - before).toBeLessThan((BURST * ALLOC_BYTES) / 4); // unbounded (limit = burst) measured +100 MiB here
    console.log(
      `[hop-backpressure] core: limit ${LIMIT} (+ queue ${LIMIT}), burst ${BURST} × ${MiB(ALLOC_BYTES)}: RSS before ${MiB(before)}, peak during ${MiB(peak)}, after ${MiB(end.rss)}; max running ${end.maxRunning}, BUSY refusals re-sent ${refused}`,
    );
  }, 60_000);
});
