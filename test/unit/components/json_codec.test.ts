/**
 * json_decode and json_encode (Go encoding-module components/json/decode, /encode; the Go
 * components have no tests of their own): goccy/go-json's acceptance, error texts and output
 * format through the components, the error port, and hostile documents (deep, huge, odd keys).
 * The codec itself is compared with goccy case by case in test/unit/golang/encoding-conformance.test.ts.
 */
import { describe, expect, test } from "bun:test";
import { testComponent } from "tinyhost";
import jsonDecode from "../../../components/json_decode.ts";
import jsonEncode from "../../../components/json_encode.ts";

process.env.TINYHOST_LOG_LEVEL ??= "silent";
const unb64 = (s: string) => JSON.parse(Buffer.from(s, "base64").toString("utf8"));

async function decode(encoded: string, settings: Record<string, unknown> = { enableErrorPort: false }, context: unknown = null) {
  const h = await testComponent(jsonDecode, { settings });
  const result = await h.send("request", { context, encoded });
  return { result, emitted: h.emitted };
}

async function encode(document: unknown, context: unknown = null) {
  const h = await testComponent(jsonEncode, { settings: { enableErrorPort: false } });
  const result = await h.send("request", { context, document });
  return { result, emitted: h.emitted };
}

describe("json_decode", () => {
  test("emits the decoded value with the context", async () => {
    const { emitted } = await decode('{"user":{"id":1,"tags":["a"]},"ok":true}', { enableErrorPort: false }, { req: 7 });
    expect(emitted).toEqual([{ port: "response", data: { context: { req: 7 }, decoded: { ok: true, user: { id: 1, tags: ["a"] } } } }]);
  });

  test("decodes scalars and null at the top level", async () => {
    for (const [text, value] of [
      ["42", 42],
      ['"s"', "s"],
      ["null", null],
      ["false", false],
      ["-0", -0],
    ] as const) {
      const { emitted } = await decode(text);
      expect(Object.is((emitted[0]!.data as { decoded: unknown }).decoded, value)).toBe(true);
    }
  });

  test("accepts what goccy accepts: a leading zero, a bare decimal point, raw control characters", async () => {
    const { emitted } = await decode('{"a":01,"b":1.,"c":"line\nbreak"}');
    expect((emitted[0]!.data as { decoded: unknown }).decoded).toEqual({ a: 1, b: 1, c: "line\nbreak" });
  });

  test("fails with goccy's error texts", async () => {
    for (const [text, message] of [
      ['{"a" 1}', "expected colon after object key"],
      ["[1,2", "json: invalid character as slice"],
      ["", "invalid character '\u0000' looking for beginning of value"],
      ['{"a":1} x', "invalid character 'x' after top-level value"],
      ["1e400", 'strconv.ParseFloat: parsing "1e400": value out of range'],
    ] as const) {
      const { result, emitted } = await decode(text);
      expect(emitted).toEqual([]);
      expect(result.kind === "fail" && result.error.message).toBe(message);
    }
  });

  test("a lone surrogate escape decodes to U+FFFD, as in Go", async () => {
    const { emitted } = await decode('{"\\ud800":"\\udc00x"}');
    expect((emitted[0]!.data as { decoded: unknown }).decoded).toEqual({ "\ufffd": "\ufffdx" });
  });

  test("a __proto__ key stays a key and pollutes nothing", async () => {
    const { emitted } = await decode('{"__proto__":{"polluted":true},"a":1}');
    const decoded = (emitted[0]!.data as { decoded: Record<string, unknown> }).decoded;
    expect(Object.keys(decoded)).toEqual(["__proto__", "a"]);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(Object.getPrototypeOf(decoded)).toBe(Object.prototype);
  });

  test("object keys come out in Go's sorted order", async () => {
    const { emitted } = await decode('{"b":1,"a":2,"B":3}');
    expect(JSON.stringify((emitted[0]!.data as { decoded: unknown }).decoded)).toBe('{"B":3,"a":2,"b":1}');
  });

  test("nesting of 10000 decodes and travels on; 10001 is goccy's depth error", async () => {
    const deep = "[".repeat(10000) + "]".repeat(10000);
    const ok = await decode(deep);
    expect(ok.result.kind).not.toBe("fail");
    let v = (ok.emitted[0]!.data as { decoded: unknown }).decoded;
    let depth = 0;
    while (Array.isArray(v)) {
      depth++;
      v = v[0];
    }
    expect(depth).toBe(10000);
    const tooDeep = await decode("[".repeat(10001) + "]".repeat(10001));
    expect(tooDeep.result.kind === "fail" && tooDeep.result.error.message).toBe('invalid character "[" exceeded max depth');
  });

  test("a 5 MiB string decodes", async () => {
    const { emitted } = await decode(JSON.stringify({ s: "x".repeat(5 * 1024 * 1024) }));
    expect((emitted[0]!.data as { decoded: { s: string } }).decoded.s.length).toBe(5 * 1024 * 1024);
  });

  test("with the error port a failure is emitted there with the context", async () => {
    const { result, emitted } = await decode("{", { enableErrorPort: true }, "ctx");
    expect(result.kind).not.toBe("fail");
    expect(emitted).toEqual([{ port: "error", data: { context: "ctx", error: "invalid character '\u0000' looking for beginning of value" } }]);
  });

  test("ports: In, Out (carrying the decoded example), Settings; Error only when enabled", async () => {
    const h = await testComponent(jsonDecode, { settings: { enableErrorPort: true, decoded: { user: { id: 1 } } } });
    const ports = h.status().ports!;
    expect(ports.map((p) => [p.name, p.label])).toEqual([
      ["_settings", "Settings"],
      ["error", "Error"],
      ["request", "In"],
      ["response", "Out"],
    ]);
    expect(unb64(ports.find((p) => p.name === "response")!.configuration)).toEqual({ context: null, decoded: { user: { id: 1 } } });
    const plain = await testComponent(jsonDecode);
    expect(plain.status().ports!.map((p) => p.name)).toEqual(["_settings", "request", "response"]);
  });
});

describe("json_encode", () => {
  test("encodes as goccy: sorted keys, HTML escaped, Go's number format", async () => {
    const { emitted } = await encode({ b: "<a & b>", a: [1e21, 1e-7, 0.5, 100], é: true }, { id: 1 });
    expect(emitted).toEqual([
      { port: "response", data: { context: { id: 1 }, encoded: '{"a":[1e+21,1e-07,0.5,100],"b":"\\u003ca \\u0026 b\\u003e","é":true}' } },
    ]);
  });

  test("a null or missing document encodes as null", async () => {
    expect((await encode(null)).emitted[0]!.data).toEqual({ context: null, encoded: "null" });
  });

  test("deep documents encode without exhausting the stack", async () => {
    let doc: unknown = 1;
    for (let i = 0; i < 5000; i++) doc = { a: doc };
    const { emitted, result } = await encode(doc);
    expect(result.kind).not.toBe("fail");
    expect((emitted[0]!.data as { encoded: string }).encoded.length).toBe(5000 * 6 + 1);
  });

  test("ports: In with context and document, Out, Settings; Error only when enabled", async () => {
    const h = await testComponent(jsonEncode);
    const ports = h.status().ports!;
    expect(ports.map((p) => [p.name, p.label])).toEqual([
      ["_settings", "Settings"],
      ["request", "In"],
      ["response", "Out"],
    ]);
    expect(unb64(ports.find((p) => p.name === "request")!.configuration)).toEqual({ context: null, document: null });
  });
});
