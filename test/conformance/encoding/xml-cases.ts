/**
 * XML cases for the Go oracle (test/go/codecs `xml_encode`: encoding/xml Encoder.Encode of the
 * `any` a JSON document decodes into): scalars, lists, escaping and characters XML cannot hold —
 * and objects, which Go refuses and tinyhost encodes (deliberate.json).
 */
import type { EncodingCase } from "./types.ts";

const VALUES: Record<string, unknown> = {
  string: "hello",
  escapes: "a<b>&\"'\t\n\r x",
  "invalid-chars": "\u0000\u0001\u000b\ufffe\uffff ok",
  "lone-surrogate": "\ud800",
  cdata: "]]>",
  unicode: "ключ 值 😀",
  number: 1.5,
  "number-big": 1e6,
  "number-small": -1e-7,
  "number-int": 42,
  bool: true,
  null: null,
  "empty-list": [],
  list: [1e6, [2, [true]], null, "x"],
  "huge-string": "<&>".repeat(200000),
  // Objects: Go refuses them (deliberate: tinyhost encodes them).
  object: { a: 1 },
  "list-with-object": [1, { a: 1 }],
  "nested-object": { user: { name: "Ada <admin>", id: 7, tags: ["a", "b"], none: null, ok: true } },
  "empty-object": {},
  "bad-key": { "1abc": 1 },
};

/** Every XML case. */
export function xmlCases(): EncodingCase[] {
  const cases: EncodingCase[] = Object.entries(VALUES).map(([name, value]) => ({ id: `xml-encode-${name}`, op: "xml_encode", value }));
  cases.push({ id: "xml-encode-deep-list", op: "xml_encode", value: JSON.parse("[".repeat(5000) + '"x"' + "]".repeat(5000)) });
  return cases;
}
