import { describe, expect, test } from "bun:test";
import { FailureLog, isCancellation, withoutNodePrefix } from "../../../src/local/failure-log.ts";
import { TinyError } from "../../../src/core/errors.ts";
import { PermanentError } from "../../../src/core/errors.ts";
import type { Schedule } from "../../../src/local/repeat-limiter.ts";

const never: Schedule = () => () => {};

function log(now = () => 0) {
  const lines: string[] = [];
  return { lines, failures: new FailureLog((l) => lines.push(l), { windowMs: 5000, schedule: never, now }) };
}

describe("FailureLog", () => {
  test("a failure is printed at the first node that reports it, not again by the callers up the chain", () => {
    const { lines, failures } = log();
    const err = new Error("boom");
    failures.hop("h.m.thrower-1", "in", "h.m.relay-1:out", err); // where it happened: its span ends first
    failures.emit("h.m.relay-1", "out", err); // the caller's emit resolves to the same Result
    failures.hop("h.m.relay-1", "in", "h.m.pulse-1:out", err); // the caller's own hop returns it
    expect(lines).toEqual(["error: node h.m.thrower-1 port in (from h.m.relay-1:out): boom"]);
  });

  test("an error wrapping a reported one (cause chain) is not reported again", () => {
    const { lines, failures } = log();
    const inner = new Error("down");
    failures.hop("h.m.a-1", "in", "", inner);
    failures.hop("h.m.b-1", "in", "", new PermanentError(inner));
    expect(lines).toEqual(["error: node h.m.a-1 port in: down"]);
  });

  test("cancellations and node stops are not failures", () => {
    const { lines, failures } = log();
    failures.hop("h.m.a-1", "in", "", new TinyError("CANCELLED", "hop to h.m.a-1:in cancelled"));
    failures.emit("h.m.a-1", "out", new TinyError("NODE_STOPPED", "node h.m.a-1 stopped"));
    expect(lines).toEqual([]);
    expect(isCancellation(Object.assign(new Error("x"), { name: "AbortError" }))).toBe(true);
  });

  test("the line does not repeat the node and port the error message starts with", () => {
    const { lines, failures } = log();
    failures.hop("h.m.a-1", "in", "signal", new Error('node h.m.a-1 port in: field $.n breaks rule "type": must be integer'));
    expect(lines).toEqual(['error: node h.m.a-1 port in: field $.n breaks rule "type": must be integer']);
    expect(withoutNodePrefix("node x: gone", "x", "p")).toBe("gone");
  });

  test("a configuration that does not compile is named by its cause, not by the runner's long prefix", () => {
    const { lines, failures } = log();
    const cause = new Error('expression "{{$.a +}}": unexpected end of expression at position 4 (in field "x")');
    failures.hop(
      "h.m.a-1",
      "in",
      "h.m.b-1:out",
      new TinyError("PORT_CONFIG", 'node h.m.a-1: configuration of port in (from "h.m.b-1:out") is invalid: …', { cause }),
    );
    expect(lines).toEqual([`error: node h.m.a-1 port in (from h.m.b-1:out): its configuration does not compile: ${cause.message}`]);
  });

  test("a component log line repeating a failure printed within the window is dropped; later it prints", () => {
    let now = 0;
    const { lines, failures } = log(() => now);
    failures.hop("h.m.web-1", "start", "h.m.sig-1:out", new Error("cannot listen"));
    failures.log("warn", "h.m.sig-1", "_control", "signal: downstream failed: cannot listen", "cannot listen");
    expect(lines).toEqual(["error: node h.m.web-1 port start (from h.m.sig-1:out): cannot listen"]);
    now = 6000;
    failures.log("warn", "h.m.sig-1", "_control", "signal: downstream failed: cannot listen", "cannot listen");
    expect(lines.at(-1)).toBe("warning: node h.m.sig-1 port _control: signal: downstream failed: cannot listen");
  });

  test("mapping expression errors are printed with the hop's node, port and sender, rate-limited", () => {
    const { lines, failures } = log();
    for (let i = 0; i < 3; i++)
      failures.expression("h.m.a-1", "in", "h.m.b-1:out", 'expression "{{$.x * 2}}": cannot apply "*" to string and number (in field "y")');
    expect(lines).toEqual(['error: node h.m.a-1 port in (from h.m.b-1:out): expression "{{$.x * 2}}": cannot apply "*" to string and number (in field "y")']);
  });

  test("a note is printed once per node and port until the node is forgotten", () => {
    const { lines, failures } = log();
    failures.note("h.m.a-1", "out", "a went nowhere");
    failures.note("h.m.a-1", "out", "a went nowhere");
    failures.note("h.m.a-1", "err", "b went nowhere");
    expect(lines).toEqual(["note: a went nowhere", "note: b went nowhere"]);
    expect(failures.noted("h.m.a-1", "out")).toBe(true);
    failures.forget("h.m.a-1");
    expect(failures.noted("h.m.a-1", "out")).toBe(false);
    failures.note("h.m.a-1", "out", "a went nowhere");
    expect(lines).toHaveLength(3);
  });
});
