import { beforeEach, describe, expect, test } from "bun:test";
import { PermanentError, type Result } from "tinyhost";
import { Scheduler } from "../../../src/runtime/scheduler/index.ts";
import { delayed, flaky, journal, lifecycle, makeNode, MODULE, nodeName, relay, sink, waiter } from "../../support/fake-components.ts";

process.env.TINYHOST_LOG_LEVEL ??= "silent";

function scheduler(): Scheduler {
  const s = new Scheduler({ module: MODULE, debounceMs: 10, readyTimeoutMs: 50 });
  for (const d of [relay, sink, flaky, lifecycle, waiter, delayed]) s.install(d);
  return s;
}

function signal(s: Scheduler, to: string, data: unknown, abort?: AbortSignal): Promise<Result> {
  return s.handle({ edgeId: "", from: "signal", to: `${nodeName(to.split(":")[0]!)}:${to.split(":")[1]}`, data, depth: 0 }, abort);
}

/** relay a → relay b → sink c, with expressions on both edges. */
async function chain(s: Scheduler): Promise<void> {
  await s.update(makeNode("a", "relay", { edges: [{ port: "out", to: "b:in" }] }));
  await s.update(
    makeNode("b", "relay", { edges: [{ port: "out", to: "c:in" }], ports: [{ from: "a:out", port: "in", config: { context: "{{$.context}}" } }] }),
  );
  await s.update(makeNode("c", "sink", { ports: [{ from: "b:out", port: "in", config: { value: "{{$.context.n * 2}}" } }] }));
}

describe("scheduler", () => {
  beforeEach(() => {
    journal.length = 0;
  });

  test("a blocking chain A→B→C returns the sink's result to the caller", async () => {
    const s = scheduler();
    await chain(s);
    const r = await signal(s, "a:in", { context: { n: 21 } });
    expect(r).toEqual({ kind: "ok", value: { got: 42 } });
  });

  test("concurrent chains stay isolated", async () => {
    const s = scheduler();
    await chain(s);
    const results = await Promise.all(Array.from({ length: 50 }, (_, i) => signal(s, "a:in", { context: { n: i } })));
    expect(results.map((r) => (r.kind === "ok" ? (r.value as { got: number }).got : -1))).toEqual(Array.from({ length: 50 }, (_, i) => i * 2));
  });

  test("a permanent error propagates to the caller verbatim", async () => {
    const s = scheduler();
    await s.update(makeNode("a", "relay", { edges: [{ port: "out", to: "f:in" }] }));
    await s.update(makeNode("f", "flaky", { ports: [{ from: "a:out", port: "in", config: { kind: "permanent", failTimes: 5 } }] }));
    const r = await signal(s, "a:in", { context: 1 });
    expect(r.kind).toBe("fail");
    if (r.kind !== "fail") return;
    expect(r.error).toBeInstanceOf(PermanentError);
    expect(r.error.message).toBe("boom 1");
    expect((s.runner(nodeName("f"))!.instance.self as { calls: number }).calls).toBe(1);
  });

  test("plain errors are not retried even with a retry policy", async () => {
    const s = scheduler();
    await s.update(makeNode("a", "relay", { edges: [{ port: "out", to: "f:in", retryPolicy: { maxAttempts: 5, initialDelayMs: 1 } }] }));
    await s.update(makeNode("f", "flaky", { ports: [{ from: "a:out", port: "in", config: { kind: "plain", failTimes: 1 } }] }));
    const r = await signal(s, "a:in", { context: 1 });
    expect(r.kind === "fail" && r.error.message).toBe("boom 1");
    expect((s.runner(nodeName("f"))!.instance.self as { calls: number }).calls).toBe(1);
  });

  test("retryable errors are retried up to maxAttempts with backoff", async () => {
    const s = scheduler();
    await s.update(
      makeNode("a", "relay", { edges: [{ port: "out", to: "f:in", retryPolicy: { maxAttempts: 3, initialDelayMs: 1, backoffCoefficient: "2" } }] }),
    );
    await s.update(makeNode("f", "flaky", { ports: [{ from: "a:out", port: "in", config: { kind: "retryable", failTimes: 2 } }] }));
    const r = await signal(s, "a:in", { context: 1 });
    expect(r).toEqual({ kind: "ok", value: "recovered" });
    expect((s.runner(nodeName("f"))!.instance.self as { calls: number }).calls).toBe(3);
  });

  test("retryable errors stop after maxAttempts", async () => {
    const s = scheduler();
    await s.update(makeNode("a", "relay", { edges: [{ port: "out", to: "f:in", retryPolicy: { maxAttempts: 2, initialDelayMs: 1 } }] }));
    await s.update(makeNode("f", "flaky", { ports: [{ from: "a:out", port: "in", config: { kind: "retryable", failTimes: 9 } }] }));
    const r = await signal(s, "a:in", { context: 1 });
    expect(r.kind === "fail" && r.error.message).toBe("boom 2");
    expect((s.runner(nodeName("f"))!.instance.self as { calls: number }).calls).toBe(2);
  });

  test("fan-out returns the first result by completion", async () => {
    const s = scheduler();
    await s.update(
      makeNode("a", "relay", {
        edges: [
          { port: "out", to: "slow:in" },
          { port: "out", to: "fast:in" },
        ],
      }),
    );
    await s.update(makeNode("slow", "delayed", { ports: [{ from: "a:out", port: "in", config: { ms: 60, tag: "slow" } }] }));
    await s.update(makeNode("fast", "delayed", { ports: [{ from: "a:out", port: "in", config: { ms: 1, tag: "fast" } }] }));
    expect(await signal(s, "a:in", { context: 1 })).toEqual({ kind: "ok", value: "fast" });
  });

  test("fan-out sends duplicate port+to edges once", async () => {
    const s = scheduler();
    await s.update(
      makeNode("a", "relay", {
        edges: [
          { port: "out", to: "f:in", id: "e1" },
          { port: "out", to: "f:in", id: "e2" },
        ],
      }),
    );
    await s.update(makeNode("f", "flaky", { ports: [{ from: "a:out", port: "in", config: { kind: "plain", failTimes: 0 } }] }));
    await signal(s, "a:in", { context: 1 });
    expect((s.runner(nodeName("f"))!.instance.self as { calls: number }).calls).toBe(1);
  });

  test("the depth guard fails a cycle permanently and names the cycle", async () => {
    const s = scheduler();
    await s.update(
      makeNode("a", "relay", { edges: [{ port: "out", to: "b:in" }], ports: [{ from: "b:out", port: "in", config: { context: "{{$.context}}" } }] }),
    );
    await s.update(
      makeNode("b", "relay", { edges: [{ port: "out", to: "a:in" }], ports: [{ from: "a:out", port: "in", config: { context: "{{$.context}}" } }] }),
    );
    const r = await signal(s, "a:in", { context: 1 });
    expect(r.kind).toBe("fail");
    if (r.kind !== "fail") return;
    expect(r.error).toBeInstanceOf(PermanentError);
    expect(r.error.message).toContain("max message depth 256 exceeded");
    const a = `${nodeName("a")}:in`;
    const b = `${nodeName("b")}:in`;
    expect([`${a} → ${b} → ${a}`, `${b} → ${a} → ${b}`]).toContain(r.error.message.split(": ").at(-1)!);
  });

  test("a caller's abort reaches an in-flight handler", async () => {
    const s = scheduler();
    await s.update(makeNode("w", "waiter"));
    const ac = new AbortController();
    const pending = signal(s, "w:in", {}, ac.signal);
    const self = s.runner(nodeName("w"))!.instance.self as { started: { promise: Promise<void> }; aborted: boolean };
    await self.started.promise;
    ac.abort(new Error("client went away"));
    const r = await pending;
    expect(self.aborted).toBe(true);
    expect(r.kind).toBe("fail");
  });

  test("stopping a node cancels a handler in flight two hops downstream", async () => {
    const s = scheduler();
    await s.update(makeNode("a", "relay", { edges: [{ port: "out", to: "w:in" }] }));
    await s.update(makeNode("w", "waiter"));
    const pending = signal(s, "a:in", { context: 1 });
    const self = s.runner(nodeName("w"))!.instance.self as { started: { promise: Promise<void> }; aborted: boolean };
    await self.started.promise;
    await s.destroy(nodeName("a"));
    await pending;
    expect(self.aborted).toBe(true);
  });

  test("a malformed message fails that hop only and the next message works", async () => {
    const s = scheduler();
    await chain(s);
    const bad = await signal(s, "c:in", { value: "not a number" });
    expect(bad.kind).toBe("fail");
    if (bad.kind !== "fail") return;
    expect((bad.error as Error & { code: string }).code).toBe("VALIDATION");
    expect(bad.error.message).toContain(nodeName("c"));
    expect(bad.error.message).toContain("port in");
    expect(bad.error.message).toContain("value");
    const good = await signal(s, "a:in", { context: { n: 2 } });
    expect(good).toEqual({ kind: "ok", value: { got: 4 } });
  });

  test("undecodable JSON bytes from a wire fail that hop with DECODE", async () => {
    const s = scheduler();
    await chain(s);
    const r = await s.handle({ edgeId: "", from: "signal", to: `${nodeName("c")}:in`, data: new TextEncoder().encode("{nope"), depth: 0 });
    expect(r.kind === "fail" && (r.error as Error & { code: string }).code).toBe("DECODE");
  });

  test("capability hooks run in framework order on a new node, then without onState/onEmitter", async () => {
    const s = new Scheduler({
      module: MODULE,
      debounceMs: 10,
      client: { namespace: "test", mode: "local", exposePort: async () => [], disclosePort: async () => {} },
    });
    s.install(lifecycle);
    await s.update(makeNode("l", "lifecycle"));
    expect(journal).toEqual(["onIdentity", "onClient", "onNats", "onState", "onEmitter", "onReconcile", "onSettings:1"]);
    journal.length = 0;
    await s.update(makeNode("l", "lifecycle", { ports: [{ from: "", port: "_settings", config: { level: 2 } }] }));
    expect(journal).toEqual(["onIdentity", "onClient", "onNats", "onReconcile", "onSettings:2"]);
    journal.length = 0;
    await s.destroy(nodeName("l"));
    expect(journal).toEqual(["onDestroy"]);
  });

  test("uninstall removes the component and stops its runners without onDestroy; its nodes then fail as unregistered", async () => {
    const s = scheduler();
    await s.update(makeNode("l", "lifecycle"));
    await s.update(makeNode("k", "lifecycle"));
    await chain(s);
    const runner = s.runner(nodeName("l"))!;
    journal.length = 0;
    expect(await s.uninstall("lifecycle")).toEqual([nodeName("k"), nodeName("l")].sort());
    expect(journal).toEqual([]);
    expect(runner.stopped).toBe(true);
    expect(s.installed("lifecycle")).toBeUndefined();
    expect(s.runner(nodeName("l"))).toBeUndefined();
    await expect(s.update(makeNode("l", "lifecycle"))).rejects.toThrow('component "lifecycle" is not registered');
    expect((await signal(s, "l:in", {})).kind).toBe("fail");
    expect(await signal(s, "a:in", { context: { n: 1 } })).toEqual({ kind: "ok", value: { got: 2 } });
    expect(await s.uninstall("lifecycle")).toEqual([]);
  });

  test("system ports never reach handle", async () => {
    const s = scheduler();
    await s.update(makeNode("l", "lifecycle"));
    journal.length = 0;
    for (const port of ["_reconcile", "_client", "_identity", "_control"]) await signal(s, `l:${port}`, port === "_control" ? { press: true } : {});
    await signal(s, "l:in", {});
    expect(journal).toEqual(["onControl", "handle:in"]);
  });

  test("a hop to an unknown node fails with NODE_NOT_FOUND after a bounded wait", async () => {
    const s = scheduler();
    const r = await signal(s, "ghost:in", {});
    expect(r.kind === "fail" && (r.error as Error & { code: string }).code).toBe("NODE_NOT_FOUND");
  });

  test("a hop waiting for a node is delivered once the node appears", async () => {
    const s = new Scheduler({ module: MODULE, readyTimeoutMs: 2000 });
    s.install(sink);
    const pending = signal(s, "late:in", { value: 7 });
    await Bun.sleep(5);
    await s.update(makeNode("late", "sink"));
    expect(await pending).toEqual({ kind: "ok", value: { got: 7 } });
  });

  test("an unregistered component is a permanent error from update", async () => {
    const s = scheduler();
    await expect(s.update(makeNode("x", "nope"))).rejects.toBeInstanceOf(PermanentError);
  });
});

describe("edge port check", () => {
  function recordingLog() {
    const warnings: { obj: unknown; msg?: string }[] = [];
    const log = {
      debug() {},
      info() {},
      error() {},
      warn(obj: object | string, msg?: string) {
        warnings.push({ obj, msg });
      },
      child() {
        return log;
      },
    };
    return { log, warnings };
  }

  test("an edge from a port the component does not declare is reported, naming the edge and the port", async () => {
    const { log, warnings } = recordingLog();
    const s = new Scheduler({ module: MODULE, debounceMs: 10, log });
    s.install(relay);
    await s.update(makeNode("a", "relay", { edges: [{ port: "outt", to: "b:in" }] }));
    const w = warnings.find((x) => (x.msg ?? "").includes('"outt"'));
    expect(w?.msg).toContain("does not declare");
    expect(w?.obj).toMatchObject({ port: "outt", sourcePorts: ["out"] });
  });

  test("an edge from a declared source port is not reported", async () => {
    const { log, warnings } = recordingLog();
    const s = new Scheduler({ module: MODULE, debounceMs: 10, log });
    s.install(relay);
    await s.update(makeNode("a", "relay", { edges: [{ port: "out", to: "b:in" }] }));
    expect(warnings.filter((x) => (x.msg ?? "").includes("does not declare"))).toEqual([]);
  });
});
