/**
 * run_start and run_status (common-module runstart, runstatus): run_start begins a durable run,
 * sends the context on `out` as its first step and answers `{context, runID}` on `started`;
 * run_status reads that run back from the step ledger. The four cases of Go's runstatus_test.go
 * (unknown, in progress, complete, failed) over seeded ledger records, then both components in one
 * real scheduler without JetStream (ledger in node metadata). On JetStream, across replicas and
 * restarts: test/integration/run-start-status.test.ts.
 */
import { describe, expect, test } from "bun:test";
import { defineComponent, ok, target, Type, type StepRecord } from "tinyhost";
import runStart from "../../../components/run_start.ts";
import runStatusComponent, { runStatus } from "../../../components/run_status.ts";
import { viewRun } from "../../../src/core/durable/view.ts";
import { Scheduler } from "../../../src/runtime/scheduler/index.ts";
import { flaky, makeNode, MODULE, nodeName, relay, sink } from "../../support/fake-components.ts";

process.env.TINYHOST_LOG_LEVEL ??= "silent";

const at = "2026-07-30T00:00:00.120Z";
const rec = (node: string, status: "done" | "failed", emits: string[] = [], error?: string): StepRecord => ({
  node,
  status,
  ...(error ? { error } : {}),
  ...(emits.length ? { emits: emits.map((stepKey) => ({ to: "f.m.b:in", from: "f.m.a:out", edgeID: "e", stepKey, data: "" })) } : {}),
  completedAt: at,
});
/** A null context is omitted from the answer, as Go's `omitempty` on an interface does. */
const status = (records: [string, StepRecord][]) => runStatus("r1", viewRun("r1", new Map(records)), null);

describe("run_status over ledger records (Go runstatus_test.go)", () => {
  test("an unknown run is not found, not complete, not failed", () => {
    expect(status([])).toEqual({ runID: "r1", found: false, complete: false, failed: false, pendingSteps: 0 });
  });

  test("a run whose root emitted a hop with no record yet is in progress with 1 pending step", () => {
    expect(status([["r1.root", rec("a", "done", ["SK1"])]])).toEqual({
      runID: "r1",
      found: true,
      complete: false,
      failed: false,
      pendingSteps: 1,
      steps: [{ stepKey: "r1.root", node: "a", status: "done", completedAt: "2026-07-30T00:00:00.12Z" }],
    });
  });

  test("a run whose every emitted hop has a record is complete", () => {
    const r = status([
      ["r1.root", rec("a", "done", ["SK1"])],
      ["SK1", rec("b", "done")],
    ]);
    expect(r).toMatchObject({ found: true, complete: true, failed: false, pendingSteps: 0 });
    expect(r.steps).toHaveLength(2);
  });

  test("steps are listed oldest completion first, with Go's time format (deliberate: Go lists them in step-key order)", () => {
    const r = status([
      ["r1.zz", { ...rec("b", "done"), completedAt: "2026-07-30T00:00:02.500Z" }],
      ["r1.root", { ...rec("a", "done", ["r1.zz"]), completedAt: "2026-07-30T00:00:01.000Z" }],
    ]);
    expect(r.steps!.map((x) => [x.stepKey, x.completedAt])).toEqual([
      ["r1.root", "2026-07-30T00:00:01Z"],
      ["r1.zz", "2026-07-30T00:00:02.5Z"],
    ]);
  });

  test("a failed step makes the run failed, not complete, and surfaces its error", () => {
    const r = status([
      ["r1.root", rec("a", "done", ["SK1"])],
      ["SK1", rec("b", "failed", [], "boom")],
    ]);
    expect(r).toMatchObject({ found: true, complete: false, failed: true });
    expect(r.steps!.find((s) => s.status === "failed")).toMatchObject({ stepKey: "SK1", error: "boom" });
  });
});

/** Answers each message with `ok(message)`: what a caller up the chain gets back. */
const echo = defineComponent({
  info: { name: "echo", description: "Echo", info: "answers with what it got" },
  ports: () => [target("in", Type.Any())],
  handle: (_ctx, _output, _port, data) => ok(data),
});

/** door (run_start) → a (relay) → b (sink, or flaky failing permanently); door.started → ans; st (run_status) → cap. */
async function flow(last: "sink" | "flaky"): Promise<Scheduler> {
  const s = new Scheduler({ module: MODULE, debounceMs: 5, readyTimeoutMs: 50 });
  for (const d of [runStart, runStatusComponent, relay, sink, flaky, echo]) s.install(d);
  await s.update(
    makeNode("door", "run_start", {
      edges: [
        { port: "out", to: "a:in", id: "e-door-a" },
        { port: "started", to: "ans:in", id: "e-door-ans" },
      ],
    }),
  );
  await s.update(
    makeNode("a", "relay", {
      edges: [{ port: "out", to: "b:in", id: "e-a-b" }],
      ports: [{ from: "door:out", port: "in", config: { context: "{{$.context}}" } }],
    }),
  );
  const bConfig = last === "sink" ? { value: "{{$.context.n}}" } : { kind: "permanent", failTimes: 1 };
  await s.update(makeNode("b", last, { ports: [{ from: "a:out", port: "in", config: bConfig }] }));
  await s.update(makeNode("ans", "echo", { ports: [{ from: "door:started", port: "in", config: "{{$}}" }] }));
  await s.update(makeNode("st", "run_status", { edges: [{ port: "response", to: "cap:in", id: "e-st-cap" }] }));
  await s.update(makeNode("cap", "echo", { ports: [{ from: "st:response", port: "in", config: "{{$}}" }] }));
  return s;
}

const send = (s: Scheduler, to: string, data: unknown) =>
  s.handle({ edgeId: "", from: "signal", to: `${nodeName(to.split(":")[0]!)}:${to.split(":")[1]}`, data, depth: 0 });

/** What run_status answers for `runId`. */
async function poll(s: Scheduler, runId: string, context: unknown = "poll"): Promise<any> {
  const r = await send(s, "st:request", { context, runID: runId });
  expect(r.kind).toBe("ok");
  return (r as { value: unknown }).value;
}

describe("run_start + run_status in one module without JetStream", () => {
  test("run_start answers {context, runID} once the run's first step was sent; run_status reads the run done", async () => {
    const s = await flow("sink");
    const started = await send(s, "door:in", { context: { n: 7 } });
    expect(started.kind).toBe("ok");
    const answer = (started as { value: { context: unknown; runID: string } }).value;
    expect(answer.context).toEqual({ n: 7 });
    expect(answer.runID).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);

    const seen = await poll(s, answer.runID);
    expect(seen).toMatchObject({ context: "poll", runID: answer.runID, found: true, complete: true, failed: false, pendingSteps: 0 });
    expect(seen.steps.map((x: { node: string }) => x.node).sort()).toEqual([nodeName("a"), nodeName("b"), nodeName("door")].sort());
    expect(seen.steps.every((x: { status: string; completedAt: string }) => x.status === "done" && !Number.isNaN(Date.parse(x.completedAt)))).toBe(true);
    await s.stopAll();
  });

  test("a step that fails permanently makes the run failed and surfaces its error", async () => {
    const s = await flow("flaky");
    const started = await send(s, "door:in", { context: { n: 1 } });
    // without JetStream the run's hops block: run_start returns the failure of its first step's chain
    expect(started.kind).toBe("fail");
    const keys = await s.runner(nodeName("door"))!.state.list("step/");
    expect(keys).toHaveLength(1);
    const seen = await poll(s, keys[0]!.slice("step/".length, -".root".length));
    expect(seen).toMatchObject({ found: true, complete: false, failed: true });
    expect(seen.steps.find((x: { node: string }) => x.node === nodeName("b"))).toMatchObject({ status: "failed", error: "boom 1" });
    await s.stopAll();
  });

  test("an empty runID fails the hop naming the field; an unknown one is not found", async () => {
    const s = await flow("sink");
    const r = await send(s, "st:request", { runID: "" });
    expect(r.kind === "fail" && r.error.message).toBe('runID is required, got ""');
    expect(await poll(s, "no-such-run", null)).toEqual({ runID: "no-such-run", found: false, complete: false, failed: false, pendingSteps: 0 });
    await s.stopAll();
  });
});
