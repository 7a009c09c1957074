/**
 * Edge configurations as the runner evaluates them (src/runtime/runner/port-config.ts, Go's
 * runner callback): a field whose expression does not compile is null and the hop goes on, the
 * problem shows on the node's status; a value JSON cannot carry fails the hop.
 */
import { describe, expect, test } from "bun:test";
import { defineComponent, target, Type } from "tinyhost";
import { compilePortConfigs, evaluatePortConfig, PortConfigTable } from "../../../src/runtime/runner/port-config.ts";
import { Scheduler } from "../../../src/runtime/scheduler/index.ts";
import { makeNode, MODULE, nodeName } from "../../support/fake-components.ts";

process.env.TINYHOST_LOG_LEVEL ??= "silent";

const b64 = (v: unknown) => Buffer.from(JSON.stringify(v)).toString("base64");

function compileOne(config: unknown) {
  const table = compilePortConfigs("n", [{ from: "a:out", port: "in", configuration: b64(config) }], new PortConfigTable());
  return { table, pc: table.get("a:out", "in")! };
}

/** Records what arrives on `in`. */
function recorder(seen: unknown[]) {
  return defineComponent({
    info: { name: "recorder", description: "R", info: "" },
    ports: () => [target("in", Type.Any())],
    handle: (_ctx, _output, _port, data) => void seen.push(data),
  });
}

describe("port configuration", () => {
  test("nodes with the same mapping bytes share one compiled template, and each node's problem names that node", () => {
    const bytes = b64({ a: "{{$.x +}}", b: "{{$.y}}" });
    const one = compilePortConfigs("node-one", [{ from: "a:out", port: "in", configuration: bytes }], new PortConfigTable());
    const two = compilePortConfigs("node-two", [{ from: "a:out", port: "in", configuration: bytes }], new PortConfigTable());
    const p1 = one.get("a:out", "in")!;
    const p2 = two.get("a:out", "in")!;
    expect(p2.template).toBe(p1.template!);
    expect(one.problem?.message).toContain("node-one");
    expect(two.problem?.message).toContain("node-two");
    expect(two.problem?.message).not.toContain("node-one");
    // The shared template still hands each hop its own containers.
    const first = evaluatePortConfig(p1, { y: [1] }) as { b: number[] };
    const second = evaluatePortConfig(p2, { y: [2] }) as { b: number[] };
    expect(first).not.toBe(second);
    expect(second.b).toEqual([2]);
  });

  test("changed mapping bytes compile anew, not from the template kept for the old bytes", () => {
    const { pc: before } = compileOne({ v: "{{$.a}}" });
    const { pc: after } = compileOne({ v: "{{$.b}}" });
    expect(after.template).not.toBe(before.template!);
    expect(evaluatePortConfig(after, { a: 1, b: 2 })).toEqual({ v: 2 });
  });

  test("a field whose expression does not compile evaluates to null and the other fields still evaluate", () => {
    const { pc } = compileOne({ bad: "{{$.a +}}", text: "x={{foo}}", good: "{{$.a}}" });
    const errors: string[] = [];
    expect(evaluatePortConfig(pc, { a: 1 }, (e) => errors.push(e.expression))).toEqual({ bad: null, text: "x={{foo}}", good: 1 });
    expect(errors).toEqual(["$.a +", "foo"]);
    expect(pc.problems.map((p) => p.code)).toEqual(["PORT_CONFIG", "PORT_CONFIG"]);
  });

  test("the table's problem names the node, the port and the expression that does not compile", () => {
    const { table } = compileOne({ bad: "{{$.a +}}" });
    expect(table.problem?.message).toBe(
      'node n: configuration of port in (from "a:out") is invalid: expression "{{$.a +}}": unexpected end of expression at position 5 (in field "bad")',
    );
  });

  test("a configuration that is not a JSON object is evaluated too (Go refuses it; a superset)", () => {
    expect(evaluatePortConfig(compileOne([1, "{{$.a}}"]).pc, { a: 1 })).toEqual([1, 1]);
    expect(evaluatePortConfig(compileOne("{{$}}").pc, { a: 1 })).toEqual({ a: 1 });
  });

  test("a number beyond float64 written in the configuration itself fails every hop, as Go's Unpack does", () => {
    const raw = Buffer.from('{"limit": 1e400, "v": "{{$.a}}"}').toString("base64");
    const pc = compilePortConfigs("n", [{ from: "a:out", port: "in", configuration: raw }], new PortConfigTable()).get("a:out", "in")!;
    expect(() => evaluatePortConfig(pc, { a: 1 })).toThrow('the number at "limit" is out of range');
  });

  test("a field that evaluates to NaN fails the hop (JSON cannot carry it), inside a string it is text", () => {
    const { pc } = compileOne({ v: "{{sqrt(-1)}}" });
    let err: unknown;
    try {
      evaluatePortConfig(pc, {});
    } catch (e) {
      err = e;
    }
    expect((err as { code?: string }).code).toBe("PORT_DATA");
    expect(evaluatePortConfig(compileOne({ v: "x={{sqrt(-1)}}" }).pc, {})).toEqual({ v: "x=NaN" });
  });

  test("a string payload is a string value, in process and as JSON bytes off a wire (Go: a string message stays a string)", async () => {
    const seen: unknown[] = [];
    const s = new Scheduler({ module: MODULE });
    s.install(recorder(seen));
    await s.update(makeNode("r", "recorder", { ports: [{ from: "src:out", port: "in", config: { v: "{{$}}", t: "x={{$}}" } }] }));
    const hop = (data: unknown) => s.handle({ edgeId: "e", from: `${nodeName("src")}:out`, to: `${nodeName("r")}:in`, data, depth: 1 });
    const inProcess = await hop("hello");
    expect(inProcess.kind).not.toBe("fail");
    const wire = await hop(new TextEncoder().encode('"hello"'));
    expect(wire.kind).not.toBe("fail");
    // A string that happens to read as JSON is still a string in process.
    expect((await hop('{"a":1}')).kind).not.toBe("fail");
    expect(seen).toEqual([
      { v: "hello", t: "x=hello" },
      { v: "hello", t: "x=hello" },
      { v: '{"a":1}', t: 'x={"a":1}' },
    ]);
  });

  test("a hop through an edge whose configuration does not compile delivers the other fields, and the node's status shows the problem", async () => {
    const seen: unknown[] = [];
    const s = new Scheduler({ module: MODULE });
    s.install(recorder(seen));
    const status = await s.update(makeNode("r", "recorder", { ports: [{ from: "src:out", port: "in", config: { bad: "{{$.a ==}}", ok: "{{$.a}}" } }] }));
    expect(status.error).toBe(true);
    expect(status.status).toContain('expression "{{$.a ==}}"');
    const r = await s.handle({ edgeId: "e", from: `${nodeName("src")}:out`, to: `${nodeName("r")}:in`, data: new TextEncoder().encode('{"a": 7}'), depth: 1 });
    expect(r.kind).not.toBe("fail");
    expect(seen).toEqual([{ bad: null, ok: 7 }]);
  });

  test("fixing the configuration clears the problem from the node's status", async () => {
    const s = new Scheduler({ module: MODULE });
    s.install(recorder([]));
    await s.update(makeNode("r", "recorder", { ports: [{ from: "src:out", port: "in", config: { v: "{{$.a ==}}" } }] }));
    const status = await s.update(makeNode("r", "recorder", { ports: [{ from: "src:out", port: "in", config: { v: "{{$.a == 1}}" } }] }));
    expect(status.error).toBe(false);
    expect(status.status).toBe("OK");
  });
});
