import { describe, expect, test } from "bun:test";
import { childStepKey, currentRun, fnv1a64Hex, isReplyHop, mintRun, RunContext, withRun } from "../../../src/core/durable/run.ts";

describe("durable run identity (runtime-spec §1.7)", () => {
  test("FNV-1a 64 matches the reference vectors", () => {
    expect(fnv1a64Hex("")).toBe("cbf29ce484222325");
    expect(fnv1a64Hex("a")).toBe("af63dc4c8601ec8c");
    expect(fnv1a64Hex("foobar")).toBe("85944171f73967e8");
  });

  test("a child step key is <runID>. + 16 hex of FNV-1a-64(parent|edge|n)", () => {
    expect(childStepKey("r", "r.root", "e1", 0)).toBe(`r.${fnv1a64Hex("r.root|e1|0")}`);
    expect(childStepKey("r", "r.root", "e1", 0)).toMatch(/^r\.[0-9a-f]{16}$/);
  });

  test("repeated emits on one edge count 0, 1, 2 per step; edges count separately", () => {
    const run = new RunContext({ runId: "r", stepKey: "r.root" });
    expect([run.nextStepKey("e"), run.nextStepKey("e"), run.nextStepKey("f")]).toEqual([
      childStepKey("r", "r.root", "e", 0),
      childStepKey("r", "r.root", "e", 1),
      childStepKey("r", "r.root", "f", 0),
    ]);
  });

  test("a minted run has a UUID v4 id and root step key", () => {
    const run = mintRun();
    expect(run.runId).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(run.stepKey).toBe(`${run.runId}.root`);
  });

  test("the current run follows the async chain, nests, and ends with its scope", async () => {
    expect(currentRun()).toBeUndefined();
    const outer = mintRun();
    const inner = mintRun();
    await withRun(outer, async () => {
      await Bun.sleep(1);
      expect(currentRun()).toBe(outer);
      await withRun(inner, async () => {
        await Bun.sleep(1);
        expect(currentRun()).toBe(inner);
      });
      expect(currentRun()).toBe(outer);
    });
    expect(currentRun()).toBeUndefined();
    expect(() =>
      withRun(outer, () => {
        throw new Error("boom");
      }),
    ).toThrow("boom");
    expect(currentRun()).toBeUndefined();
  });

  test("stamping a hop gives it the run id, the next child step key and the reply fields, and leaves the hop alone", () => {
    const run = new RunContext({ runId: "r", stepKey: "r.root", replySubject: "_INBOX.9", replyTarget: "h.m.door-1:reply", replyDeadlineUnixMs: 42 });
    const hop = { edgeId: "e1", from: "h.m.a-1:out", to: "h.m.b-1:in", data: { n: 1 }, depth: 1 };
    const a = run.stamp(hop);
    const b = run.stamp(hop);
    expect(a).toMatchObject({
      ...hop,
      runId: "r",
      stepKey: childStepKey("r", "r.root", "e1", 0),
      replySubject: "_INBOX.9",
      replyTarget: "h.m.door-1:reply",
      replyDeadlineUnixMs: 42,
    });
    expect(b.stepKey).toBe(childStepKey("r", "r.root", "e1", 1));
    expect(hop).not.toHaveProperty("runId");
    expect(isReplyHop(a)).toBe(false);
    expect(isReplyHop(run.stamp({ ...hop, to: "h.m.door-1:reply" }))).toBe(true);
  });

  test("a reply hop is the hop to the reply target when a reply subject exists", () => {
    const run = new RunContext({ runId: "r", stepKey: "r.root", replySubject: "_INBOX.1", replyTarget: "n:reply" });
    expect(run.isReplyHop("n:reply")).toBe(true);
    expect(run.isReplyHop("n:other")).toBe(false);
    expect(new RunContext({ runId: "r", stepKey: "s", replyTarget: "n:reply" }).isReplyHop("n:reply")).toBe(false);
  });
});
