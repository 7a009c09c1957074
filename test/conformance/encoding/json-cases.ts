/**
 * JSON cases for the Go oracle (test/go/codecs `json_decode`, `json_encode`: goccy/go-json
 * v0.10.6): valid documents, every syntax error class goccy reports, its leniencies (`01`, `1.`,
 * raw control characters, text after a NUL), surrogate escapes, number range and format, HTML and
 * control-character escaping, key order, and nesting at and past goccy's 10000 limit.
 */
import type { EncodingCase } from "./types.ts";

const DECODE_TEXTS: string[] = [
  '{"a":1}', "[1,2", '{"a" 1}', '{"a":1,}', "[1,]", "[,1]", "01", "-", "1.", ".5", "1e", "1e+", "+1", "-0", "1E400", "-1e400", "1e-400",
  "123456789012345678901234567890", '"\\ud800"', '"\\udc00\\ud800"', '"\\ud83d\\ude00"', '"\\u00e9"', '"a\nb"', '"a\tb"', '"\\x"', '"\\u12"', '"\\u12G4"', '"abc', "tru", "tr",
  "true", "fals", "falsy", "nul", "null", "nulll", "True", '{"a":1} x', '{"a":1}  ', '  {"a":1}', "\ufeff{}", "{} {}", "[]", "{}", "[[[]]]", '{"a":{"b":[1,{"c":null}]}}',
  '{"a":1,"a":2}', '"\\/"', "'a'", "{a:1}", "NaN", "Infinity", "1_000", "0x10", '{"a":[1,2,3],"b":"x"', '{"":1}', '{"a":1 "b":2}', "[1 2]", '{"a":}', "{,}",
  '{"a":1,,"b":2}', '"\u0000"', '"\\u0000"', "[1,2]]", '{"a":1}}', " ", "\t\n\r", "\u00a0{}", "123abc", "1.5e3", "-0.0", "1e21", "1e20", "0.1", '"\\uD800\\uDC00"', '"\\uDBFF"',
  '{"a":"\u2028\u2029"}', '"\\b\\f\\n\\r\\t"', '{"a":tru}', "[true,false,null]", "[nul]", "1 2", '"a" "b"', '{"a":1}\u0000 trailing', "\u0000", "[-]", "[01]", "[1.e5]",
  "[1e5.5]", '{"\\ud800":1}', "{null:1}", "{1:2}", '{[1]:2}', '{{}:2}', "[1-2]", "--1", "-.5", "1e99999999999999999999", "1e-99999999999", "4.9e-324", "1.7976931348623157e308",
  "1.7976931348623159e308", "[1,2,3,4,5,6,7,8,9,10]", '{"b":1,"a":2,"B":3,"é":4,"😀":5,"\uffff":6,"":7}', '{"__proto__":{"x":1},"constructor":2}', '"\\ud800\\u0041"', '"\\ud800\\\\u0041"',
  '"é"', '"a\u007fb"', '{"k":"<script>&</script>"}', "[1e-7,1.5e-7,1e-6,123e-20,5e-324,1e100,-1e21]",
];

function nested(depth: number, open: string, close: string): string {
  return open.repeat(depth) + close.repeat(depth);
}

const ENCODE_VALUES: Record<string, unknown> = {
  html: { b: "<&>", a: "x" },
  numbers: [1e21, 1e-7, 1000000, 0.1, 1e20, 123456789.123, -1.5e-10, 5e-324, 1.7976931348623157e308, 2 ** 53 + 2],
  controls: "\u0000\u0001\b\f\n\r\t\u001f\u007f",
  separators: "a\u2028b\u2029c",
  unicode: { "ключ": "值", "😀": "é", "\uffff": 1, "": 2 },
  "lone-surrogate": "x\ud800y",
  nested: { a: [{ b: null, c: true }, [], {}], z: false },
  "key-order": { b: 1, a: 2, B: 3, "10": 4, "9": 5, "a\u0000": 6 },
  empty: {},
  "empty-array": [],
  string: "plain",
  null: null,
  "quote-backslash": 'he said "hi" \\o/',
  "deep-500": JSON.parse(nested(500, "[", "]")),
};

/** Every JSON case. */
export function jsonCases(): EncodingCase[] {
  const cases: EncodingCase[] = DECODE_TEXTS.map((text, i) => ({ id: `json-decode-${String(i).padStart(3, "0")}`, op: "json_decode", text }));
  cases.push({ id: "json-decode-depth-10000", op: "json_decode", text: nested(10000, "[", "]") });
  cases.push({ id: "json-decode-depth-10001", op: "json_decode", text: nested(10001, "[", "]") });
  cases.push({ id: "json-decode-depth-10001-objects", op: "json_decode", text: '{"a":'.repeat(10001) + "1" + "}".repeat(10001) });
  cases.push({ id: "json-decode-depth-mixed-10001", op: "json_decode", text: "[{\"a\":".repeat(5000) + "[1]" + "}]".repeat(5000) });
  cases.push({ id: "json-decode-huge-string", op: "json_decode", text: JSON.stringify({ s: "x".repeat(2 * 1024 * 1024), t: "é".repeat(1000) }) });
  cases.push({ id: "json-decode-many-keys", op: "json_decode", text: JSON.stringify(Object.fromEntries(Array.from({ length: 5000 }, (_, i) => [`k${(i * 7919) % 5000}`, i]))) });
  for (const [name, value] of Object.entries(ENCODE_VALUES)) cases.push({ id: `json-encode-${name}`, op: "json_encode", value });
  return cases;
}
