/**
 * xml_encode (Go encoding-module components/xml/encode; no Go tests of its own): Go's encoding of
 * scalars and lists, the objects tinyhost encodes where Go refuses them (docs/compatibility.md),
 * the error port, and deep documents. The codec is compared with Go in
 * test/unit/golang/encoding-conformance.test.ts.
 */
import { describe, expect, test } from "bun:test";
import { testComponent } from "tinyhost";
import xmlEncode from "../../../components/xml_encode.ts";

process.env.TINYHOST_LOG_LEVEL ??= "silent";

async function encode(document: unknown, settings: Record<string, unknown> = { enableErrorPort: false }, context: unknown = null) {
  const h = await testComponent(xmlEncode, { settings });
  const result = await h.send("request", { context, document });
  return { result, emitted: h.emitted };
}

describe("xml_encode", () => {
  test("a scalar is an element named by its Go type", async () => {
    expect((await encode("a<b")).emitted).toEqual([{ port: "response", data: { context: null, encoded: "<string>a&lt;b</string>" } }]);
    expect((await encode(1e6)).emitted[0]!.data).toEqual({ context: null, encoded: "<float64>1e+06</float64>" });
    expect((await encode(false)).emitted[0]!.data).toEqual({ context: null, encoded: "<bool>false</bool>" });
  });

  test("null is nothing; a list is its elements in turn, nested lists flattened", async () => {
    expect((await encode(null)).emitted[0]!.data).toEqual({ context: null, encoded: "" });
    expect((await encode(["x", [1, [true]], null])).emitted[0]!.data).toEqual({
      context: null,
      encoded: "<string>x</string><float64>1</float64><bool>true</bool>",
    });
  });

  test("deliberate: an object's keys, sorted, become child elements; lists repeat; null is omitted", async () => {
    const { emitted } = await encode({ user: { name: "Ada & co", id: 7, tags: ["a", "b"], none: null, ok: true } }, undefined, { req: 1 });
    expect(emitted[0]!.data).toEqual({
      context: { req: 1 },
      encoded: "<user><id>7</id><name>Ada &amp; co</name><ok>true</ok><tags>a</tags><tags>b</tags></user>",
    });
  });

  test("a key that is not an XML name fails naming it, or goes to the error port", async () => {
    const failed = await encode({ "1abc": 1 });
    expect(failed.result.kind === "fail" && failed.result.error.message).toBe('xml: key "1abc" is not a valid element name');
    const routed = await encode({ "a b": 1 }, { enableErrorPort: true }, "c");
    expect(routed.emitted).toEqual([{ port: "error", data: { context: "c", error: 'xml: key "a b" is not a valid element name' } }]);
  });

  test("characters XML cannot hold become U+FFFD", async () => {
    expect((await encode("\u0000x\ufffe")).emitted[0]!.data).toEqual({ context: null, encoded: "<string>\ufffdx\ufffd</string>" });
  });

  test("a document nested 10000 deep (json_decode's limit) encodes", async () => {
    let doc: unknown = "x";
    for (let i = 0; i < 10000; i++) doc = { a: doc };
    const { result, emitted } = await encode(doc);
    expect(result.kind).not.toBe("fail");
    expect((emitted[0]!.data as { encoded: string }).encoded).toBe("<a>".repeat(10000) + "x" + "</a>".repeat(10000));
  });

  test("ports: In, Out, Settings; Error only when enabled", async () => {
    const h = await testComponent(xmlEncode);
    expect(h.status().ports!.map((p) => [p.name, p.label])).toEqual([
      ["_settings", "Settings"],
      ["request", "In"],
      ["response", "Out"],
    ]);
    const e = await testComponent(xmlEncode, { settings: { enableErrorPort: true } });
    expect(e.status().ports!.map((p) => p.name)).toContain("error");
  });
});
