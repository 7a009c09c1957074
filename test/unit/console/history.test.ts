import { describe, expect, test } from "bun:test";
import { HopHistory, hopEvent, matches } from "../../../src/console/history.ts";
import type { HopRecord } from "../../../src/local/hop-watch.ts";
import { TinyError } from "../../../src/core/errors.ts";

function rec(over: Partial<HopRecord> = {}): HopRecord {
  return {
    node: "h.m.a-1",
    port: "in",
    from: "h.m.b-1:out",
    edgeId: "e1",
    data: '{"n":1}',
    result: { kind: "empty" },
    error: undefined,
    expressionErrors: [],
    startedAt: 1000,
    durationMs: 1.23456,
    ...over,
  };
}

describe("hopEvent", () => {
  test("an ok hop carries its value; a failed one its message and code; durations keep 3 decimals", () => {
    expect(hopEvent(rec({ result: { kind: "ok", value: '{"x":1}' } }), 7)).toEqual({
      seq: 7,
      at: 1000,
      node: "h.m.a-1",
      port: "in",
      from: "h.m.b-1:out",
      edge: "e1",
      data: '{"n":1}',
      result: "ok",
      value: '{"x":1}',
      ms: 1.235,
    });
    const failed = hopEvent(rec({ result: { kind: "fail" }, error: new TinyError("VALIDATION", "bad n"), expressionErrors: ["e"] }), 8);
    expect([failed.result, failed.error, failed.code, failed.expressionErrors, failed.value]).toEqual(["fail", "bad n", "VALIDATION", ["e"], undefined]);
  });
});

describe("HopHistory", () => {
  test("keeps only the last `capacity` hops, numbered in order, so memory stays flat", () => {
    const h = new HopHistory(3);
    for (let i = 0; i < 10; i++) h.add(rec({ data: String(i) }));
    expect(h.seq).toBe(10);
    expect(h.list().map((e) => [e.seq, e.data])).toEqual([
      [8, "7"],
      [9, "8"],
      [10, "9"],
    ]);
    expect(h.oldest()).toBe(8);
  });

  test("list filters by node (into it or sent by it), by edge, and after a sequence number", () => {
    const h = new HopHistory(10);
    h.add(rec({ node: "x", from: "signal", edgeId: "" }));
    h.add(rec({ node: "y", from: "x:out", edgeId: "x-y" }));
    h.add(rec({ node: "z", from: "y:out", edgeId: "y-z" }));
    expect(h.list({ node: "x" }).map((e) => e.seq)).toEqual([1, 2]);
    expect(h.list({ edge: "y-z" }).map((e) => e.seq)).toEqual([3]);
    expect(h.list({}, 1).map((e) => e.seq)).toEqual([2, 3]);
    expect(h.list({}, 0, 1).map((e) => e.seq)).toEqual([3]);
    expect(matches(h.list()[1]!, { node: "y", edge: "y-z" })).toBe(false);
  });

  test("remembers each node's last hop error until forgotten; cancellations are not errors", () => {
    const h = new HopHistory(10);
    h.add(rec({ error: new Error("first"), startedAt: 5 }));
    h.add(rec({ error: new TinyError("CANCELLED", "gone") }));
    expect(h.lastError("h.m.a-1")).toEqual({ port: "in", from: "h.m.b-1:out", message: "first", at: 5 });
    h.forget("h.m.a-1");
    expect(h.lastError("h.m.a-1")).toBeUndefined();
  });

  test("subscribers hear every added hop until they unsubscribe", () => {
    const h = new HopHistory(10);
    const seen: number[] = [];
    const off = h.subscribe((e) => seen.push(e.seq));
    h.add(rec());
    off();
    h.add(rec());
    expect(seen).toEqual([1]);
  });
});
