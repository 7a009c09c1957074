import { describe, expect, test } from "bun:test";
import { HopGate } from "../../../src/operator/hop-gate.ts";
import { ok, type Result } from "../../../src/core/result.ts";
import { errorCode, shouldRetry } from "../../../src/core/errors.ts";
import type { Msg } from "../../../src/core/hop.ts";

const msg: Msg = { edgeId: "", from: "", to: "h.m.c-1:in", data: {}, depth: 0 };

describe("hop gate (shutdown drain)", () => {
  test("drain waits for in-flight hops and refuses new ones with a retryable SHUTTING_DOWN", async () => {
    const release = Promise.withResolvers<Result>();
    const gate = new HopGate();
    const handle = gate.handler(() => release.promise);
    const inflight = handle(msg);
    expect(gate.stats.inFlight).toBe(1);
    const drained = gate.drain(5_000);
    const refused = await handle(msg);
    expect(refused.kind).toBe("fail");
    expect(refused.kind === "fail" && [errorCode(refused.error), shouldRetry(refused.error)]).toEqual(["SHUTTING_DOWN", true]);
    release.resolve(ok(1));
    expect(await inflight).toEqual(ok(1));
    expect(await drained).toBe(0);
    expect(gate.stats).toEqual({ started: 1, failed: 0, refused: 1, inFlight: 0 });
  });

  test("drain returns after its bound with the number of hops still running", async () => {
    const gate = new HopGate();
    void gate.handler(() => new Promise<Result>(() => {}))(msg);
    expect(await gate.drain(20)).toBe(1);
  });
});
