// The edge deadline on remote hops (issue 21): the runner stamps `retryPolicy.timeoutMs` on the hop
// as `deadlineUnixMs` for the wire, and a wire deadline error for that deadline ends the send as
// EDGE_TIMEOUT. The remote transport here is a fake (unit test); the gRPC wire itself is covered by
// test/integration/grpc-deadline.test.ts.
import { describe, expect, test } from "bun:test";
import { fail, ok, type Result } from "tinyhost";
import { EdgeTimeoutError } from "../../../src/runtime/runner/errors.ts";
import { isDeadlineOf } from "../../../src/runtime/runner/retry.ts";
import { Scheduler } from "../../../src/runtime/scheduler/index.ts";
import { GrpcCallError, GrpcDeadlineError } from "../../../src/transport/grpc/errors.ts";
import type { Msg, Transport } from "../../../src/core/hop.ts";
import { makeNode, MODULE, nodeName, relay } from "../../support/fake-components.ts";

process.env.TINYHOST_LOG_LEVEL ??= "silent";

const REMOTE = "h.othermod.sink-1:in";

/** A remote transport that records each hop and answers with `reply(msg)`. */
function remote(reply: (msg: Msg) => Result): Transport & { sent: Msg[] } {
  const sent: Msg[] = [];
  return { sent, send: (msg) => (sent.push({ ...msg }), Promise.resolve(reply(msg))) };
}

async function schedulerWith(t: Transport, timeoutMs?: number): Promise<Scheduler> {
  const s = new Scheduler({ module: MODULE, debounceMs: 10, readyTimeoutMs: 50, remote: t });
  s.install(relay);
  const node = makeNode("a", "relay", { edges: [{ port: "out", to: "x:in", ...(timeoutMs ? { retryPolicy: { maxAttempts: 1, timeoutMs } } : {}) }] });
  node.spec.edges![0]!.to = REMOTE;
  await s.update(node);
  return s;
}

const hop = (s: Scheduler) => s.handle({ edgeId: "", from: "signal", to: `${nodeName("a")}:in`, data: { context: 1 }, depth: 0 });

describe("edge deadline on remote hops", () => {
  test("an edge with timeoutMs sends its hop with deadlineUnixMs = send time + timeoutMs", async () => {
    const t = remote(() => ok("fine"));
    const s = await schedulerWith(t, 1500);
    const before = Date.now();
    expect(await hop(s)).toEqual({ kind: "ok", value: "fine" });
    const after = Date.now();
    expect(t.sent).toHaveLength(1);
    expect(t.sent[0]!.deadlineUnixMs).toBeGreaterThanOrEqual(before + 1500);
    expect(t.sent[0]!.deadlineUnixMs).toBeLessThanOrEqual(after + 1500);
  });

  test("an edge without timeoutMs sends no deadline (the transport applies its default)", async () => {
    const t = remote(() => ok("fine"));
    const s = await schedulerWith(t);
    await hop(s);
    expect(t.sent[0]!.deadlineUnixMs).toBeUndefined();
  });

  test("the wire's deadline error for the edge's deadline ends the send as EDGE_TIMEOUT, with the wire error as cause", async () => {
    const t = remote((msg) => fail(new GrpcDeadlineError("module othermod (127.0.0.1:1)", 1500, msg.deadlineUnixMs!)));
    const s = await schedulerWith(t, 1500);
    const r = await hop(s);
    expect(r.kind).toBe("fail");
    if (r.kind !== "fail") return;
    expect(r.error).toBeInstanceOf(EdgeTimeoutError);
    expect((r.error as EdgeTimeoutError).code).toBe("EDGE_TIMEOUT");
    expect(r.error.message).toContain(`to ${REMOTE}: timed out after 1500 ms`);
    expect((r.error.cause as GrpcDeadlineError).code).toBe("GRPC_DEADLINE_EXCEEDED");
  });

  test("a deadline error for another deadline (the remote's own) stays what it is", async () => {
    const t = remote((msg) => fail(new GrpcDeadlineError("module othermod", 10, msg.deadlineUnixMs! - 1000)));
    const s = await schedulerWith(t, 1500);
    const r = await hop(s);
    expect(r.kind === "fail" && (r.error as GrpcCallError).code).toBe("GRPC_DEADLINE_EXCEEDED");
  });
});

describe("isDeadlineOf", () => {
  test("matches a timeout carrying the deadline, also down the cause chain; not a cancel with the same field", () => {
    const d = 1_700_000_000_000;
    expect(isDeadlineOf(new GrpcDeadlineError("m", 5, d), d)).toBe(true);
    expect(isDeadlineOf(new Error("wrapped", { cause: new GrpcDeadlineError("m", 5, d) }), d)).toBe(true);
    expect(isDeadlineOf(new GrpcDeadlineError("m", 5, d + 1), d)).toBe(false);
    const cancel = Object.assign(new GrpcCallError(1, "CANCELLED", "cancelled"), { deadlineUnixMs: d });
    expect(isDeadlineOf(cancel, d)).toBe(false);
  });
});
