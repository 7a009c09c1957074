import { describe, expect, test } from "bun:test";
import { hopWatchingTracer, EXPRESSION_ERROR_EVENT, HOP_TEXT_CHARS, type HopRecord, type HopWatcher } from "../../../src/local/hop-watch.ts";
import { noopTracer, type HopSite } from "../../../src/runtime/runner/tracer.ts";
import { empty, ok, type Result } from "../../../src/core/result.ts";

const site: HopSite = { name: "h.m.a-1", identity: { nodeName: "h.m.a-1", namespace: "", flowName: "", projectName: "" }, credentialKeys: () => new Set() };

function recorder(wants = false) {
  const calls: string[] = [];
  const watcher: HopWatcher = {
    inputFailed: (node, port, from, error) => calls.push(`input ${node} ${port} ${from} ${error.message}`),
    expressionFailed: (node, port, from, message) => calls.push(`expression ${node} ${port} ${from} ${message}`),
    emitted: (node, port) => calls.push(`emit ${node} ${port}`),
    outputFailed: (node, port, error) => calls.push(`output ${node} ${port} ${error.message}`),
    wantsResult: () => wants,
    emitResult: (node, port, r: Result) => calls.push(`result ${node} ${port} ${r.kind}`),
  };
  return { calls, tracer: hopWatchingTracer(noopTracer, watcher) };
}

describe("hopWatchingTracer", () => {
  test("an input span that ends with an error reports node, port, sender and error; a clean end reports nothing", () => {
    const { calls, tracer } = recorder();
    tracer.input(site, "in", { edgeId: "e", from: "h.m.b-1:out", to: "h.m.a-1:in", data: null, depth: 1 }).end(new Error("boom"));
    tracer.input(site, "in", { edgeId: "e", from: "h.m.b-1:out", to: "h.m.a-1:in", data: null, depth: 1 }).end();
    expect(calls).toEqual(["input h.m.a-1 in h.m.b-1:out boom"]);
  });

  test("the runner's expression_error event is reported; other events are not", () => {
    const { calls, tracer } = recorder();
    const span = tracer.input(site, "in", { edgeId: "e", from: "h.m.b-1:out", to: "h.m.a-1:in", data: null, depth: 1 });
    span.event("cache_miss", { key: "k" });
    span.event(EXPRESSION_ERROR_EVENT, { expression: "$.x * 2", error: 'expression "{{$.x * 2}}": cannot apply' });
    expect(calls).toEqual(['expression h.m.a-1 in h.m.b-1:out expression "{{$.x * 2}}": cannot apply']);
    expect(span.recording).toBe(false); // the inner span's: input payloads are not captured for nothing
  });

  test("an emit is reported when it starts, and its failure when its span ends; output spans record so the runner ends them", () => {
    const { calls, tracer } = recorder();
    const span = tracer.output(site, "out", { n: 1 });
    expect(span.recording).toBe(true);
    span.end(new Error("downstream"));
    expect(calls).toEqual(["emit h.m.a-1 out", "output h.m.a-1 out downstream"]);
  });

  test("the result of an emit is handed over only when asked for", async () => {
    const asked = recorder(true);
    await asked.tracer.output(site, "request", null).run(() => Promise.resolve(ok({ statusCode: 200 })));
    await asked.tracer.output(site, "request", null).run(() => Promise.resolve(empty));
    await Bun.sleep(0);
    expect(asked.calls.filter((c) => c.startsWith("result"))).toEqual(["result h.m.a-1 request ok", "result h.m.a-1 request empty"]);
    const not = recorder(false);
    await not.tracer.output(site, "request", null).run(() => Promise.resolve(empty));
    await Bun.sleep(0);
    expect(not.calls.filter((c) => c.startsWith("result"))).toEqual([]);
  });
});

describe("hopWatchingTracer hop records", () => {
  const secretSite: HopSite = { ...site, credentialKeys: (port) => new Set(port === "in" ? ["pin"] : []) };

  function watched(want = true) {
    const records: HopRecord[] = [];
    const watcher: HopWatcher = {
      inputFailed: () => {},
      expressionFailed: () => {},
      emitted: () => {},
      outputFailed: () => {},
      wantsHop: () => want,
      hop: (r) => records.push(r),
    };
    return { records, tracer: hopWatchingTracer(noopTracer, watcher) };
  }

  test("a watched hop records sender, edge, the decoded payload redacted, the handler's result and a duration", async () => {
    const { records, tracer } = watched();
    const span = tracer.input(secretSite, "in", { edgeId: "e1", from: "h.m.b-1:out", to: "h.m.a-1:in", data: "raw", depth: 1 });
    expect(span.recording).toBe(true); // the runner then hands over the decoded payload
    span.data({ n: 1, pin: "1234", token: "abc" });
    await span.run(() => Promise.resolve(ok({ sum: 3 })));
    span.end();
    expect(records).toHaveLength(1);
    const r = records[0]!;
    expect({ node: r.node, port: r.port, from: r.from, edgeId: r.edgeId, data: r.data, result: r.result, error: r.error }).toEqual({
      node: "h.m.a-1",
      port: "in",
      from: "h.m.b-1:out",
      edgeId: "e1",
      data: '{"n":1,"pin":"<redacted>","token":"<redacted>"}',
      result: { kind: "ok", value: '{"sum":3}' },
      error: undefined,
    });
    expect(r.durationMs).toBeGreaterThanOrEqual(0);
    expect(r.startedAt).toBeGreaterThan(0);
  });

  test("the payload is taken when decoded: a handler mutating it later does not change the record", () => {
    const { records, tracer } = watched();
    const span = tracer.input(site, "in", { edgeId: "", from: "signal", to: "h.m.a-1:in", data: null, depth: 0 });
    const data = { n: 1 };
    span.data(data);
    span.run(() => void (data.n = 2));
    span.end();
    expect(records[0]!.data).toBe('{"n":1}');
    expect(records[0]!.result).toEqual({ kind: "empty" });
  });

  test("a failed hop records its error and expression errors; a hop the handler never ran has no result", () => {
    const { records, tracer } = watched();
    const span = tracer.input(site, "in", { edgeId: "", from: "h.m.b-1:out", to: "h.m.a-1:in", data: null, depth: 1 });
    span.event(EXPRESSION_ERROR_EVENT, { error: "bad expr" });
    span.end(new Error("boom"));
    expect(records[0]!.error?.message).toBe("boom");
    expect(records[0]!.expressionErrors).toEqual(["bad expr"]);
    expect(records[0]!.result).toBeUndefined();
  });

  test("a payload longer than HOP_TEXT_CHARS is cut and marked", () => {
    const { records, tracer } = watched();
    const span = tracer.input(site, "in", { edgeId: "", from: "signal", to: "h.m.a-1:in", data: null, depth: 0 });
    span.data("y".repeat(HOP_TEXT_CHARS + 50));
    span.end();
    expect(records[0]!.data!.length).toBe(HOP_TEXT_CHARS + 1);
    expect(records[0]!.data!.endsWith("…")).toBe(true);
  });

  test("a hop the watcher does not ask for records nothing and keeps the inner span's recording flag", () => {
    const { records, tracer } = watched(false);
    const span = tracer.input(site, "in", { edgeId: "", from: "signal", to: "h.m.a-1:in", data: null, depth: 0 });
    expect(span.recording).toBe(false);
    span.end();
    expect(records).toEqual([]);
  });
});
