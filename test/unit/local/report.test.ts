import { describe, expect, test } from "bun:test";
import { LocalReport, type Problem } from "../../../src/local/report.ts";

const report = () => {
  const lines: string[] = [];
  return { lines, r: new LocalReport((l) => lines.push(l)) };
};
const p = (text: string, extra: Partial<Problem> = {}): Problem => ({ level: "error", text, ...extra });

describe("LocalReport", () => {
  test("a problem is printed when it appears, with its level, and not again while it stays", () => {
    const { lines, r } = report();
    r.problems([p("a.yaml:3: bad"), p("b.yaml:1: odd", { level: "warning" })]);
    r.problems([p("a.yaml:3: bad"), p("b.yaml:1: odd", { level: "warning" })]);
    expect(lines).toEqual(["error: a.yaml:3: bad", "warning: b.yaml:1: odd"]);
  });

  test("a fix is announced at settle, saying what was fixed and that nothing is left", () => {
    const { lines, r } = report();
    r.problems([p("a.yaml:3: bad")]);
    r.problems([]);
    expect(lines).toEqual(["error: a.yaml:3: bad"]); // not before the reconciles are done
    r.settle([]);
    expect(lines).toEqual(["error: a.yaml:3: bad", "fixed: a.yaml:3: bad (no problems left)"]);
    r.settle([]);
    expect(lines).toHaveLength(2);
  });

  test("a file's new error replaces its old one: the new one is printed, the old one is not announced as fixed", () => {
    const { lines, r } = report();
    r.problems([p("c.ts: import failed: at 1:25", { source: "c.ts" }), p("other", { source: "o.ts" })]);
    r.problems([p("c.ts: import failed: at 1:26", { source: "c.ts" }), p("other", { source: "o.ts" })]);
    r.settle([]);
    expect(lines).toEqual(["error: c.ts: import failed: at 1:25", "error: other", "error: c.ts: import failed: at 1:26"]);
    r.problems([p("other", { source: "o.ts" })]);
    r.settle([]);
    expect(lines.at(-1)).toBe("fixed: c.ts: import failed: at 1:26 (1 problem left)");
  });

  test("a fix that uncovers a node error does not claim everything is fixed", () => {
    const { lines, r } = report();
    r.problems([p("router.yaml:3: node h.m.router-1: bad field", { node: "h.m.router-1" })]);
    r.problems([]);
    r.settle(["h.m.router-1"]); // its reconcile now fails on the settings
    expect(lines.at(-1)).toBe("fixed: router.yaml:3: node h.m.router-1: bad field (1 problem left)");
  });

  test("several fixes: one line each, the count on the last; a node error with its own problem counts once", () => {
    const { lines, r } = report();
    r.problems([p("x"), p("y"), p("z: unknown component", { node: "h.m.z-1" })]);
    r.problems([p("z: unknown component", { node: "h.m.z-1" })]);
    r.settle(["h.m.z-1"]);
    expect(lines.slice(3)).toEqual(["fixed: x", "fixed: y (1 problem left)"]);
  });

  test("a problem that comes back before its fix was announced is neither fixed nor new", () => {
    const { lines, r } = report();
    r.problems([p("x")]);
    r.problems([]);
    r.problems([p("x")]);
    r.settle([]);
    expect(lines).toEqual(["error: x"]);
  });

  test("problems keyed without their line are not reprinted when only the line moved", () => {
    const { lines, r } = report();
    r.problems([p("a.yaml:3: bad", { key: "k" })]);
    r.problems([p("a.yaml:4: bad", { key: "k" })]);
    r.settle([]);
    expect(lines).toEqual(["error: a.yaml:3: bad"]);
  });

  test("an error status names the node's manifest and drops the node name the runtime put in front", () => {
    const { lines, r } = report();
    r.nodeStatus("h.m.router-1", "router", { status: "OK", error: false }, "router.yaml:3");
    r.nodeStatus("h.m.router-1", "router", { status: 'node h.m.router-1 port _settings: field $.x breaks rule "required"', error: true }, "router.yaml:3");
    r.nodeStatus("h.m.router-1", "router", { status: 'node h.m.router-1 port _settings: field $.x breaks rule "required"', error: true }, "router.yaml:3");
    expect(lines).toEqual([
      "node h.m.router-1  router  OK",
      'node h.m.router-1  router  error: router.yaml:3: port _settings: field $.x breaks rule "required"',
    ]);
  });

  test("statusShown records a status as printed, so its status line stays quiet until it changes", () => {
    const { lines, r } = report();
    const status = { status: 'component "nope" is not registered', error: true };
    r.statusShown("h.m.g-1", "nope", status);
    r.nodeStatus("h.m.g-1", "nope", status, "g.yaml:3");
    r.nodeStatus("h.m.g-1", "nope", { status: "OK", error: false }, "g.yaml:3");
    expect(lines).toEqual(["node h.m.g-1  nope  OK"]);
  });

  test("nodeError prints its explanation and the status write that follows stays quiet", () => {
    const { lines, r } = report();
    const status = { status: "http_server: cannot listen on :8080: in use", error: true };
    r.nodeError("h.m.web-1", "http_server", status, "server.yaml:3: port 8080 is in use: set PORT or --port");
    r.nodeStatus("h.m.web-1", "http_server", status, "server.yaml:3");
    expect(lines).toEqual(["node h.m.web-1  http_server  error: server.yaml:3: port 8080 is in use: set PORT or --port"]);
  });
});
