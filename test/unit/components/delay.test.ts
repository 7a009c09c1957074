import { describe, expect, test } from "bun:test";
import { ok, testComponent } from "tinyhost";
import delay from "../../../components/delay.ts";

process.env.TINYHOST_LOG_LEVEL ??= "silent";

describe("delay ports", () => {
  test("declares in (left) and out (right) with Go's labels, a required delay defaulting to 1000 ms and a configurable context", () => {
    const [input, out] = delay.ports();
    expect([input!.name, input!.label, input!.source, input!.position]).toEqual(["in", "In", false, "left"]);
    expect([out!.name, out!.label, out!.source, out!.position]).toEqual(["out", "Out", true, "right"]);
    expect(input!.configuration).toEqual({ context: null, delay: 1000 });
    const schema = JSON.parse(JSON.stringify(input!.schema));
    expect(schema.required).toEqual(["delay"]);
    expect(schema.properties.delay.type).toBe("integer");
    expect(schema.properties.context.configurable).toBe(true);
  });
});

describe("delay", () => {
  test("waits, then emits {context} on out and returns the downstream result", async () => {
    const h = await testComponent(delay);
    h.respond("out", (d) => ok({ got: d }));
    const r = await h.send("in", { context: { id: 7 }, delay: 5 });
    expect(h.emitted).toEqual([{ port: "out", data: { context: { id: 7 } } }]);
    expect(r).toEqual({ kind: "ok", value: { got: { context: { id: 7 } } } });
  });

  test("a hop cancelled during the wait fails with CANCELLED and never emits", async () => {
    const h = await testComponent(delay);
    const caller = new AbortController();
    const pending = h.send("in", { context: 1, delay: 10_000 }, caller.signal);
    await Bun.sleep(5);
    caller.abort(new Error("client went away"));
    const r = await pending;
    expect(r.kind === "fail" && [(r.error as Error & { code: string }).code, r.error.message]).toEqual(["CANCELLED", "delay cancelled: client went away"]);
    expect(h.emitted).toEqual([]);
  });

  test("a delay past setTimeout's 2^31−1 ms limit (≈ 24.8 days) waits instead of firing at once", async () => {
    const h = await testComponent(delay);
    const caller = new AbortController();
    const pending = h.send("in", { context: 1, delay: 2 ** 31 + 5 }, caller.signal);
    await Bun.sleep(100); // Bun clamps an overflowing setTimeout to 1 ms
    expect(h.emitted).toEqual([]);
    caller.abort(new Error("done waiting"));
    expect((await pending).kind).toBe("fail");
  });

  test("a hop already cancelled before it arrives never emits", async () => {
    const h = await testComponent(delay);
    const caller = new AbortController();
    caller.abort(new Error("gone"));
    const r = await h.send("in", { context: 1, delay: 1 }, caller.signal);
    expect(r.kind).toBe("fail");
    expect(h.emitted).toEqual([]);
  });

  test("a delay of zero or less fails with INVALID_DELAY naming the value", async () => {
    const h = await testComponent(delay);
    const r = await h.send("in", { context: 1, delay: 0 });
    expect(r.kind === "fail" && [(r.error as Error & { code: string }).code, r.error.message]).toEqual([
      "INVALID_DELAY",
      'invalid delay: field "delay" must be > 0 ms, got 0',
    ]);
    expect(h.emitted).toEqual([]);
  });

  test("a message without a delay decodes it as 0 and fails as an invalid delay, as in Go", async () => {
    const h = await testComponent(delay);
    const r = await h.send("in", { context: 1 });
    expect(r.kind === "fail" && (r.error as Error & { code: string }).code).toBe("INVALID_DELAY");
    expect(h.emitted).toEqual([]);
  });

  test("a delay given as a string fails the hop naming the field and the value", async () => {
    const h = await testComponent(delay);
    const r = await h.send("in", { delay: "5" });
    expect(r.kind === "fail" && (r.error as Error & { code: string }).code).toBe("VALIDATION");
    expect(r.kind === "fail" && r.error.message).toContain('$.delay must be an integer, got string "5"');
  });
});
