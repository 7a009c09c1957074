/**
 * Durations past JavaScript's 32-bit timer limit (2^31−1 ms ≈ 24.8 days) behave as configured,
 * end to end through the components and the runner on the real timers: a 30-day wait has not
 * ended a moment later, and a 30-day bound does not cut short a short hop. (Go's `time.Sleep` and
 * context deadlines take these values as given.) That each such wait then ends on time is proved
 * in virtual time by test/unit/sdk/timer.test.ts.
 */
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { fail, ok, retryable, testComponent } from "tinyhost";
import delay from "../../components/delay.ts";
import httpRequest from "../../components/http_request.ts";
import jsEval, { DEFAULT_SETTINGS } from "../../components/js_eval.ts";
import ticker from "../../components/ticker.ts";
import { Scheduler } from "../../src/runtime/scheduler/index.ts";
import type { Msg, Transport } from "../../src/core/hop.ts";
import { FakeCluster, waitFor } from "./components/leader-pods.ts";
import { makeNode, MODULE, nodeName, relay } from "../support/fake-components.ts";

process.env.TINYHOST_LOG_LEVEL ??= "silent";

const DAY = 86_400_000;
/** How long each test watches for a wait that ended too early, ms (a clamped timer fires after 1 ms). */
const WATCH_MS = 300;

const open: Array<{ stop(): Promise<void> | void }> = [];
afterEach(async () => {
  for (const h of open.splice(0)) await h.stop();
});

describe("components", () => {
  test("delay of 30 days has not passed the message on a moment later", async () => {
    const h = await testComponent(delay);
    open.push(h);
    const out: unknown[] = [];
    h.respond("out", (d) => (out.push(d), ok(null)));
    const ctl = new AbortController();
    const r = h.send("in", { context: "late", delay: 30 * DAY }, ctl.signal);
    await Bun.sleep(WATCH_MS);
    expect(out).toEqual([]);
    ctl.abort();
    expect((await r).kind).toBe("fail");
  });

  test("ticker with a 30-day delay ticks once (at start), not thousands of times", async () => {
    const c = new FakeCluster(ticker, { context: "t", delay: 30 * DAY });
    open.push({ stop: () => c.shutdown() });
    const pod = c.newPod({ leader: true });
    await pod.reconcile();
    await pod.send("_control", { start: true });
    await waitFor("first tick", () => pod.on("out").length >= 1);
    await Bun.sleep(WATCH_MS);
    expect(pod.on("out").length).toBe(1);
  });

  test("js_eval with timeoutSeconds of 25 days (past 2^31−1 ms) runs a 30 ms script to its result", async () => {
    const h = await testComponent(jsEval, {
      settings: {
        ...DEFAULT_SETTINGS,
        modules: [],
        timeoutSeconds: 25 * 86_400,
        script: { name: "main.js", content: "export default async function (x) { const t = Date.now(); while (Date.now() - t < 30) {} return { ok: x.n } }" },
      },
    });
    open.push(h);
    h.respond("response", (d) => ok(d));
    const r = await h.send("request", { inputData: { n: 1 } });
    expect(r.kind).toBe("ok");
    expect(JSON.stringify(r)).toContain('"ok":1');
  });
});

describe("http_request timeout", () => {
  let server: ReturnType<typeof Bun.serve>;
  beforeAll(() => {
    server = Bun.serve({ port: 0, fetch: async () => (await Bun.sleep(50), new Response("fine")) });
  });
  afterAll(() => void server.stop(true));

  for (const seconds of [30 * 86_400, 1e17]) {
    test(`a timeout of ${seconds} s lets a 50 ms request finish (AbortSignal.timeout throws above 2^53−1 ms)`, async () => {
      const h = await testComponent(httpRequest);
      open.push(h);
      h.respond("response", (d) => ok(d));
      const r = await h.send("request", {
        context: null,
        method: "GET",
        timeout: seconds,
        url: `http://127.0.0.1:${server.port}/`,
        contentType: "text/plain",
        headers: [],
        body: "",
      });
      expect(r.kind).toBe("ok");
      expect(JSON.stringify(r)).toContain("fine");
    });
  }
});

describe("edge retryPolicy (runtime-spec §2.5)", () => {
  const REMOTE = "h.othermod.sink-1:in";

  async function schedulerWith(t: Transport, retryPolicy: Record<string, number>): Promise<Scheduler> {
    const s = new Scheduler({ module: MODULE, debounceMs: 10, readyTimeoutMs: 50, remote: t });
    s.install(relay);
    const node = makeNode("a", "relay", { edges: [{ port: "out", to: "x:in", retryPolicy }] });
    node.spec.edges![0]!.to = REMOTE;
    await s.update(node);
    return s;
  }
  const hop = (s: Scheduler, signal?: AbortSignal) =>
    s.handle({ edgeId: "", from: "signal", to: `${nodeName("a")}:in`, data: { context: 1 }, depth: 0 }, signal);

  test("timeoutMs of 30 days lets a 300 ms hop finish (no EDGE_TIMEOUT after a few ms)", async () => {
    const slow: Transport = { send: async () => (await Bun.sleep(WATCH_MS), ok("done")) };
    const s = await schedulerWith(slow, { maxAttempts: 1, timeoutMs: 30 * DAY });
    const r = await hop(s);
    expect(r).toEqual({ kind: "ok", value: "done" });
  });

  test("a backoff of 30 days does not retry at once", async () => {
    const sent: Msg[] = [];
    const failing: Transport = { send: async (m) => (sent.push(m), fail(retryable(new Error("down")))) };
    const s = await schedulerWith(failing, { maxAttempts: 3, initialDelayMs: 30 * DAY, maxDelayMs: 60 * DAY });
    const ctl = new AbortController();
    const r = hop(s, ctl.signal);
    await waitFor("first attempt", () => sent.length >= 1);
    await Bun.sleep(WATCH_MS);
    expect(sent.length).toBe(1);
    ctl.abort();
    expect((await r).kind).toBe("fail");
  });
});
