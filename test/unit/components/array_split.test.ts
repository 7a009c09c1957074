import { describe, expect, test } from "bun:test";
import { fail, ok, testComponent } from "tinyhost";
import arraySplit from "../../../components/array_split.ts";

process.env.TINYHOST_LOG_LEVEL ??= "silent";

describe("array_split ports", () => {
  test("declares in (left) and out (right) with Go's names, labels and defaults", () => {
    expect(arraySplit.info).toMatchObject({ name: "array_split", description: "Split Array", tags: ["SDK", "ARRAY"] });
    expect(arraySplit.ports().map((p) => [p.name, p.label, p.source, p.position, p.configuration])).toEqual([
      ["in", "In", false, "left", { context: null, array: null }],
      ["out", "Out", true, "right", { context: null, item: null, index: 0, total: 0 }],
    ]);
  });

  test("array is required and shared, context configurable, item shared", () => {
    const [input, out] = arraySplit.ports().map((p) => JSON.parse(JSON.stringify(p.schema)));
    expect(input.required).toEqual(["array"]);
    expect(input.properties.array).toMatchObject({ shared: true });
    expect(input.properties.context.configurable).toBe(true);
    expect(out.properties.item.shared).toBe(true);
    expect(Object.keys(out.properties)).toEqual(["context", "item", "index", "total"]);
  });
});

describe("array_split", () => {
  test("emits every element in order with context, index and total, then returns an empty result", async () => {
    const h = await testComponent(arraySplit);
    h.respond("out", () => ok("ignored"));
    const r = await h.send("in", { context: { run: 1 }, array: ["a", { b: 2 }, 3] });
    expect(h.emitted).toEqual([
      { port: "out", data: { context: { run: 1 }, item: "a", index: 0, total: 3 } },
      { port: "out", data: { context: { run: 1 }, item: { b: 2 }, index: 1, total: 3 } },
      { port: "out", data: { context: { run: 1 }, item: 3, index: 2, total: 3 } },
    ]);
    expect(r).toEqual({ kind: "empty" });
  });

  test("sends the next element only after the previous downstream returned", async () => {
    const h = await testComponent(arraySplit);
    let inFlight = 0;
    let maxInFlight = 0;
    h.respond("out", async () => {
      maxInFlight = Math.max(maxInFlight, ++inFlight);
      await Bun.sleep(1);
      inFlight--;
      return ok(null);
    });
    await h.send("in", { context: null, array: [1, 2, 3, 4] });
    expect(h.emitted.length).toBe(4);
    expect(maxInFlight).toBe(1);
  });

  test("stops at the first failed result and returns it", async () => {
    const h = await testComponent(arraySplit);
    h.respond("out", (d) => ((d as { index: number }).index === 1 ? fail(new Error("item 1 broke")) : ok(null)));
    const r = await h.send("in", { context: null, array: ["x", "y", "z"] });
    expect(r.kind === "fail" && r.error.message).toBe("item 1 broke");
    expect(h.emitted.map((e) => (e.data as { item: string }).item)).toEqual(["x", "y"]);
  });

  test("an empty array emits nothing and returns an empty result", async () => {
    const h = await testComponent(arraySplit);
    const r = await h.send("in", { context: 1, array: [] });
    expect(r).toEqual({ kind: "empty" });
    expect(h.emitted).toEqual([]);
  });

  test("a null array (Go's nil slice) emits nothing", async () => {
    const h = await testComponent(arraySplit);
    const r = await h.send("in", { context: 1, array: null });
    expect(r).toEqual({ kind: "empty" });
    expect(h.emitted).toEqual([]);
  });

  test("a message without an array emits nothing (Go decodes the missing slice as nil)", async () => {
    const h = await testComponent(arraySplit);
    const r = await h.send("in", { context: 1 });
    expect(r).toEqual({ kind: "empty" });
    expect(h.emitted).toEqual([]);
  });

  test("an array that is not a list fails the hop naming the field and the value", async () => {
    const h = await testComponent(arraySplit);
    const r = await h.send("in", { array: "abc" });
    expect(r.kind === "fail" && (r.error as Error & { code: string }).code).toBe("VALIDATION");
    expect(r.kind === "fail" && r.error.message).toContain('$.array must be an array, got string "abc"');
  });
});
