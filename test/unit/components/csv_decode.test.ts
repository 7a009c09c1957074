/**
 * csv_decode, from the Go component's own tests (encoding-module
 * components/csv/decode/decode_test.go, ported case by case) plus the eval flow's input and tinyhost's deliberate
 * differences (docs/compatibility.md "encoding-module").
 */
import { describe, expect, test } from "bun:test";
import { testComponent } from "tinyhost";
import csvDecode from "../../../components/csv_decode.ts";

process.env.TINYHOST_LOG_LEVEL ??= "silent";

type Out = { context?: unknown; rows: Record<string, unknown>[]; headers: string[]; count: number; truncated: boolean };
const unb64 = (s: string) => JSON.parse(Buffer.from(s, "base64").toString("utf8"));

async function run(encoded: string, settings: Record<string, unknown> = {}, context?: unknown) {
  const h = await testComponent(csvDecode, { settings: { delimiter: "comma", ...settings } });
  const result = await h.send("request", context === undefined ? { encoded } : { context, encoded });
  return { h, result, emitted: h.emitted };
}

async function decoded(encoded: string, settings: Record<string, unknown> = {}): Promise<Out> {
  const { result, emitted } = await run(encoded, settings);
  expect(result.kind).not.toBe("fail");
  expect(emitted.map((e) => e.port)).toEqual(["response"]);
  return emitted[0]!.data as Out;
}

async function failure(encoded: string, settings: Record<string, unknown> = {}): Promise<string> {
  const { result, emitted } = await run(encoded, settings);
  expect(emitted).toEqual([]);
  if (result.kind !== "fail") throw new Error(`expected a failure, got ${JSON.stringify(result)}`);
  return result.error.message;
}

describe("csv_decode (Go decode_test.go)", () => {
  test("the header names the columns and is not a record", async () => {
    const out = await decoded("name,restarts\napi-1,0\napi-2,7\n");
    expect(out.count).toBe(2);
    expect(out.rows).toEqual([
      { name: "api-1", restarts: "0" },
      { name: "api-2", restarts: "7" },
    ]);
    expect(out.headers).toEqual(["name", "restarts"]);
  });

  test("a quoted comma and an embedded newline stay inside their field", async () => {
    const out = await decoded('name,note\n"Smith, John","line one\nline two"\n');
    expect(out.rows[0]).toEqual({ name: "Smith, John", note: "line one\nline two" });
  });

  test("semicolon, tab and pipe delimiters", async () => {
    for (const [csv, delimiter] of [
      ["a;b\n1;2\n", "semicolon"],
      ["a\tb\n1\t2\n", "tab"],
      ["a|b\n1|2\n", "pipe"],
    ] as const) {
      expect((await decoded(csv, { delimiter })).rows).toEqual([{ a: "1", b: "2" }]);
    }
  });

  test("an unknown or empty delimiter name is a comma", async () => {
    expect((await decoded("a,b\n1,2\n", { delimiter: "" })).rows).toEqual([{ a: "1", b: "2" }]);
    expect((await decoded("a,b\n1,2\n", { delimiter: "colon" })).rows).toEqual([{ a: "1", b: "2" }]);
  });

  test("a headerless file gets col1, col2 … and its first row is data", async () => {
    const out = await decoded("api-1,0\napi-2,7\n", { noHeader: true });
    expect(out.count).toBe(2);
    expect(out.rows[0]).toEqual({ col1: "api-1", col2: "0" });
    expect(out.headers).toEqual(["col1", "col2"]);
  });

  test("a repeated header is kept as name_1, name_2", async () => {
    const out = await decoded("date,value,date,date\n2026-01-01,3,2026-02-01,2026-03-01\n");
    expect(out.headers).toEqual(["date", "value", "date_1", "date_2"]);
    expect(out.rows[0]).toEqual({ date: "2026-01-01", value: "3", date_1: "2026-02-01", date_2: "2026-03-01" });
  });

  test("a blank header cell is named by its position; header cells are trimmed", async () => {
    const out = await decoded(" a ,,\u3000\n1,2,3\n");
    expect(out.headers).toEqual(["a", "col2", "col3"]);
  });

  test("a ragged row fails by default with Go's error text", async () => {
    expect(await failure("a,b,c\n1,2\n")).toBe("csv: record on line 2: wrong number of fields");
  });

  test("a short row is padded with empty strings when allowed", async () => {
    expect((await decoded("a,b,c\n1,2\n", { allowRagged: true })).rows).toEqual([{ a: "1", b: "2", c: "" }]);
  });

  test("extra fields land in generated columns when allowed", async () => {
    expect((await decoded("a,b\n1,2,3\n", { allowRagged: true })).rows).toEqual([{ a: "1", b: "2", col3: "3" }]);
  });

  test("inferTypes makes numbers and booleans", async () => {
    const out = await decoded("restarts,ready,ratio,neg,exp,up\n7,true,0.5,-3,1e3,FALSE\n", { inferTypes: true });
    expect(out.rows[0]).toEqual({ restarts: 7, ready: true, ratio: 0.5, neg: -3, exp: 1000, up: false });
  });

  test("inferTypes leaves leading-zero identifiers alone", async () => {
    expect((await decoded("zip,order,neg\n01234,007,-01\n", { inferTypes: true })).rows[0]).toEqual({ zip: "01234", order: "007", neg: "-01" });
  });

  test("inferTypes keeps what is not a plain decimal number a string, untrimmed", async () => {
    const out = await decoded("a,b,c,d,e,f,g\n 12 ,0x10,1_000,Infinity,nan,1e400,12abc\n", { inferTypes: true });
    expect(out.rows[0]).toEqual({ a: 12, b: "0x10", c: "1_000", d: "Infinity", e: "nan", f: "1e400", g: "12abc" });
  });

  test("everything is a string by default", async () => {
    expect((await decoded("n,b\n7,true\n")).rows[0]).toEqual({ n: "7", b: "true" });
  });

  test("maxRows truncates and reports it", async () => {
    const out = await decoded("n\n1\n2\n3\n4\n", { maxRows: 2 });
    expect(out).toEqual({ rows: [{ n: "1" }, { n: "2" }], headers: ["n"], count: 2, truncated: true });
  });

  test("exactly maxRows records is not truncated; a bad record past the limit is never read", async () => {
    expect((await decoded("n\n1\n2\n", { maxRows: 2 })).truncated).toBe(false);
    expect((await decoded('n\n1\n2\n3\n"broken\n', { maxRows: 2 })).truncated).toBe(true);
  });

  test("maxRows 0 means 10000", async () => {
    const text = "n\n" + Array.from({ length: 10001 }, (_, i) => String(i)).join("\n") + "\n";
    const out = await decoded(text, { maxRows: 0 });
    expect([out.count, out.truncated]).toEqual([10000, true]);
  });

  test("empty input is zero rows and no headers, as empty lists", async () => {
    expect(await decoded("")).toEqual({ rows: [], headers: [], count: 0, truncated: false });
  });

  test("a header-only file is zero rows with its headers", async () => {
    expect(await decoded("name,restarts\n")).toEqual({ rows: [], headers: ["name", "restarts"], count: 0, truncated: false });
  });

  test("trimSpace ignores the space after a delimiter", async () => {
    expect((await decoded("a, b\n1, 2\n", { trimSpace: true })).rows).toEqual([{ a: "1", b: "2" }]);
  });

  test("a bare quote fails with Go's position unless lazyQuotes", async () => {
    const bad = 'a,b\n1,he said "hi" loudly\n';
    expect(await failure(bad)).toBe('csv: parse error on line 2, column 11: bare " in non-quoted-field');
    expect((await decoded(bad, { lazyQuotes: true })).rows).toEqual([{ a: "1", b: 'he said "hi" loudly' }]);
  });

  test("an unterminated quote names where the record started", async () => {
    expect(await failure('a\n"x\ny')).toBe('csv: record on line 2; parse error on line 3, column 2: extraneous or missing " in quoted-field');
  });

  test("the context is carried; without one the response has no context key (Go omitempty)", async () => {
    const { emitted } = await run("a\n1\n", {}, { file: "report.csv" });
    expect((emitted[0]!.data as Out).context).toEqual({ file: "report.csv" });
    const plain = await decoded("a\n1\n");
    expect("context" in plain).toBe(false);
  });

  test("with the error port a failure is emitted there instead of failing the hop", async () => {
    const { result, emitted } = await run("a,b,c\n1,2\n", { enableErrorPort: true }, { id: 1 });
    expect(result.kind).not.toBe("fail");
    expect(emitted).toEqual([{ port: "error", data: { context: { id: 1 }, error: "csv: record on line 2: wrong number of fields" } }]);
  });
});

describe("csv_decode: the platform's eval flow (shared/flows/tiny-eval-csv-smoke)", () => {
  test("keeps a quoted comma intact and infers numbers", async () => {
    const out = await decoded('name,restarts,ready\napi-1,0,true\n"web, edge",7,false\n', { delimiter: "comma", inferTypes: true, maxRows: 100 });
    expect(out).toEqual({
      rows: [
        { name: "api-1", ready: true, restarts: 0 },
        { name: "web, edge", ready: false, restarts: 7 },
      ],
      headers: ["name", "restarts", "ready"],
      count: 2,
      truncated: false,
    });
  });
});

describe("csv_decode: deliberate differences from Go", () => {
  test("a leading byte-order mark is dropped, so the first column is named as written", async () => {
    const out = await decoded("\ufeffname,n\nx,1\n");
    expect(out.headers).toEqual(["name", "n"]);
    expect(out.rows).toEqual([{ name: "x", n: "1" }]);
  });

  test("a generated name never takes the name of another column", async () => {
    const out = await decoded("a,a_1,a\n1,2,3\n");
    expect(out.headers).toEqual(["a", "a_1", "a_2"]);
    expect(out.rows[0]).toEqual({ a: "1", a_1: "2", a_2: "3" });
  });

  test("row keys come in Go's sorted map order", async () => {
    const out = await decoded("zebra,apple,Mango\n1,2,3\n");
    expect(JSON.stringify(out.rows[0])).toBe('{"Mango":"3","apple":"2","zebra":"1"}');
  });
});

describe("csv_decode ports", () => {
  test("request, response, _settings; error only with enableErrorPort; Go's zero settings", async () => {
    const h = await testComponent(csvDecode);
    const ports = h.status().ports!;
    expect(ports.map((p) => [p.name, p.label, p.position, p.source])).toEqual([
      ["_settings", "Settings", 0, false],
      ["request", "Request", 3, false],
      ["response", "Response", 1, true],
    ]);
    expect(unb64(ports.find((p) => p.name === "_settings")!.configuration)).toEqual({
      delimiter: "",
      noHeader: false,
      trimSpace: false,
      lazyQuotes: false,
      allowRagged: false,
      inferTypes: false,
      maxRows: 0,
      rows: null,
      enableErrorPort: false,
    });
    const withError = await testComponent(csvDecode, { settings: { delimiter: "comma", enableErrorPort: true, rows: [{ a: "x" }] } });
    const errorPort = withError.status().ports!.find((p) => p.name === "error")!;
    expect([errorPort.label, errorPort.position, errorPort.source]).toEqual(["Error", 2, true]);
    expect(unb64(withError.status().ports!.find((p) => p.name === "response")!.configuration)).toEqual({
      rows: [{ a: "x" }],
      headers: null,
      count: 0,
      truncated: false,
    });
  });

  test("is an agent tool on request → response", () => {
    expect(csvDecode.agentTool).toMatchObject({ inputPort: "request", outputPort: "response" });
    expect(csvDecode.info.tags).toEqual(["csv"]);
  });
});
