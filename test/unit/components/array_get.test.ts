// array_get: the cases of Go's common-module components/arrayget/arrayget_test.go, plus its ports,
// its error port and its agent-tool call.
import { describe, expect, test } from "bun:test";
import { fail, ok, testComponent, type Result } from "tinyhost";
import arrayGet from "../../../components/array_get.ts";
import { platformListing } from "../../../src/cli/platform-listing.ts";
import { Scheduler } from "../../../src/runtime/scheduler/index.ts";

process.env.TINYHOST_LOG_LEVEL ??= "silent";

const errorOf = (r: Result) => (r.kind === "fail" ? { code: (r.error as Error & { code?: string }).code, message: r.error.message } : undefined);

describe("array_get ports", () => {
  test("Go's names, labels, positions and defaults; error only with enableErrorPort", async () => {
    expect(arrayGet.info).toMatchObject({ name: "array_get", description: "Array Get", tags: ["SDK", "ARRAY"] });
    expect(arrayGet.ports().map((p) => [p.name, p.label, p.source, p.position, p.configuration])).toEqual([
      ["_settings", "Settings", false, "top", { enableErrorPort: false }],
      ["request", "Request", false, "left", { array: ["first", "second", "third"], index: 1 }],
      ["result", "Result", true, "right", { item: "first", index: 1 }],
    ]);
    const h = await testComponent(arrayGet, { settings: { enableErrorPort: true } });
    const error = h.status().ports!.find((p) => p.name === "error");
    expect(error).toMatchObject({ label: "Error", source: true, position: 2 });
    await h.stop();
  });

  test("listed as an agent tool with Go's tool description", () => {
    const listed = platformListing(arrayGet);
    expect(listed.tags).toEqual(["SDK", "ARRAY", "agent_tool"]);
    expect(listed.info).toBe("Get an array element by 1-based index. Input: {array, index}; returns {item, index} or an error if the index is out of range.");
  });
});

describe("array_get", () => {
  test("a valid 1-based index emits the item and returns the downstream result (TestArrayGet_ValidIndex)", async () => {
    const h = await testComponent(arrayGet);
    h.respond("result", () => ok("next"));
    const r = await h.send("request", { array: ["apple", "banana", "cherry"], index: 2 });
    expect(h.emitted).toEqual([{ port: "result", data: { item: "banana", index: 2 } }]);
    expect(r).toEqual(ok("next"));
  });

  test("the first item of a one-item array (TestArrayGet_FirstItem)", async () => {
    const h = await testComponent(arrayGet);
    await h.send("request", { array: ["only"], index: 1 });
    expect(h.emitted).toEqual([{ port: "result", data: { item: "only", index: 1 } }]);
  });

  test("an empty, missing or null array fails (TestArrayGet_EmptyArray, _NilArray)", async () => {
    const h = await testComponent(arrayGet);
    for (const data of [{ array: [], index: 1 }, { index: 1 }, { array: null, index: 1 }]) {
      expect(errorOf(await h.send("request", data))).toEqual({ code: "ARRAY_GET_INDEX", message: "array is empty — run a list command first" });
    }
    expect(h.emitted).toEqual([]);
  });

  test("an index past the end, zero or negative fails with Go's text (TestArrayGet_IndexTooHigh, _IndexZero, _IndexNegative)", async () => {
    const h = await testComponent(arrayGet);
    expect(errorOf(await h.send("request", { array: ["a", "b"], index: 5 }))?.message).toBe("item #5 not found — list has 2 item(s)");
    expect(errorOf(await h.send("request", { array: ["a"], index: 0 }))?.message).toBe("index must be >= 1, got 0");
    expect(errorOf(await h.send("request", { array: ["a"], index: -1 }))?.message).toBe("index must be >= 1, got -1");
    expect(errorOf(await h.send("request", { array: ["a"] }))?.message).toBe("index must be >= 1, got 0"); // missing index decodes as 0
  });

  test("with the error port on, a bad index emits {context, error} there and returns its result (TestArrayGet_ErrorPort)", async () => {
    const h = await testComponent(arrayGet, { settings: { enableErrorPort: true } });
    h.respond("error", () => ok("handled"));
    const r = await h.send("request", { context: { ask: 7 }, array: [], index: 1 });
    expect(r).toEqual(ok("handled"));
    expect(h.emitted).toEqual([{ port: "error", data: { context: { ask: 7 }, error: "array is empty — run a list command first" } }]);
  });

  test("the context passes through; a null context is left out as Go's omitempty does (TestArrayGet_ContextPassthrough)", async () => {
    const h = await testComponent(arrayGet);
    await h.send("request", { context: { key: "value" }, array: ["item"], index: 1 });
    await h.send("request", { context: null, array: [{ deep: [1] }], index: 1 });
    expect(h.emitted).toEqual([
      { port: "result", data: { context: { key: "value" }, item: "item", index: 1 } },
      { port: "result", data: { item: { deep: [1] }, index: 1 } },
    ]);
  });

  test("a downstream failure is returned as is (TestArrayGet_HandlerErrorPropagation)", async () => {
    const h = await testComponent(arrayGet);
    const downstream = new Error("downstream error");
    h.respond("result", () => fail(downstream));
    const r = await h.send("request", { array: ["item"], index: 1 });
    expect(r.kind === "fail" && r.error).toBe(downstream);
  });

  test("called as an agent tool: request in, result out, a fresh instance without settings", async () => {
    const s = new Scheduler({ module: "common" });
    s.install(arrayGet);
    const call = (data: string) => s.handle({ edgeId: "", from: "", to: "array_get", data: new TextEncoder().encode(data), depth: 0, mode: "rpc" });
    expect(await call('{"array":["a","b"],"index":2}')).toEqual(ok({ item: "b", index: 2 }));
    expect(errorOf(await call('{"array":["a"],"index":3}'))?.message).toBe("item #3 not found — list has 1 item(s)");
  });
});
