// Go's text forms of decoded JSON values as the common-module ports use them: fmt %v / %T
// (src/golang/fmt.ts), encoding/json's json.Marshal (src/golang/json.ts) and Go's string order
// (src/golang/unicode.ts). Expected strings are what Go 1.25 prints for the same values decoded by
// encoding/json into any; the codecs' full corpus against Go is test/conformance/encoding.
import { describe, expect, test } from "bun:test";
import { goSprint, goTypeName } from "../../../src/golang/fmt.ts";
import { marshalGoJson as marshal } from "../../../src/golang/json.ts";
import { compareGoStrings } from "../../../src/golang/unicode.ts";

const marshalGoJson = (v: unknown) => marshal(v, "encoding/json");

describe("goSprint of one value (fmt %v)", () => {
  test("scalars: numbers in %g shortest form, strings unquoted, nil", () => {
    expect(goSprint("web")).toBe("web");
    expect(goSprint(3)).toBe("3");
    expect(goSprint(1.5)).toBe("1.5");
    expect(goSprint(1000000)).toBe("1e+06");
    expect(goSprint(123456789)).toBe("1.23456789e+08");
    expect(goSprint(0.00001)).toBe("1e-05");
    expect(goSprint(true)).toBe("true");
    expect(goSprint(null)).toBe("<nil>");
  });

  test("lists and objects: [a b] and map[k:v] with keys sorted, nested", () => {
    expect(goSprint([1, "a", null, [true]])).toBe("[1 a <nil> [true]]");
    expect(goSprint({ b: 2, a: { z: "x", c: [] } })).toBe("map[a:map[c:[] z:x] b:2]");
    expect(goSprint({})).toBe("map[]");
  });
});

describe("goTypeName (fmt %T)", () => {
  test("names Go's types of decoded JSON", () => {
    expect([null, "s", 1, false, [], {}].map(goTypeName)).toEqual(["<nil>", "string", "float64", "bool", "[]interface {}", "map[string]interface {}"]);
  });
});

describe("marshalGoJson, encoding/json flavour (json.Marshal)", () => {
  test("sorts object keys at every level, in Go's string order", () => {
    expect(marshalGoJson({ b: 1, a: { d: [{ z: 1, y: 2 }], c: null } })).toBe('{"a":{"c":null,"d":[{"y":2,"z":1}]},"b":1}');
    // U+FFFF sorts below U+1F600 in UTF-8 byte order (JS's default sort puts the surrogate pair first).
    expect(marshalGoJson({ "\u{1F600}": 1, "\uFFFF": 2 })).toBe('{"\uFFFF":2,"\u{1F600}":1}');
  });

  test("escapes <, >, & and the line separators as Go's HTML-safe encoder does", () => {
    expect(marshalGoJson({ html: "<a href='x'>&</a>", ls: "\u2028\u2029" })).toBe(
      '{"html":"\\u003ca href=\'x\'\\u003e\\u0026\\u003c/a\\u003e","ls":"\\u2028\\u2029"}',
    );
  });

  test("numbers in the shortest form, as Go's float encoder writes them", () => {
    expect(marshalGoJson([1, 1.5, 1e21, 1e-7, 123456789])).toBe("[1,1.5,1e+21,1e-7,123456789]");
  });

  test("-0 keeps its sign; \\b and \\f short; an undefined member is left out as JSON.stringify does", () => {
    expect(marshalGoJson([-0, "\b\f"])).toBe('[-0,"\\b\\f"]');
    expect(marshalGoJson({ a: undefined, b: 1 })).toBe('{"b":1}');
  });

  test("refuses values JSON cannot hold", () => {
    expect(() => marshalGoJson(Number.NaN)).toThrow("unsupported value");
    expect(() => marshalGoJson(() => 1)).toThrow("unsupported type");
  });
});

describe("compareGoStrings (sort.Strings)", () => {
  test("byte order: upper case before lower, U+FFFF before U+1F600", () => {
    expect(["b", "B", "a", "\u{1F600}", "\uFFFF", ""].sort(compareGoStrings)).toEqual(["", "B", "a", "b", "\uFFFF", "\u{1F600}"]);
  });
});
