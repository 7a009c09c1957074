/**
 * RPC mode (runtime-spec §3.4): a call to a bare component name runs a fresh instance of an agent
 * tool with the payload on its input port and answers with the first emit on its output port.
 */
import { describe, expect, test } from "bun:test";
import { defineComponent, fail, ok, source, target, Type, type Result } from "tinyhost";
import { Scheduler } from "../../../src/runtime/scheduler/index.ts";
import { MODULE, relay } from "../../support/fake-components.ts";

process.env.TINYHOST_LOG_LEVEL ??= "silent";

const N = Type.Object({ n: Type.Number() });

const double = defineComponent({
  info: { name: "double", description: "Double", info: "n × 2" },
  agentTool: true,
  ports: () => [target("in", N, { default: { n: 0 } }), source("out", N), source("log", Type.Any())],
  handle: async (_ctx, output, _port, data) => {
    await output("log", { seen: data.n }); // another port: not the answer
    await output("out", { n: data.n * 2 });
    return output("out", { n: -1 }); // a second emit on the output port: ignored
  },
});

const answer = defineComponent({
  info: { name: "answer", description: "Answer", info: "returns instead of emitting" },
  agentTool: { inputPort: "request", outputPort: "result", description: "answers 42" },
  ports: () => [target("request", Type.Object({})), source("result", Type.Any())],
  handle: () => ok({ answer: 42 }),
});

/** Counts calls in its instance state: a fresh instance per call must always say 1. */
const tally = defineComponent({
  info: { name: "tally", description: "Tally", info: "counts its calls" },
  agentTool: true,
  state: () => ({ calls: 0 }),
  ports: () => [target("in", Type.Object({ wait: Type.Number() })), source("out", Type.Any())],
  handle: async (ctx, output, _port, data) => {
    ctx.self.calls++;
    await Bun.sleep(data.wait);
    return output("out", { calls: ctx.self.calls });
  },
});

const broken = defineComponent({
  info: { name: "broken", description: "Broken", info: "declares a port it lacks" },
  agentTool: { inputPort: "request" },
  ports: () => [target("in", Type.Any()), source("out", Type.Any())],
  handle: () => ok(1),
});

const failing = defineComponent({
  info: { name: "failing", description: "Failing", info: "fails" },
  agentTool: true,
  ports: () => [target("in", Type.Any()), source("out", Type.Any())],
  handle: () => fail(new Error("tool said no")),
});

function scheduler(): Scheduler {
  const s = new Scheduler({ module: MODULE });
  for (const d of [double, answer, tally, broken, failing, relay]) s.install(d);
  return s;
}

const call = (s: Scheduler, component: string, data: unknown): Promise<Result> =>
  s.handle({ edgeId: "", from: "", to: component, data: typeof data === "string" ? new TextEncoder().encode(data) : data, depth: 0, mode: "rpc" });

const errorOf = (r: Result) => (r.kind === "fail" ? { code: (r.error as Error & { code?: string }).code, message: r.error.message } : undefined);

describe("rpc mode", () => {
  test("a call answers with the first emit on the tool's output port", async () => {
    expect(await call(scheduler(), "double", '{"n":21}')).toEqual({ kind: "ok", value: { n: 42 } });
  });

  test("a tool that emits nothing answers with what handle returned, on its own ports", async () => {
    expect(await call(scheduler(), "answer", "{}")).toEqual({ kind: "ok", value: { answer: 42 } });
  });

  test("a tool's failure is the call's failure", async () => {
    expect(errorOf(await call(scheduler(), "failing", "{}"))?.message).toBe("tool said no");
  });

  test("an unknown component fails naming it, the module and what is registered", async () => {
    const e = errorOf(await call(scheduler(), "nope", "{}"));
    expect(e?.code).toBe("RPC_UNKNOWN_COMPONENT");
    expect(e?.message).toBe(
      `rpc: component "nope" not registered on this module (module ${MODULE}; registered: answer, broken, double, failing, relay, tally)`,
    );
  });

  test("a component that is not an agent tool fails naming it, in Go's words", async () => {
    const e = errorOf(await call(scheduler(), "relay", '{"context":1}'));
    expect(e?.code).toBe("RPC_NOT_AGENT_TOOL");
    expect(e?.message).toBe('rpc: component "relay" does not opt into AgentTool');
  });

  test("a schema-invalid input fails naming the component, port and field before handle runs", async () => {
    const e = errorOf(await call(scheduler(), "double", '{"n":"x"}'));
    expect(e?.code).toBe("VALIDATION");
    expect(e?.message).toStartWith('rpc: component "double" input port "in": field $.n breaks rule "type"');
    // Go's decode semantics: a missing field is its zero value, not an error.
    expect(await call(scheduler(), "double", "{}")).toEqual(ok({ n: 0 }));
    expect(errorOf(await call(scheduler(), "double", "{nope"))?.message).toStartWith('rpc: component "double" input port "in": payload is not valid JSON');
  });

  test("a tool whose declared input port is missing fails naming the port", async () => {
    const e = errorOf(await call(scheduler(), "broken", "{}"));
    expect(e?.code).toBe("RPC_NO_INPUT_PORT");
    expect(e?.message).toContain('"request"');
  });

  test("concurrent calls each get a fresh instance", async () => {
    const s = scheduler();
    const rs = await Promise.all(Array.from({ length: 20 }, (_, i) => call(s, "tally", { wait: 20 - i })));
    expect(rs).toEqual(Array.from({ length: 20 }, () => ({ kind: "ok", value: { calls: 1 } })));
  });
});

describe("agentTool declaration", () => {
  test("defaults to ports in and out and keeps a description", () => {
    expect(double.agentTool).toEqual({ name: "", description: "", inputPort: "in", outputPort: "out" });
    expect(answer.agentTool).toEqual({ name: "", description: "answers 42", inputPort: "request", outputPort: "result" });
    expect(relay.agentTool).toBeUndefined();
  });

  test("a malformed declaration is rejected naming the field", () => {
    const make = (agentTool: unknown) => () =>
      defineComponent({ info: { name: "t", description: "", info: "" }, agentTool: agentTool as true, ports: () => [], handle: () => ok(1) });
    expect(make({ inputPort: "_settings" })).toThrow("agentTool.inputPort");
    expect(make({ outputPort: 3 })).toThrow("agentTool.outputPort must be a string");
    expect(make("yes")).toThrow("agentTool must be true or an object");
  });
});
