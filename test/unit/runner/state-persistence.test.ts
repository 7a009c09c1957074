/**
 * Issue 21 "no silent loss of state": what `await state.set` guarantees, failed status writes
 * retried (never dropped, bounded), a deleted node not retried, stop flushing first, a reloaded
 * component seeing what its predecessor wrote. Fake sinks stand in for the apiserver here; the real
 * servers are in test/integration/state-persistence.test.ts.
 */
import { describe, expect, test } from "bun:test";
import { defineComponent, Type, target, type Emitter, type State, type TinyNode } from "tinyhost";
import { Scheduler } from "../../../src/runtime/scheduler/index.ts";
import { MetadataState, STATE_OVERLAY_TTL_MS, type StatusSink } from "../../../src/runtime/runner/index.ts";
import { kubeStatusSink } from "../../../src/k8s/controllers/index.ts";
import { KubeApiError } from "../../../src/k8s/client/errors.ts";
import { makeNode, MODULE, nodeName } from "../../support/fake-components.ts";
import { until as poll } from "../../support/until.ts";

process.env.TINYHOST_LOG_LEVEL ??= "silent";

const dec = new TextDecoder();

/** This file's timeout and poll interval. */
const until = (what: string, cond: () => boolean, ms = 3000) => poll(what, cond, ms, 2);
const b64 = (text: string) => Buffer.from(text).toString("base64");

/** A component that keeps its state and emitter handles; `tag` tells two versions apart. */
function keeper(tag = "v1") {
  const kept: { state?: State; emit?: Emitter; read?: string | undefined } = {};
  const def = defineComponent({
    info: { name: "keeper", description: `Keeper ${tag}`, info: "" },
    ports: () => [target("in", Type.Any())],
    onState: (_c, state) => void (kept.state = state),
    onEmitter: (_c, emit) => void (kept.emit = emit),
    async onReconcile() {
      const v = await kept.state!.get("k");
      kept.read = v && dec.decode(v);
    },
    handle: () => {},
  });
  return { def, kept };
}

/** A sink over one live node that fails while `failing` is > 0 (counting down), blocks while `gate` is set, answers gone when `gone`. */
function apiserver(live: TinyNode) {
  const s = { failing: 0, gone: false, calls: 0, gate: undefined as Promise<void> | undefined };
  const sink: StatusSink = {
    async patchStatus(_name, mutate) {
      s.calls++;
      if (s.gate) await s.gate;
      if (s.gone) return "gone";
      if (s.failing > 0) {
        s.failing--;
        throw new Error("etcdserver: request timed out");
      }
      mutate(live);
    },
  };
  return Object.assign(s, { sink });
}

/** A logger that keeps error and warn lines. */
function captureLog() {
  const lines: { level: string; fields: Record<string, unknown>; msg: string }[] = [];
  const at =
    (level: string) =>
    (fields: Record<string, unknown>, msg = "") =>
      void lines.push({ level, fields, msg });
  const log = { error: at("error"), warn: at("warn"), info: at("info"), debug: at("debug"), trace: at("trace"), fatal: at("fatal"), child: () => log };
  return { log, lines };
}

async function start(o: { debounceMs?: number; retryMs?: number; log?: ReturnType<typeof captureLog>["log"] } = {}) {
  const live = makeNode("k", "keeper");
  const api = apiserver(live);
  const { def, kept } = keeper();
  const s = new Scheduler({
    module: MODULE,
    debounceMs: o.debounceMs ?? 5,
    statusRetry: { initialMs: o.retryMs ?? 10, maxMs: o.retryMs ?? 10 },
    statusSink: api.sink,
    ...(o.log ? { log: o.log as never } : {}),
  });
  s.install(def);
  await s.update(makeNode("k", "keeper"));
  return { s, live, api, kept, runner: s.runner(nodeName("k"))! };
}

const stored = (live: TinyNode, key: string) => {
  const v = live.status?.metadata?.[`_state/${key}`];
  return v === undefined ? undefined : Buffer.from(v, "base64").toString();
};

describe("await state.set (issue 21)", () => {
  test("resolves only once the status write carrying the value succeeded", async () => {
    const { s, live, api, kept } = await start();
    let release!: () => void;
    api.gate = new Promise<void>((r) => (release = r));
    let settled = false;
    const set = kept.state!.set("k", "one").then(() => (settled = true));
    expect(dec.decode(await kept.state!.get("k"))).toBe("one"); // readable at once
    await until("the write to start", () => api.calls === 1); // and block in the apiserver
    await Bun.sleep(10);
    expect(settled).toBe(false);
    expect(stored(live, "k")).toBeUndefined();
    api.gate = undefined;
    release();
    await set;
    expect(stored(live, "k")).toBe("one");
    await s.stopAll();
  });

  test("a write that keeps failing is retried, never dropped: the set waits, the status shows the failure, the retry writes it without another set", async () => {
    const { s, live, api, kept, runner } = await start({ retryMs: 20 });
    api.failing = 3;
    let settled = false;
    const set = kept.state!.set("k", "two").then(() => (settled = true));
    await until("the first write to fail", () => runner.pendingWrites.failures >= 1);
    expect(settled).toBe(false);
    const shown = s.readStatus(nodeName("k"))!;
    expect(shown.error).toBe(true);
    expect(shown.status).toMatch(
      new RegExp(
        `^node ${nodeName("k").replaceAll(".", "\\.")}: status write failed [123] times? in a row \\(etcdserver: request timed out\\); state not persisted yet: "k"; retrying in 20 ms$`,
      ),
    );
    expect(dec.decode(await kept.state!.get("k"))).toBe("two"); // still readable while not persisted
    await set; // 3 failures, then a retry succeeds — no new set
    expect(api.calls).toBe(4);
    await Bun.sleep(1);
    expect(stored(live, "k")).toBe("two");
    expect(runner.pendingWrites).toMatchObject({ failures: 0, stateKeys: 0, dirty: false });
    expect(s.readStatus(nodeName("k"))!).toMatchObject({ status: "OK", error: false });
    expect(live.status?.status).toBe("OK"); // the runner's own write never carried the failure text
    await s.stopAll();
  });

  test("_reconcile changes of failed writes are carried — bounded by the metadata keys — and written by the retry", async () => {
    const { s, live, api, kept, runner } = await start({ retryMs: 30 });
    api.failing = 2;
    for (let i = 1; i <= 1000; i++) {
      await kept.emit!("_reconcile", (n: TinyNode) => void ((n.status ??= {}).metadata = { ...n.status.metadata, port: String(i) }));
      if (i === 1) await Bun.sleep(15); // the first write runs (and fails) with update 1
    }
    expect(runner.pendingWrites.carried).toBeLessThanOrEqual(1); // one key, not 1,000 functions
    await until("the retry to write the last update", () => live.status?.metadata?.port === "1000");
    await Bun.sleep(1);
    expect(runner.pendingWrites).toMatchObject({ failures: 0, carried: 0, updaters: 0 });
    await s.stopAll();
  });

  test("a deleted node (the sink answers gone) is not retried; waiting and later sets reject", async () => {
    const { s, api, kept, runner } = await start();
    api.gone = true;
    const err = (await kept.state!.set("k", "x").catch((e: unknown) => e)) as { code: string; message: string };
    expect(err.message).toBe(`node ${nodeName("k")}: state key "k" not persisted: the node was deleted`);
    const calls = api.calls;
    const later = (await kept.state!.set("k", "y").catch((e: unknown) => e)) as { code: string };
    expect(later.code).toBe("STATE_WRITE_FAILED");
    await Bun.sleep(50);
    expect(api.calls).toBe(calls);
    expect(runner.pendingWrites.dirty).toBe(false);
    await s.stopAll();
  });
});

describe("stop flushes state first (issue 21)", () => {
  test("a set made just before a stop is written, through a failing first attempt, before stop resolves", async () => {
    const { s, live, api, kept } = await start({ debounceMs: 1000 });
    api.failing = 1;
    const set = kept.state!.set("k", "before-stop");
    await s.stopAll(AbortSignal.timeout(2000));
    expect(stored(live, "k")).toBe("before-stop");
    await set;
    const after = (await kept.state!.set("k", "after").catch((e: unknown) => e)) as { code: string };
    expect(after.code).toBe("STATE_WRITE_FAILED"); // refused, never a promise that hangs
  });

  test("a stop whose flush cannot succeed before its deadline rejects the set and logs an error naming the node and key", async () => {
    const { log, lines } = captureLog();
    const { s, api, kept } = await start({ debounceMs: 1000, log });
    api.failing = 1_000;
    const set = kept.state!.set("k", "lost");
    await s.stopAll(AbortSignal.timeout(60));
    const err = (await set.catch((e: unknown) => e)) as { message: string };
    expect(err.message).toContain(`state key "k" not persisted`);
    const line = lines.find((l) => l.level === "error");
    expect(line?.msg).toBe(`node ${nodeName("k")} stopped with its status not persisted: state keys k and 0 _reconcile change(s) lost`);
    expect(line?.fields).toMatchObject({ node: nodeName("k"), stateKeys: ["k"], err: "etcdserver: request timed out" });
  });
});

describe("a second stop waits for the first (issue 21)", () => {
  test("a shutdown during a reload's stop resolves only once that stop's flush wrote the set", async () => {
    const { s, live, api, kept, runner } = await start({ debounceMs: 1000 });
    let release!: () => void;
    api.gate = new Promise<void>((r) => (release = r));
    void kept.state!.set("k", "mid-reload");
    const first = runner.stop(false); // the reload's stop: its flush blocks in the apiserver
    let shutdownDone = false;
    const shutdown = s.stopAll().then(() => (shutdownDone = true));
    await Bun.sleep(20);
    expect(shutdownDone).toBe(false);
    api.gate = undefined;
    release();
    await shutdown;
    await first;
    expect(stored(live, "k")).toBe("mid-reload");
  });
});

describe("a reloaded component keeps its state (issue 21)", () => {
  test("the new runner reads what the old one set just before, though the node it is given predates the write", async () => {
    const live = makeNode("k", "keeper");
    const api = apiserver(live);
    const v1 = keeper("v1");
    const s = new Scheduler({ module: MODULE, debounceMs: 1000, statusSink: api.sink });
    s.install(v1.def);
    const informerCopy = makeNode("k", "keeper"); // what the watch delivered; the write below is not in it
    await s.update(informerCopy);
    void v1.kept.state!.set("k", "kept across reload");
    const v2 = keeper("v2");
    s.install(v2.def); // the hot reload: a new definition of the same component
    await s.update(informerCopy);
    expect(stored(live, "k")).toBe("kept across reload"); // the old runner flushed before it went
    expect(v2.kept.read).toBe("kept across reload"); // and the new one sees it at once
    await s.stopAll();
  });
});

describe("MetadataState overlay", () => {
  function fake(metadata: Record<string, string> = {}) {
    let now = 1_000_000;
    const st = new MetadataState({ nodeName: "n", metadata: () => metadata, requestWrite: () => {} }, () => now);
    return { st, metadata, tick: (ms: number) => void (now += ms) };
  }

  test("a value not persisted yet stays readable past the 5 s TTL; once written, the TTL runs from the write", async () => {
    const { st, metadata, tick } = fake({ "_state/k": b64("old") });
    void st.set("k", "new");
    st.takeWrites()!.failed();
    tick(STATE_OVERLAY_TTL_MS * 3);
    expect(dec.decode(await st.get("k"))).toBe("new"); // Go's overlay would have expired: the old value back
    st.takeWrites()!.done();
    tick(STATE_OVERLAY_TTL_MS - 1);
    expect(dec.decode(await st.get("k"))).toBe("new");
    metadata["_state/k"] = b64("from the watch");
    tick(2);
    expect(dec.decode(await st.get("k"))).toBe("from the watch");
  });

  test("sets of one key before its write share one promise; a set during the write gets the next one, which a failed write's sets then follow", async () => {
    const { st } = fake();
    const a = st.set("k", "1");
    const b = st.set("k", "2");
    expect(a).toBe(b);
    const w = st.takeWrites()!;
    const c = st.set("k", "3");
    expect(c).not.toBe(a);
    w.failed(); // "2" failed; "3" is newer and stays; the sets of "2" now wait for it
    let aSettled = false;
    void a.then(() => (aSettled = true));
    const retry = st.takeWrites()!;
    expect(retry.size).toBe(1);
    retry.failed(); // no newer set: the same entry and promise go back
    expect(st.unwrittenKeys).toBe(1);
    st.takeWrites()!.done();
    await c;
    await Bun.sleep(0);
    expect(aSettled).toBe(true);
  });
});

describe("kubeStatusSink", () => {
  test("a node that is gone (404) answers gone; any other failure rejects for the runner to retry", async () => {
    const notFound = new KubeApiError({
      verb: "PATCH",
      path: "/x",
      status: 404,
      body: { kind: "Status", code: 404, reason: "NotFound", message: "not found" },
    });
    expect(await kubeStatusSink(async () => Promise.reject(notFound)).patchStatus("n", () => {})).toBe("gone");
    const unavailable = new KubeApiError({
      verb: "PATCH",
      path: "/x",
      status: 503,
      body: { kind: "Status", code: 503, reason: "ServiceUnavailable", message: "etcd" },
    });
    expect(kubeStatusSink(async () => Promise.reject(unavailable)).patchStatus("n", () => {})).rejects.toBe(unavailable);
    expect(await kubeStatusSink(async () => {}).patchStatus("n", () => {})).toBeUndefined();
  });
});
