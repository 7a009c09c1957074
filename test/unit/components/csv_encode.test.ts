/**
 * csv_encode, from the Go component's own tests (encoding-module
 * components/csv/encode/encode_test.go, ported case by case) plus cells Go writes with fmt and hostile values.
 */
import { describe, expect, test } from "bun:test";
import { testComponent } from "tinyhost";
import csvEncode from "../../../components/csv_encode.ts";
import csvDecode from "../../../components/csv_decode.ts";

process.env.TINYHOST_LOG_LEVEL ??= "silent";

type Out = { context?: unknown; encoded: string; columns: string[]; count: number };
const unb64 = (s: string) => JSON.parse(Buffer.from(s, "base64").toString("utf8"));

async function run(rows: unknown, settings: Record<string, unknown> = {}, context?: unknown) {
  const h = await testComponent(csvEncode, { settings: { delimiter: "comma", ...settings } });
  const result = await h.send("request", context === undefined ? { rows } : { context, rows });
  return { result, emitted: h.emitted };
}

async function encoded(rows: unknown, settings: Record<string, unknown> = {}): Promise<Out> {
  const { result, emitted } = await run(rows, settings);
  expect(result.kind).not.toBe("fail");
  expect(emitted.map((e) => e.port)).toEqual(["response"]);
  return emitted[0]!.data as Out;
}

const lines = (out: Out) => out.encoded.replace(/\n$/, "").split("\n");

describe("csv_encode (Go encode_test.go)", () => {
  test("a header and a row per object", async () => {
    const out = await encoded([
      { name: "api-1", restarts: 0 },
      { name: "api-2", restarts: 7 },
    ]);
    expect(out).toEqual({ encoded: "name,restarts\napi-1,0\napi-2,7\n", columns: ["name", "restarts"], count: 2 });
  });

  test("values needing quotes survive, and decode back to themselves", async () => {
    const row = { a: "Smith, John", b: 'he said "hi"', c: "line one\nline two" };
    const out = await encoded([row]);
    expect(out.encoded).toBe('a,b,c\n"Smith, John","he said ""hi""","line one\nline two"\n');
    const d = await testComponent(csvDecode, { settings: { delimiter: "comma" } });
    await d.send("request", { encoded: out.encoded });
    expect((d.emitted[0]!.data as { rows: unknown[] }).rows).toEqual([row]);
  });

  test("the column order is stable and sorted without settings", async () => {
    const rows = [{ zebra: "1", apple: "2", mango: "3" }];
    const first = await encoded(rows);
    for (let i = 0; i < 5; i++) expect((await encoded(rows)).encoded).toBe(first.encoded);
    expect(lines(first)[0]).toBe("apple,mango,zebra");
  });

  test("the columns setting fixes the order and drops other fields", async () => {
    const out = await encoded([{ name: "api-1", restarts: 3, internalId: "secret-ish" }], { columns: ["restarts", "name"] });
    expect(out.encoded).toBe("restarts,name\n3,api-1\n");
  });

  test("columns are collected across all rows", async () => {
    expect(lines(await encoded([{ a: "1" }, { a: "2", b: "3" }]))[0]).toBe("a,b");
  });

  test("a missing column becomes an empty cell", async () => {
    expect(lines(await encoded([{ a: "1", b: "2" }, { a: "3" }]))[2]).toBe("3,");
  });

  test("failOnMissing refuses the row, naming it and the column as Go does", async () => {
    const { result } = await run([{ a: "1", b: "2" }, { a: "3" }], { failOnMissing: true });
    expect(result.kind === "fail" && result.error.message).toBe('row 1 has no "b" — an empty cell would read as a value it does not have');
  });

  test("whole numbers without a decimal point; never an exponent", async () => {
    expect(lines(await encoded([{ n: 7, f: 1.5, ok: true, big: 1e21, small: 1e-7 }]))[1]).toBe("1000000000000000000000,1.5,7,true,0.0000001");
  });

  test("null is an empty cell", async () => {
    expect(lines(await encoded([{ a: null, b: "x" }]))[1]).toBe(",x");
  });

  test("lists and objects are written as Go's fmt.Sprint writes them", async () => {
    expect(lines(await encoded([{ l: [1, "x", null, 1e6], m: { b: 2, a: [true] } }]))[1]).toBe("[1 x <nil> 1e+06],map[a:[true] b:2]");
  });

  test("omitHeader writes rows only and still reports the columns", async () => {
    const out = await encoded([{ a: "1" }], { omitHeader: true });
    expect(out).toEqual({ encoded: "1\n", columns: ["a"], count: 1 });
  });

  test("the delimiter setting", async () => {
    expect(lines(await encoded([{ a: "1", b: "2" }], { delimiter: "semicolon" }))[1]).toBe("1;2");
    expect(lines(await encoded([{ a: "1", b: "2" }], { delimiter: "tab" }))[1]).toBe("1\t2");
    expect(lines(await encoded([{ a: "x|y", b: "2" }], { delimiter: "pipe" }))[1]).toBe('"x|y"|2');
  });

  test("a row that is not an object is refused with Go's type name", async () => {
    for (const [row, type] of [
      ["just a string", "string"],
      [42, "float64"],
      [null, "<nil>"],
      [[1], "[]interface {}"],
      [true, "bool"],
    ] as const) {
      const { result } = await run([{ a: 1 }, row]);
      expect(result.kind === "fail" && result.error.message).toBe(`row 1 is ${type}, not an object — csv_encode writes objects as rows, one key per column`);
    }
  });

  test("no rows with columns is a header-only file; no rows and no columns is empty", async () => {
    expect(await encoded([], { columns: ["a", "b"] })).toEqual({ encoded: "a,b\n", columns: ["a", "b"], count: 0 });
    expect(await encoded(null)).toEqual({ encoded: "\n", columns: [], count: 0 });
  });

  test("the context is carried", async () => {
    const { emitted } = await run([{ a: "1" }], {}, { reportId: "r1" });
    expect((emitted[0]!.data as Out).context).toEqual({ reportId: "r1" });
  });

  test("with the error port a refusal is emitted there", async () => {
    const { result, emitted } = await run([42], { enableErrorPort: true });
    expect(result.kind).not.toBe("fail");
    expect(emitted).toEqual([{ port: "error", data: { error: "row 0 is float64, not an object — csv_encode writes objects as rows, one key per column" } }]);
  });
});

describe("csv_encode: hostile values", () => {
  test("leading spaces, a lone \\. and CRs are quoted; keys sort by Go's byte order", async () => {
    const out = await encoded([{ "\uffff": " lead", "😀": "\\.", a: "cr\rhere" }]);
    expect(out.encoded).toBe('a,\uffff,😀\n"cr\rhere"," lead","\\."\n');
  });

  test("a 4 MiB cell and 20000 rows", async () => {
    const big = await encoded([{ a: "x".repeat(4 * 1024 * 1024) }]);
    expect(big.encoded.length).toBe(2 + 4 * 1024 * 1024 + 1);
    const many = await encoded(Array.from({ length: 20000 }, (_, i) => ({ i })));
    expect([many.count, lines(many).length]).toEqual([20000, 20001]);
  });
});

describe("csv_encode ports", () => {
  test("Go's zero settings and default configurations; agent tool on request → response", async () => {
    const h = await testComponent(csvEncode);
    const ports = h.status().ports!;
    expect(ports.map((p) => p.name)).toEqual(["_settings", "request", "response"]);
    expect(unb64(ports.find((p) => p.name === "_settings")!.configuration)).toEqual({
      delimiter: "",
      columns: null,
      omitHeader: false,
      failOnMissing: false,
      enableErrorPort: false,
    });
    expect(unb64(ports.find((p) => p.name === "request")!.configuration)).toEqual({ rows: null });
    expect(unb64(ports.find((p) => p.name === "response")!.configuration)).toEqual({ encoded: "", columns: null, count: 0 });
    expect(csvEncode.agentTool).toMatchObject({ inputPort: "request", outputPort: "response" });
  });
});
