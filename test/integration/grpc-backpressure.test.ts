/**
 * Bounded concurrency and backpressure of the gRPC server (issue 21 item 4), on real processes: a
 * receiver module process (test/fixtures/grpc/burst-receiver.ts: the gRPC wire as `openTransport`
 * opens it, behind the hop gate) with `TINYHOST_MAX_CONCURRENT_HOPS` = {@link LIMIT} gets a burst
 * of 10× that many calls from tinyhost's gRPC client, each hop holding {@link ALLOC_BYTES} while it
 * runs. Beyond the slots and the bounded queue a call is refused with the retryable `BUSY`; the
 * sender re-sends exactly when the edge retry policy (src/runtime/runner/retry.ts, as the runner
 * applies it) says so — every hop is handled once, none lost, never more than the limit at once,
 * and the receiver's RSS grows by far less than the burst would need unbounded. The RSS figures
 * (after a full GC) are printed. On SIGTERM, calls still queued for a slot are refused with the
 * retryable `SHUTTING_DOWN` while the running ones finish.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { resolveRetryPolicy, backoffDelayMs, mayRetry } from "../../src/runtime/runner/retry.ts";
import { errorCode, shouldRetry } from "../../src/core/errors.ts";
import type { Result } from "../../src/core/result.ts";
import { GrpcTransport } from "../../src/transport/grpc/index.ts";
import type { Msg } from "../../src/core/hop.ts";
import { logger } from "../../src/telemetry/log.ts";

const LIMIT = 20;
const BURST = LIMIT * 10;
const HOLD_MS = 300;
const ALLOC_BYTES = 1 << 20;
const MiB = (n: number) => `${(n / 2 ** 20).toFixed(1)} MiB`;
const quiet = logger.child({ component: "test" });

interface Probe {
  rss: number;
  running: number;
  maxRunning: number;
  handled: Record<string, number>;
  limit: number;
  taken: number;
  queued: number;
  busy: number;
}

interface Receiver {
  port: number;
  probe(): Promise<Probe>;
  proc: ReturnType<typeof Bun.spawn>;
}

const children: Receiver["proc"][] = [];
afterAll(async () => {
  for (const c of children) {
    c.kill("SIGKILL");
    await c.exited;
  }
});

async function receiver(env: Record<string, string>, holdMs: number, allocBytes: number): Promise<Receiver> {
  const proc = Bun.spawn([process.execPath, "--smol", "test/fixtures/grpc/burst-receiver.ts", String(holdMs), String(allocBytes)], {
    stdout: "pipe",
    stderr: "inherit",
    env: { ...process.env, TINYHOST_LOG_LEVEL: "error", ...env },
  });
  children.push(proc);
  const first = await proc.stdout.getReader().read();
  const { port, probe } = JSON.parse(new TextDecoder().decode(first.value)) as { port: number; probe: number };
  return { port, proc, probe: async () => (await (await fetch(`http://127.0.0.1:${probe}/`)).json()) as Probe };
}

function client(port: number): GrpcTransport {
  const t = new GrpcTransport({ log: quiet });
  t.register("burst", `127.0.0.1:${port}`);
  return t;
}

const hop = (i: number): Msg => ({ edgeId: `e-${i}`, from: "", to: "h.burst.n-1:in", data: { i }, depth: 0 });

/** Samples the receiver until `done` settles; returns the peak RSS seen. */
async function peakWhile(probe: () => Promise<Probe>, done: Promise<unknown>): Promise<number> {
  let finished = false;
  void done.finally(() => (finished = true));
  let peak = 0;
  while (!finished) {
    peak = Math.max(peak, (await probe()).rss);
    await Bun.sleep(50);
  }
  return Math.max(peak, (await probe()).rss);
}

describe("gRPC hop backpressure (issue 21 item 4)", () => {
  test("a burst of 10× the limit: at most the limit run at once, the rest queue or get the retryable BUSY, the edge retry re-sends, each hop handled once, RSS bounded", async () => {
    const r = await receiver({ TINYHOST_MAX_CONCURRENT_HOPS: String(LIMIT) }, HOLD_MS, ALLOC_BYTES);
    const before = (await r.probe()).rss;
    const t = client(r.port);
    // The edge's retry policy; the loop is the edge send's (src/runtime/runner/edges.ts #retry): mayRetry, then backoff.
    const policy = resolveRetryPolicy({ maxAttempts: 60, initialDelayMs: 100, backoffCoefficient: "1.5", maxDelayMs: 800 });
    let refused = 0;
    const other: string[] = [];
    const sendWithRetry = async (i: number): Promise<Result> => {
      for (let attempt = 1; ; attempt++) {
        const res = await t.send(hop(i));
        if (res.kind !== "fail") return res;
        if (errorCode(res.error) === "BUSY" && shouldRetry(res.error)) refused++;
        else other.push(res.error.message);
        if (!mayRetry(policy, attempt, res.error)) return res;
        await Bun.sleep(backoffDelayMs(policy, attempt));
      }
    };
    const all = Promise.all(Array.from({ length: BURST }, (_, i) => sendWithRetry(i)));
    const peak = await peakWhile(r.probe, all);
    const results = await all;
    await Bun.sleep(500);
    const end = await r.probe();
    t.close();
    expect(other).toEqual([]);
    expect(results.filter((x) => x.kind !== "ok")).toEqual([]);
    const counts = Object.values(end.handled);
    expect({ handled: counts.length, onceEach: counts.every((c) => c === 1) }).toEqual({ handled: BURST, onceEach: true });
    expect(end.limit).toBe(LIMIT); // TINYHOST_MAX_CONCURRENT_HOPS reached the gRPC wire
    expect(refused).toBeGreaterThan(0); // the burst did meet the bound
    expect(end.busy).toBe(refused);
    expect(end.maxRunning).toBeLessThanOrEqual(LIMIT);
    expect({ taken: end.taken, queued: end.queued }).toEqual({ taken: 0, queued: 0 });
    expect(peak - before).toBeLessThan((BURST * ALLOC_BYTES) / 4);
    console.log(
      `[grpc-backpressure] limit ${LIMIT} (+ queue ${LIMIT}), burst ${BURST} × ${MiB(ALLOC_BYTES)}: RSS before ${MiB(before)}, peak during ${MiB(peak)}, after ${MiB(end.rss)}; max running ${end.maxRunning}, BUSY refusals re-sent ${refused}`,
    );
  }, 60_000);

  test("SIGTERM: calls queued for a slot are refused with the retryable SHUTTING_DOWN, the running ones finish", async () => {
    const r = await receiver({ TINYHOST_MAX_CONCURRENT_HOPS: "2", TINYHOST_HOP_QUEUE_WAIT_MS: "20000" }, 1500, 0);
    const t = client(r.port);
    const running = [t.send(hop(1)), t.send(hop(2))];
    await Bun.sleep(300);
    const queued = [t.send(hop(3)), t.send(hop(4))];
    for (;;) {
      const p = await r.probe();
      if (p.running === 2 && p.queued === 2) break;
      await Bun.sleep(20);
    }
    r.proc.kill("SIGTERM");
    const q = await Promise.all(queued);
    for (const x of q) {
      expect(x.kind).toBe("fail");
      if (x.kind === "fail") expect({ code: errorCode(x.error), retry: shouldRetry(x.error) }).toEqual({ code: "SHUTTING_DOWN", retry: true });
    }
    expect((await Promise.all(running)).map((x) => x.kind)).toEqual(["ok", "ok"]);
    expect(await r.proc.exited).toBe(0);
    t.close();
  }, 30_000);
});
