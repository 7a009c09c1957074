/**
 * Fault isolation (issue 21 item 2): a component that throws outside `handle` — a reconcile hook, a
 * `_reconcile` updater, a `ports()` re-read, a timer or task it started through the SDK — faults only
 * its node: the node's status turns to an error naming node, component and site, a log line names the
 * node, the fault counter grows, and the other nodes keep answering. Hooks that failed are retried.
 */
import { describe, expect, test } from "bun:test";
import {
  BackgroundLoop,
  defineComponent,
  nodeInterval,
  nodeTask,
  nodeTimeout,
  ok,
  source,
  target,
  Type,
  type ComponentContext,
  type Emitter,
  type TinyNode,
} from "tinyhost";
import { Scheduler } from "../../../src/runtime/scheduler/index.ts";
import { componentFaults } from "../../../src/runtime/runner/guard.ts";
import { uniquePorts } from "../../../src/runtime/runner/errors.ts";
import { STATUS_TEXT_MAX, statusText } from "../../../src/k8s/status-text.ts";
import { makeNode, MODULE, nodeName } from "../../support/fake-components.ts";
import { until as poll } from "../../support/until.ts";

process.env.TINYHOST_LOG_LEVEL ??= "silent";

interface Line {
  level: string;
  obj: Record<string, unknown>;
  msg: string;
}

function recordingLog() {
  const lines: Line[] = [];
  const make = (bound: Record<string, unknown>) => {
    const at = (level: string) => (obj: object | string, msg?: string) =>
      lines.push({ level, obj: typeof obj === "string" ? { ...bound } : { ...bound, ...obj }, msg: typeof obj === "string" ? obj : (msg ?? "") });
    const log: {
      debug: ReturnType<typeof at>;
      info: ReturnType<typeof at>;
      warn: ReturnType<typeof at>;
      error: ReturnType<typeof at>;
      child(b: object): typeof log;
    } = { debug: at("debug"), info: at("info"), warn: at("warn"), error: at("error"), child: (b) => make({ ...bound, ...b }) };
    return log;
  };
  return { log: make({}), lines };
}

/** What the faulty component does, per node (keyed by node name). */
const faults = new Map<string, Set<string>>();
const calls: string[] = [];
const emitters = new Map<string, Emitter>();
const intervalRuns = new Map<string, number>();

const faulty = defineComponent({
  info: { name: "faulty", description: "Faulty", info: "throws where it is told to" },
  state: () => ({ portsCalls: 0 }),
  ports: (self) => {
    self.portsCalls++;
    if (self.portsCalls > 1 && [...faults.values()].some((s) => s.has("ports-throw-all"))) throw new Error("ports boom");
    return [target("in", Type.Object({ text: Type.String() }), { default: { text: "" } }), source("out", Type.Any()), target("_reconcile", Type.Unknown())];
  },
  onIdentity: (ctx) => {
    calls.push(`onIdentity ${ctx.node.nodeName}`);
    if (faults.get(ctx.node.nodeName)?.has("onIdentity-once")) {
      faults.get(ctx.node.nodeName)!.delete("onIdentity-once");
      throw new Error("identity boom");
    }
  },
  onState: (ctx) => {
    calls.push(`onState ${ctx.node.nodeName}`);
  },
  onEmitter: (ctx, emit) => {
    calls.push(`onEmitter ${ctx.node.nodeName}`);
    emitters.set(ctx.node.nodeName, emit);
  },
  handle: (ctx: ComponentContext<{ portsCalls: number }>, _output, _port, data) => {
    if (data.text === "throw") throw new TypeError("handle boom");
    if (data.text === "throw-undefined") throw undefined;
    if (data.text === "throw-null") throw null;
    if (data.text === "huge")
      nodeTimeout(ctx, 0, () => {
        throw new Error("x".repeat(2_000_000));
      });
    if (data.text === "interval") {
      let n = 0;
      nodeInterval(ctx, 2, () => {
        n++;
        intervalRuns.set(ctx.node.nodeName, n);
        if (n === 1) throw new Error("interval boom");
      });
    }
    if (data.text === "late")
      nodeTimeout(ctx, 30, () => {
        throw new Error("late boom");
      });
    if (data.text === "exit-throw") {
      new BackgroundLoop().start({
        lifetime: ctx.nodeSignal,
        body: async () => {},
        onExit: () => {
          throw new Error("onExit boom");
        },
      });
    }
    if (data.text === "timer")
      nodeTimeout(ctx, 1, () => {
        throw new Error("timer boom");
      });
    if (data.text === "task") nodeTask(ctx, Promise.reject(new Error("task boom")));
    if (data.text === "loop") {
      new BackgroundLoop().start({
        lifetime: ctx.nodeSignal,
        body: async () => {
          throw new Error("loop boom");
        },
      });
    }
    return ok({ echo: data.text });
  },
});

/** This file's timeout and poll interval. */
const until = (what: string, cond: () => boolean, ms = 2000) => poll(what, cond, ms, 5);

function setup(sink = true) {
  const { log, lines } = recordingLog();
  const written = new Map<string, TinyNode>();
  const s = new Scheduler({
    module: MODULE,
    debounceMs: 5,
    log,
    ...(sink
      ? {
          statusSink: {
            async patchStatus(name: string, mutate: (n: TinyNode) => void) {
              const n = structuredClone(written.get(name) ?? makeNode(name.split(".")[2]!, "faulty"));
              mutate(n);
              written.set(name, n);
            },
          },
        }
      : {}),
  });
  s.install(faulty);
  return { s, lines, written };
}

const hop = (s: Scheduler, id: string, text: string) => s.handle({ edgeId: "", from: "signal", to: `${nodeName(id)}:in`, data: { text }, depth: 0 });

describe("fault isolation: a throw outside handle faults only its node", () => {
  test("a throwing _reconcile updater turns the node's status to an error naming the site; the other updaters and the status are still written", async () => {
    const { s, lines, written } = setup();
    await s.update(makeNode("u1", "faulty"));
    await s.update(makeNode("u2", "faulty"));
    const before = componentFaults.bySite["_reconcile updater"] ?? 0;
    const emit = emitters.get(nodeName("u1"))!;
    await emit("_reconcile", (n: TinyNode) => {
      n.metadata.labels = { ...n.metadata.labels, first: "yes" };
    });
    await emit("_reconcile", () => {
      throw new Error("updater boom");
    });
    await emit("_reconcile", (n: TinyNode) => {
      n.metadata.labels = { ...n.metadata.labels, third: "yes" };
    });
    await until("error status written", () => written.get(nodeName("u1"))?.status?.error === true);
    const st = written.get(nodeName("u1"))!;
    expect(st.status?.status).toContain(nodeName("u1"));
    expect(st.status?.status).toContain("faulty");
    expect(st.status?.status).toContain("_reconcile updater");
    expect(st.status?.status).toContain("updater boom");
    expect(st.metadata.labels).toMatchObject({ first: "yes", third: "yes" });
    expect(componentFaults.bySite["_reconcile updater"]).toBe(before + 1);
    const line = lines.find((l) => l.level === "error" && l.obj.site === "_reconcile updater");
    expect(line?.obj.node).toBe(nodeName("u1"));
    // the other node is untouched and answers
    expect(s.readStatus(nodeName("u2"))?.status).toBe("OK");
    expect((await hop(s, "u2", "hi")).kind).toBe("ok");
  });

  test("onIdentity failing on the first reconcile: the next reconcile still runs onState and onEmitter once", async () => {
    const { s } = setup(false);
    const name = nodeName("i1");
    faults.set(name, new Set(["onIdentity-once"]));
    calls.length = 0;
    const first = await s.update(makeNode("i1", "faulty"));
    expect(first.error).toBe(true);
    expect(first.status).toContain("onIdentity");
    expect(first.status).toContain(name);
    expect(calls.filter((c) => c.startsWith("onState"))).toEqual([]);
    const second = await s.update(makeNode("i1", "faulty"));
    expect(second.status).toBe("OK");
    expect(calls.filter((c) => c === `onState ${name}`)).toHaveLength(1);
    expect(calls.filter((c) => c === `onEmitter ${name}`)).toHaveLength(1);
    await s.update(makeNode("i1", "faulty"));
    expect(calls.filter((c) => c === `onState ${name}`)).toHaveLength(1); // once it succeeded, never again
  });

  test("a timer started with nodeTimeout that throws faults the node (site timer), the process keeps serving", async () => {
    const { s, lines } = setup(false);
    await s.update(makeNode("t1", "faulty"));
    await s.update(makeNode("t2", "faulty"));
    expect((await hop(s, "t1", "timer")).kind).toBe("ok");
    await until("timer fault", () => s.readStatus(nodeName("t1"))?.error === true);
    expect(s.readStatus(nodeName("t1"))?.status).toContain("timer");
    expect(s.readStatus(nodeName("t1"))?.status).toContain("timer boom");
    expect(lines.some((l) => l.level === "error" && l.obj.site === "timer" && l.obj.node === nodeName("t1"))).toBe(true);
    expect(s.readStatus(nodeName("t2"))?.status).toBe("OK");
    expect((await hop(s, "t2", "x")).kind).toBe("ok");
  });

  test("a rejected promise handed to nodeTask and a BackgroundLoop body that throws fault the node", async () => {
    const { s } = setup(false);
    await s.update(makeNode("p1", "faulty"));
    await s.update(makeNode("b1", "faulty"));
    await hop(s, "p1", "task");
    await hop(s, "b1", "loop");
    await until("task fault", () => s.readStatus(nodeName("p1"))?.error === true);
    await until("loop fault", () => s.readStatus(nodeName("b1"))?.error === true);
    expect(s.readStatus(nodeName("p1"))?.status).toContain("task");
    expect(s.readStatus(nodeName("b1"))?.status).toContain("background loop");
  });

  test("a BackgroundLoop onExit that throws faults the node instead of rejecting the loop's promise", async () => {
    const { s } = setup(false);
    await s.update(makeNode("x1", "faulty"));
    await hop(s, "x1", "exit-throw");
    await until("onExit fault", () => s.readStatus(nodeName("x1"))?.error === true);
    expect(s.readStatus(nodeName("x1"))?.status).toContain("failed in background loop: onExit boom");
  });

  test("a fault stays on the status through reconciles of the same spec and clears when the spec changes", async () => {
    const { s } = setup(false);
    await s.update(makeNode("c1", "faulty"));
    await hop(s, "c1", "timer");
    await until("timer fault", () => s.readStatus(nodeName("c1"))?.error === true);
    expect((await s.update(makeNode("c1", "faulty"))).error).toBe(true);
    const changed = makeNode("c1", "faulty", { ports: [{ from: "", port: "in", config: { text: "new" } }] });
    expect((await s.update(changed)).status).toBe("OK");
  });

  test("ports() throwing on a re-read keeps the last ports, faults the node (site ports()), and dispatch never throws", async () => {
    const { s } = setup(false);
    const name = nodeName("r1");
    await s.update(makeNode("r1", "faulty"));
    faults.set(name, new Set(["ports-throw-all"]));
    try {
      const st = s.readStatus(name)!;
      expect(st.error).toBe(true);
      expect(st.status).toContain("ports()");
      expect(st.status).toContain("ports boom");
      expect(st.ports?.map((p) => p.name)).toEqual(["in", "out"]);
      expect((await hop(s, "r1", "still")).kind).toBe("ok");
    } finally {
      faults.delete(name);
    }
  });

  test("ports() declaring one name twice faults the node (DUPLICATE_PORT, naming the port); hops to it fail instead of decoding with either schema", async () => {
    const twice = defineComponent({
      info: { name: "twice", description: "Twice", info: "declares in twice" },
      ports: () => [target("in", Type.Object({ n: Type.Number() })), target("in", Type.Object({ s: Type.String() })), source("out", Type.Any())],
      handle: (_ctx, _output, _port, data) => ok(data),
    });
    const s = new Scheduler({ module: MODULE, debounceMs: 5, readyTimeoutMs: 50, log: recordingLog().log });
    s.install(twice);
    s.install(faulty);
    await s.update(makeNode("ok1", "faulty"));
    const st = await s.update(makeNode("d1", "twice"));
    expect(st.error).toBe(true);
    expect(st.status).toContain("failed in ports()");
    expect(st.status).toContain('declares port "in" twice');
    expect(st.ports ?? []).toEqual([]);
    const r = await s.handle({ edgeId: "", from: "signal", to: `${nodeName("d1")}:in`, data: { n: 1 }, depth: 0 });
    expect(r.kind).toBe("fail");
    expect(r.kind === "fail" ? (r.error as { code?: string }).code : "").toBe("PORT_NOT_READY");
    expect(() => uniquePorts("n", [{ name: "a" }, { name: "in" }, { name: "in" }])).toThrow(expect.objectContaining({ code: "DUPLICATE_PORT", port: "in" }));
    expect((await hop(s, "ok1", "fine")).kind).toBe("ok"); // the other node runs on
    await s.stopAll();
  });

  test("a throw in handle fails only that hop with the thrown error, counted at site handle; the status stays OK", async () => {
    const { s } = setup(false);
    await s.update(makeNode("h1", "faulty"));
    const before = componentFaults.bySite.handle ?? 0;
    const r = await hop(s, "h1", "throw");
    expect(r.kind).toBe("fail");
    expect(r.kind === "fail" ? r.error : undefined).toBeInstanceOf(TypeError); // retry rules read the error as thrown
    expect(componentFaults.bySite.handle).toBe(before + 1);
    expect(s.readStatus(nodeName("h1"))?.status).toBe("OK");
    expect((await hop(s, "h1", "after")).kind).toBe("ok");
  });

  test("throw undefined / throw null in handle fail the hop (not a success with no result), with a message that says so", async () => {
    const { s } = setup(false);
    await s.update(makeNode("u1", "faulty"));
    for (const [text, shown] of [
      ["throw-undefined", "handle threw undefined"],
      ["throw-null", "handle threw null"],
    ] as const) {
      const r = await hop(s, "u1", text);
      expect(r.kind).toBe("fail");
      expect(r.kind === "fail" ? r.error.message : "").toBe(shown);
    }
  });

  test("a 2 MB error message is cut to STATUS_TEXT_MAX in the status and the log line (it broke the status write)", async () => {
    const { s, lines } = setup(false);
    await s.update(makeNode("big", "faulty"));
    await hop(s, "big", "huge");
    await until("the timer fault on the status", () => (s.readStatus(nodeName("big"))?.status ?? "").includes("failed in timer"));
    const status = s.readStatus(nodeName("big"))!.status!;
    expect(status.length).toBeLessThanOrEqual(STATUS_TEXT_MAX);
    expect(status).toMatch(/… \(\d+ more characters\)$/);
    const line = lines.find((l) => l.obj.site === "timer" && l.obj.node === nodeName("big"))!;
    expect(String(line.obj.err).length).toBeLessThanOrEqual(STATUS_TEXT_MAX);
  });

  test("nodeInterval keeps running after a call that threw, and every helper is cancelled when the node stops", async () => {
    const { s } = setup(false);
    await s.update(makeNode("n1", "faulty"));
    await hop(s, "n1", "interval");
    await until("three interval runs", () => (intervalRuns.get(nodeName("n1")) ?? 0) >= 3);
    expect(s.readStatus(nodeName("n1"))?.status).toContain("interval boom");
    await hop(s, "n1", "late");
    const r = s.runner(nodeName("n1"))!;
    const before = componentFaults.bySite.timer ?? 0;
    await s.destroy(nodeName("n1"));
    const runs = intervalRuns.get(nodeName("n1"));
    await Bun.sleep(60);
    expect(intervalRuns.get(nodeName("n1"))).toBe(runs); // the interval stopped with the node
    expect(componentFaults.bySite.timer ?? 0).toBe(before); // the late timer never fired
    expect(r.nodeSignal.aborted).toBe(true);
  });

  test("a state() factory that throws fails that node's reconcile naming site state(); once it works, the node runs", async () => {
    let throwing = true;
    const fragile = defineComponent({
      info: { name: "fragile", description: "Fragile", info: "state() throws while told to" },
      state: () => {
        if (throwing) throw new Error("state boom");
        return {};
      },
      ports: () => [target("in", Type.Object({ text: Type.String() }))],
      handle: () => ok(1),
    });
    const { s } = setup(false);
    s.install(fragile);
    await s.update(makeNode("g1", "faulty"));
    const err = await s.update(makeNode("f1", "fragile")).then(
      () => undefined,
      (e: unknown) => e as Error,
    );
    expect(err?.message).toBe(`node ${nodeName("f1")} (component fragile) failed in state(): state boom`);
    expect(s.runner(nodeName("f1"))).toBeUndefined();
    expect((await hop(s, "g1", "x")).kind).toBe("ok");
    throwing = false;
    expect((await s.update(makeNode("f1", "fragile"))).status).toBe("OK");
  });

  test("stop aborts the node signal even when the last status write fails", async () => {
    const s = new Scheduler({
      module: MODULE,
      debounceMs: 5,
      statusSink: {
        patchStatus: async () => {
          throw new Error("apiserver down");
        },
      },
    });
    s.install(faulty);
    await s.update(makeNode("s1", "faulty"));
    const r = s.runner(nodeName("s1"))!;
    await emitters.get(nodeName("s1"))!("_control");
    // The flush retries the failing write until its deadline (state-persistence); a short one here.
    await s.stopAll(AbortSignal.timeout(100));
    expect(r.nodeSignal.aborted).toBe(true);
  });
});

describe("statusText", () => {
  test("keeps short text, cuts long text to the bound with a note of how much was cut, never splits a surrogate pair", () => {
    expect(statusText("short")).toBe("short");
    const cut = statusText("a".repeat(5_000));
    expect(cut.length).toBeLessThanOrEqual(STATUS_TEXT_MAX);
    expect(cut).toEndWith(`… (${5_000 - cut.indexOf("…")} more characters)`);
    const emoji = statusText("😀".repeat(40), 41);
    expect(emoji.length).toBeLessThanOrEqual(41);
    expect(/[\uD800-\uDBFF]…/.test(emoji)).toBe(false);
  });
});
