import { describe, expect, test } from "bun:test";
import {
  coded,
  defineComponent,
  empty,
  errorPayload,
  fail,
  isComponentDefinition,
  isTimeout,
  ok,
  permanent,
  retryable,
  shouldRetry,
  source,
  target,
  testComponent,
  Type,
} from "tinyhost";

process.env.TINYHOST_LOG_LEVEL ??= "silent";

const double = defineComponent({
  info: { name: "double", description: "Double", info: "n × factor" },
  state: () => ({ factor: 2 }),
  ports: () => [
    target("_settings", Type.Object({ factor: Type.Number() }), { default: { factor: 2 } }),
    target("in", Type.Object({ n: Type.Number() }), { default: { n: 0 } }),
    source("out", Type.Object({ n: Type.Number() })),
  ],
  onSettings: (ctx, s) => void (ctx.self.factor = s.factor),
  handle: (ctx, output, _port, data) => output("out", { n: data.n * ctx.self.factor }),
});

describe("errors", () => {
  test("plain errors are not retryable (default-deny)", () => {
    expect(shouldRetry(new Error("x"))).toBe(false);
  });
  test("a retryable marking anywhere in the cause chain makes an error retryable", () => {
    expect(shouldRetry(new Error("outer", { cause: retryable(new Error("inner")) }))).toBe(true);
  });
  test("permanent beats retryable", () => {
    expect(shouldRetry(permanent(retryable(new Error("x"))))).toBe(false);
  });
  test("coded errors carry the code and prefix the message", () => {
    const e = coded("RATE", new Error("slow down"));
    expect([e.code, e.message, shouldRetry(e)]).toEqual(["RATE", "RATE: slow down", false]);
  });
  test("retryable(null) stays null", () => {
    expect(retryable(null)).toBeNull();
  });
  test("isTimeout: a timeout code or a DOM TimeoutError anywhere in the cause chain; a cancel is not one", () => {
    const withCode = (code: string) => Object.assign(new Error(code), { code });
    expect(isTimeout(withCode("GRPC_DEADLINE_EXCEEDED"))).toBe(true);
    expect(isTimeout(withCode("EDGE_TIMEOUT"))).toBe(true);
    expect(isTimeout(new Error("outer", { cause: withCode("REQUEST_TIMEOUT") }))).toBe(true);
    expect(isTimeout(new DOMException("t", "TimeoutError"))).toBe(true);
    expect(isTimeout(withCode("GRPC_CANCELLED"))).toBe(false);
    expect(isTimeout(new Error("plain"))).toBe(false);
    expect(isTimeout("EDGE_TIMEOUT")).toBe(false);
  });
  test("errorPayload builds the canonical {context, error, retryable}", () => {
    expect(errorPayload(retryable(new Error("down")), { id: 1 })).toEqual({ context: { id: 1 }, error: "down", retryable: true });
  });
});

describe("results", () => {
  test("fail(null) is the empty result", () => {
    expect(fail(null)).toBe(empty);
  });
  test("fail wraps a string as an Error", () => {
    const r = fail("nope");
    expect(r.kind === "fail" && r.error.message).toBe("nope");
  });
});

describe("defineComponent", () => {
  test("rejects an empty name", () => {
    expect(() => defineComponent({ info: { name: "", description: "", info: "" }, ports: () => [], handle: () => {} })).toThrow("info.name");
  });
  test("isComponentDefinition accepts definitions and rejects look-alikes", () => {
    expect(isComponentDefinition(double)).toBe(true);
    expect(isComponentDefinition({ info: { name: "double" }, instance() {}, ports() {} })).toBe(false);
  });
  test("ports() lists a fresh instance's ports with defaults from the schema", () => {
    expect(double.ports().map((p) => [p.name, p.source, p.position, p.configuration])).toEqual([
      ["_settings", false, "top", { factor: 2 }],
      ["in", false, "left", { n: 0 }],
      ["out", true, "right", { n: 0 }],
    ]);
  });
  test("each instance gets its own state", () => {
    const a = double.instance();
    const b = double.instance();
    (a.self as { factor: number }).factor = 9;
    expect((b.self as { factor: number }).factor).toBe(2);
  });
});

describe("testComponent", () => {
  test("captures emits and returns the downstream reply", async () => {
    const h = await testComponent(double, { settings: { factor: 3 } });
    h.respond("out", (d) => ok({ echoed: d }));
    const r = await h.send("in", { n: 2 });
    expect(h.emitted).toEqual([{ port: "out", data: { n: 6 } }]);
    expect(r).toEqual({ kind: "ok", value: { echoed: { n: 6 } } });
  });
  test("rejects data that breaks the port schema", async () => {
    const h = await testComponent(double);
    const r = await h.send("in", { n: "two" });
    expect(r.kind === "fail" && (r.error as Error & { code: string }).code).toBe("VALIDATION");
    expect(h.emitted).toEqual([]);
  });
});
