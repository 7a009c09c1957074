import { describe, expect, test } from "bun:test";
import { FlowEvents, HTTP_REQUEST_PORT, type FlowEventsHost } from "../../../src/local/flow-events.ts";
import { FailureLog } from "../../../src/local/failure-log.ts";
import type { ListenFailure } from "../../../src/local/listen-watch.ts";
import { ListenError } from "../../../src/sdk/http/listener.ts";
import type { Runner } from "../../../src/runtime/runner/runner.ts";
import { empty, ok } from "../../../src/core/result.ts";

/** A host with an http_server "web" and a node "r" whose last reconcile failed with "bad settings". */
function setup() {
  const lines: string[] = [];
  const listen: ListenFailure[] = [];
  let stopped = false;
  const host: FlowEventsHost = {
    stopped: () => stopped,
    componentOf: (n) => ({ "h.m.web-1": "http_server", "h.m.r-1": "router" })[n],
    runner: (n) => (n === "h.m.r-1" ? ({ lastError: new Error("bad settings") } as unknown as Runner) : undefined),
    listenFailed: (f) => listen.push(f),
  };
  const events = new FlowEvents(host, new FailureLog((l) => lines.push(l), { schedule: () => () => {} }));
  return { lines, listen, events, stop: () => (stopped = true) };
}

describe("FlowEvents", () => {
  test("the scheduler's 'reconcile failed' line is dropped: the node's status line says it", () => {
    const { lines, events } = setup();
    events.log({ level: "warn", node: "h.m.r-1", port: "", msg: "reconcile failed; node rolled back", err: "bad settings", fields: {} });
    expect(lines).toEqual([]);
  });

  test("http_server's 'restore from metadata failed' line with a bind error becomes the node's listen failure", () => {
    const { lines, listen, events } = setup();
    const text = new ListenError(8080, new Error("Failed to start server. Is port 8080 in use?")).message;
    events.log({ level: "error", node: "h.m.web-1", port: "", msg: "http_server: restore from metadata failed", err: text, fields: { err: text, port: 8080 } });
    expect(lines).toEqual([]);
    expect(listen.map((f) => [f.node, f.error.message, f.inUse])).toEqual([["h.m.web-1", text, true]]);
    // The start hop that fails the same way right after is the same event: the caller's warning is dropped.
    events.log({ level: "warn", node: "h.m.sig-1", port: "_control", msg: "signal: downstream failed", err: text, fields: {} });
    expect(lines).toEqual([]);
  });

  test("a failed start hop of an http_server is its listen failure, not a hop failure line", () => {
    const { lines, listen, events } = setup();
    const err = new ListenError(8080, Object.assign(new Error("in use"), { code: "EADDRINUSE" }));
    events.watcher().inputFailed("h.m.web-1", "start", "h.m.sig-1:out", err);
    events.watcher().outputFailed("h.m.sig-1", "out", err);
    expect(lines).toEqual([]);
    expect(listen).toHaveLength(1);
  });

  test('a settings delivery failing during a reconcile (from "") is left to the status line', () => {
    const { lines, events } = setup();
    events.watcher().inputFailed("h.m.r-1", "_settings", "", new Error("bad settings"));
    expect(lines).toEqual([]);
  });

  test("http_server's request emit resolving to no or an invalid Response is printed at its request port", () => {
    const { lines, events } = setup();
    const w = events.watcher();
    expect(w.wantsResult!("h.m.web-1", HTTP_REQUEST_PORT)).toBe(true);
    expect(w.wantsResult!("h.m.r-1", HTTP_REQUEST_PORT)).toBe(false);
    w.emitResult!("h.m.web-1", HTTP_REQUEST_PORT, ok({ statusCode: 200, body: "fine" }));
    w.emitResult!("h.m.web-1", HTTP_REQUEST_PORT, ok({ statusCode: "abc" }));
    w.emitResult!("h.m.web-1", HTTP_REQUEST_PORT, empty);
    expect(lines).toEqual([
      'error: node h.m.web-1 port request: invalid response: statusCode must be an integer 100–599, got "abc"',
      "error: node h.m.web-1 port request: invalid response: the flow returned no response (every branch of the chain must end at this node's response port)",
    ]);
  });

  test("after stop nothing is printed", () => {
    const { lines, events, stop } = setup();
    stop();
    events.watcher().inputFailed("h.m.r-1", "in", "", new Error("late"));
    events.log({ level: "warn", node: "h.m.r-1", port: "", msg: "late", fields: {} });
    expect(lines).toEqual([]);
  });
});

describe("FlowEvents hops", () => {
  test("hops are recorded only for debug nodes' data ports until a listener registers; then every hop reaches it", () => {
    const host: FlowEventsHost = {
      stopped: () => false,
      componentOf: (n) => (n === "h.m.debug-1" ? "debug" : "router"),
      runner: () => undefined,
      listenFailed: () => {},
    };
    const events = new FlowEvents(host, new FailureLog(() => {}, { schedule: () => () => {} }));
    const w = events.watcher();
    expect([w.wantsHop!("h.m.debug-1", "in"), w.wantsHop!("h.m.debug-1", "_settings"), w.wantsHop!("h.m.r-1", "in")]).toEqual([true, false, false]);
    const seen: string[] = [];
    const off = events.onHop((r) => seen.push(`${r.node}:${r.port}`));
    expect(w.wantsHop!("h.m.r-1", "in")).toBe(true);
    w.hop!({
      node: "h.m.r-1",
      port: "in",
      from: "",
      edgeId: "",
      data: "1",
      result: { kind: "empty" },
      error: undefined,
      expressionErrors: [],
      startedAt: 0,
      durationMs: 0,
    });
    off();
    expect(seen).toEqual(["h.m.r-1:in"]);
    expect(w.wantsHop!("h.m.r-1", "in")).toBe(false);
  });
});
