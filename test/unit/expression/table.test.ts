/**
 * Table-driven behaviour of the expression evaluator: each row is a configuration template, a
 * payload and the expected evaluated value. Rows come from the `{{…}}` examples of
 * docs/reference/components.md (§0.3, §5, §6 and the component sections) and runtime-spec §2.11.
 */
import { describe, expect, test } from "bun:test";
import { compileTemplate } from "../../../src/runtime/expression/index.ts";

interface Row {
  /** What the row shows. */
  readonly name: string;
  /** The configuration (usually one string holding `{{…}}`). */
  readonly template: unknown;
  readonly payload: unknown;
  readonly expected: unknown;
}

// An http_server `request` message (components.md, router/echo flows).
const request = {
  requestID: "r-1",
  method: "GET",
  host: "example.com",
  requestURI: "/hello?x=1",
  body: '{"a":1}',
  headers: [{ key: "Content-Type", value: "application/json" }],
};
// Router output → response edge: `{context: <request>}`.
const routed = { context: request };
// Ticker → counter → debug flow (components.md §5).
const counted = { count: 7, context: { source: "ticker" } };
// Cert-check flow (components.md §5): iterator/loop/http_request response.
const certResponse = {
  context: "https://example.com",
  response: { statusCode: 200, tls: { daysUntilExpiry: 42 } },
};
const certError = { context: "https://bad.example", error: "dial tcp: timeout", retryable: true };
const targets = { targets: ["https://a.example", "https://b.example"] };
const store = {
  store: {
    book: [
      { category: "reference", author: "Rees", title: "Sayings", price: 8.95 },
      { category: "fiction", author: "Waugh", title: "Sword", price: 12.99 },
      { category: "fiction", author: "Melville", title: "Moby Dick", isbn: "0-553", price: 8.99 },
      { category: "fiction", author: "Tolkien", title: "LOTR", isbn: "0-395", price: 22.99 },
    ],
    bicycle: { color: "red", price: 19.95 },
  },
};
const misc = {
  a: 1,
  b: "x",
  n: 10,
  f: 2.5,
  neg: -3.5,
  s: "  Hello World  ",
  word: "tiny",
  csv: "a,b,c",
  list: [3, 1, 2],
  empty: [],
  nums: [1, 2, 3, 4],
  obj: { z: 1, a: 2 },
  flag: true,
  off: false,
  nil: null,
  zero: 0,
  "a b": "spaced",
  "content-type": "text/plain",
  t: "2024-01-31T23:00:00Z",
  tz: "2024-06-01T10:00:00+02:00",
  tfrac: "2024-01-01T00:00:00.999999999Z",
  d: "1h30m",
  email: "dev@example.com",
  big: 1e21,
  million: 1000000,
};

const ROWS: Row[] = [
  // --- whole message, paths, types preserved (components.md §0.3 / §5 edge configs)
  { name: "{{$}} is the whole message", template: { context: "{{$}}" }, payload: request, expected: { context: request } },
  { name: "router condition GET is true", template: "{{$.method == 'GET'}}", payload: request, expected: true },
  { name: "router condition POST is false", template: "{{$.method == 'POST'}}", payload: request, expected: false },
  { name: "request.method comparison through a nested path", template: "{{$.request.method == 'GET'}}", payload: { request }, expected: true },
  {
    name: "router edge config: context and conditions array",
    template: {
      context: "{{$}}",
      conditions: [
        { route: "GET", condition: "{{$.method == 'GET'}}" },
        { route: "POST", condition: "{{$.method == 'POST'}}" },
      ],
    },
    payload: request,
    expected: {
      context: request,
      conditions: [
        { route: "GET", condition: true },
        { route: "POST", condition: false },
      ],
    },
  },
  {
    name: "response body interpolates inside JSON text",
    template: { statusCode: 200, contentType: "application/json", body: '{"hello":"{{$.context.host}}","uri":"{{$.context.requestURI}}"}' },
    payload: routed,
    expected: { statusCode: 200, contentType: "application/json", body: '{"hello":"example.com","uri":"/hello?x=1"}' },
  },
  {
    name: "pure body passes the string through",
    template: { statusCode: 201, body: "{{$.context.body}}" },
    payload: routed,
    expected: { statusCode: 201, body: '{"a":1}' },
  },
  {
    name: "default route text with two expressions",
    template: { statusCode: 404, body: "no route for {{$.context.method}} {{$.context.requestURI}}" },
    payload: routed,
    expected: { statusCode: 404, body: "no route for GET /hello?x=1" },
  },
  { name: "pure count keeps the number type", template: { count: "{{$.count}}" }, payload: counted, expected: { count: 7 } },
  { name: "interpolated count becomes a string", template: { line: "tick #{{$.count}}" }, payload: counted, expected: { line: "tick #7" } },
  { name: "nested source path", template: { source: "{{$.context.source}}" }, payload: counted, expected: { source: "ticker" } },
  {
    name: "array from the payload keeps its type",
    template: { context: "{{$}}", array: "{{$.targets}}" },
    payload: targets,
    expected: { context: targets, array: targets.targets },
  },
  {
    name: "literal siblings pass through unchanged",
    template: { context: "{{$.context}}", method: "GET", url: "{{$.context}}", timeout: 5, headers: [], body: "" },
    payload: { context: "https://a.example" },
    expected: { context: "https://a.example", method: "GET", url: "https://a.example", timeout: 5, headers: [], body: "" },
  },
  {
    name: "cert-check OK edge reads deep numbers",
    template: { url: "{{$.context}}", status: "{{$.response.statusCode}}", daysLeft: "{{$.response.tls.daysUntilExpiry}}" },
    payload: certResponse,
    expected: { url: "https://example.com", status: 200, daysLeft: 42 },
  },
  {
    name: "boolean keeps its type",
    template: { retryable: "{{$.retryable}}", error: "{{$.error}}" },
    payload: certError,
    expected: { retryable: true, error: "dial tcp: timeout" },
  },
  { name: "object result keeps its type", template: "{{$.obj}}", payload: misc, expected: { z: 1, a: 2 } },
  { name: "null value stays null", template: "{{$.nil}}", payload: misc, expected: null },
  { name: "missing path is null, not an error", template: "{{$.nope.deeper}}", payload: misc, expected: null },
  { name: "missing path interpolates as empty text", template: "[{{$.nope}}]", payload: misc, expected: "[]" },
  { name: "whitespace inside braces is still pure", template: "{{   $.a   }}", payload: misc, expected: 1 },
  { name: "whitespace outside braces makes it interpolated", template: " {{$.a}}", payload: misc, expected: " 1" },
  { name: "two expressions with text between are both evaluated", template: "{{$.a}}-{{$.b}}", payload: misc, expected: "1-x" },
  { name: "adjacent expressions concatenate", template: "{{$.a}}{{$.b}}", payload: misc, expected: "1x" },
  { name: "string without braces is literal", template: "plain $.a text", payload: misc, expected: "plain $.a text" },
  { name: "unclosed braces are literal", template: "a {{ b", payload: misc, expected: "a {{ b" },
  { name: "empty braces are literal", template: "{{}}", payload: misc, expected: "{{}}" },
  { name: "closing braces inside a string literal do not end the expression", template: "{{ 'a}}b' + $.b }}", payload: misc, expected: "a}}bx" },
  { name: "object keys are not evaluated", template: { "{{$.b}}": "{{$.b}}" }, payload: misc, expected: { "{{$.b}}": "x" } },
  { name: "non-string scalars pass through", template: [1, true, null, 2.5], payload: misc, expected: [1, true, null, 2.5] },
  {
    name: "deeply nested arrays and objects",
    template: { a: [{ b: ["{{$.a}}", { c: "{{$.b}}" }] }] },
    payload: misc,
    expected: { a: [{ b: [1, { c: "x" }] }] },
  },
  // --- interpolation formatting
  { name: "interpolated object is JSON text", template: "o={{$.obj}}", payload: misc, expected: 'o={"z":1,"a":2}' },
  { name: "interpolated array is JSON text", template: "l={{$.list}}", payload: misc, expected: "l=[3,1,2]" },
  { name: "interpolated boolean", template: "on={{$.flag}}", payload: misc, expected: "on=true" },
  { name: "interpolated float", template: "f={{$.f}}", payload: misc, expected: "f=2.5" },
  { name: "interpolated large integer uses JSON digits, not %v", template: "m={{$.million}}", payload: misc, expected: "m=1000000" },
  { name: "interpolated huge number uses exponent", template: "b={{$.big}}", payload: misc, expected: "b=1e+21" },
  // --- JSONPath
  { name: "bracket key with a space", template: "{{$['a b']}}", payload: misc, expected: "spaced" },
  { name: "bracket key with a dash", template: '{{$["content-type"]}}', payload: misc, expected: "text/plain" },
  { name: "array index", template: "{{$.store.book[1].author}}", payload: store, expected: "Waugh" },
  { name: "negative index counts from the end", template: "{{$.store.book[-1].title}}", payload: store, expected: "LOTR" },
  { name: "index out of range is null", template: "{{$.store.book[9]}}", payload: store, expected: null },
  { name: "wildcard over array", template: "{{$.store.book[*].author}}", payload: store, expected: ["Rees", "Waugh", "Melville", "Tolkien"] },
  { name: "wildcard over object visits keys in sorted order", template: "{{$.obj.*}}", payload: misc, expected: [2, 1] },
  { name: "wildcard with exactly one match yields the value (ajson)", template: "{{$.one[*]}}", payload: { one: ["only"] }, expected: "only" },
  { name: "recursive descent collects every match", template: "{{$..author}}", payload: store, expected: ["Rees", "Waugh", "Melville", "Tolkien"] },
  {
    name: "recursive descent visits object members in sorted key order",
    template: "{{$.store..price}}",
    payload: store,
    expected: [19.95, 8.95, 12.99, 8.99, 22.99],
  },
  { name: "slice", template: "{{$.store.book[0:2].title}}", payload: store, expected: ["Sayings", "Sword"] },
  { name: "open-ended negative slice", template: "{{$.nums[-2:]}}", payload: misc, expected: [3, 4] },
  { name: "slice with step", template: "{{$.nums[::2]}}", payload: misc, expected: [1, 3] },
  { name: "index union", template: "{{$.store.book[0,3].author}}", payload: store, expected: ["Rees", "Tolkien"] },
  { name: "key union", template: "{{$.store.bicycle['color','price']}}", payload: store, expected: ["red", 19.95] },
  { name: "filter by comparison", template: "{{$.store.book[?(@.price > 10)].title}}", payload: store, expected: ["Sword", "LOTR"] },
  { name: "filter by existence", template: "{{$.store.book[?(@.isbn)].author}}", payload: store, expected: ["Melville", "Tolkien"] },
  { name: "filter combining conditions", template: "{{$..book[?(@.category == 'fiction' && @.price < 10)].author}}", payload: store, expected: "Melville" },
  { name: "filter matching nothing is null", template: "{{$.store.book[?(@.price > 100)]}}", payload: store, expected: null },
  { name: "script index with @.length", template: "{{$.store.book[(@.length - 1)].author}}", payload: store, expected: "Tolkien" },
  { name: "array length member", template: "{{$.list.length}}", payload: misc, expected: 3 },
  { name: "inherited object members are not paths", template: "{{$.obj.constructor}}", payload: misc, expected: null },
  // --- operators and precedence
  { name: "addition", template: "{{$.n + 1}}", payload: misc, expected: 11 },
  { name: "multiplication binds tighter than addition", template: "{{1 + 2 * 3}}", payload: misc, expected: 7 },
  { name: "parentheses override precedence", template: "{{(1 + 2) * 3}}", payload: misc, expected: 9 },
  { name: "power binds tighter than multiplication", template: "{{2 * 3 ** 2}}", payload: misc, expected: 18 },
  { name: "power is right-associative", template: "{{2 ** 3 ** 2}}", payload: misc, expected: 512 },
  { name: "subtraction is left-associative", template: "{{10 - 4 - 3}}", payload: misc, expected: 3 },
  { name: "division and remainder", template: "{{$.n / 4 + $.n % 3}}", payload: misc, expected: 3.5 },
  { name: "a path followed by minus without spaces is subtraction", template: "{{$.n-1}}", payload: misc, expected: 9 },
  { name: "negating a path is 0 - x (no unary minus on paths, as in Go)", template: "{{0 - $.neg}}", payload: misc, expected: 3.5 },
  { name: "comparison", template: "{{$.n >= 10 && $.n < 11}}", payload: misc, expected: true },
  { name: "&& binds tighter than ||", template: "{{true || false && false}}", payload: misc, expected: true },
  { name: "string comparison is lexical", template: "{{'abc' < 'abd'}}", payload: misc, expected: true },
  { name: "comparing incompatible types is false, not an error", template: "{{$.b > 1}}", payload: misc, expected: false },
  { name: "equality of different types is false", template: "{{$.a == '1'}}", payload: misc, expected: false },
  { name: "deep equality of arrays", template: "{{$.list == $.other}}", payload: { list: [1, { a: 2 }], other: [1, { a: 2 }] }, expected: true },
  { name: "a missing path equals nothing, not even null (Go)", template: "{{$.nope == null}}", payload: misc, expected: false },
  { name: "a null member equals null", template: "{{$.nil == null}}", payload: misc, expected: true },
  { name: "not() negates", template: "{{not($.flag)}}", payload: misc, expected: false },
  { name: "not() of a falsy value", template: "{{not($.zero)}}", payload: misc, expected: true },
  { name: "ternary", template: "{{$.n > 5 ? 'big' : 'small'}}", payload: misc, expected: "big" },
  { name: "nested ternary is right-associative", template: "{{$.n > 50 ? 'huge' : $.n > 5 ? 'big' : 'small'}}", payload: misc, expected: "big" },
  { name: "&& yields a boolean", template: "{{$.a && $.b}}", payload: misc, expected: true },
  {
    name: "regex match (a backslash in a quoted string is written twice)",
    template: "{{$.email =~ '^[a-z]+@example\\\\.com$'}}",
    payload: misc,
    expected: true,
  },
  { name: "regex with Go inline flag", template: "{{$.word =~ '(?i)^TINY$'}}", payload: misc, expected: true },
  { name: "regex on a non-string fails the field", template: { v: "{{$.a =~ '1'}}" }, payload: misc, expected: { v: null } },
  { name: "case-insensitive constants", template: "{{TRUE && not(False)}}", payload: misc, expected: true },
  { name: "constant pi", template: "{{round(pi * 100)}}", payload: misc, expected: 314 },
  // --- strings, time and durations
  { name: "string concatenation", template: "{{$.b + 'y'}}", payload: misc, expected: "xy" },
  { name: "string plus number fails (no implicit conversion, as in Go)", template: { v: "{{'n=' + $.n}}" }, payload: misc, expected: { v: null } },
  { name: "double-quoted literal with escapes", template: '{{"a\\"b" + "\\n"}}', payload: misc, expected: 'a"b\n' },
  { name: "time plus duration is RFC3339", template: "{{$.t + '1h30m'}}", payload: misc, expected: "2024-02-01T00:30:00Z" },
  { name: "time plus duration keeps the zone offset", template: "{{$.tz + '90m'}}", payload: misc, expected: "2024-06-01T11:30:00+02:00" },
  { name: "time minus duration", template: "{{$.t - '500ms'}}", payload: misc, expected: "2024-01-31T22:59:59Z" },
  { name: "fractional seconds are truncated when formatting", template: "{{$.tfrac + '1ns'}}", payload: misc, expected: "2024-01-01T00:00:01Z" },
  { name: "duration plus duration is seconds", template: "{{$.d + '10s'}}", payload: misc, expected: "5410s" },
  { name: "duration minus duration", template: "{{'1s' - '1500ms'}}", payload: misc, expected: "-0.5s" },
  { name: "fractional Go duration", template: "{{'1.5h' + '0s'}}", payload: misc, expected: "5400s" },
  { name: "digit strings are not durations and concatenate", template: "{{'10' + '5'}}", payload: misc, expected: "105" },
  {
    name: "an impossible date is not a time and concatenates",
    template: "{{'2023-02-30T00:00:00Z' + '1h'}}",
    payload: misc,
    expected: "2023-02-30T00:00:00Z1h",
  },
  { name: "RFC3339 of unix seconds", template: "{{RFC3339(1700000000)}}", payload: misc, expected: "2023-11-14T22:13:20Z" },
  { name: "string() of a number", template: "{{string($.n)}}", payload: misc, expected: "10" },
  { name: "string() of an object is JSON", template: "{{string($.obj)}}", payload: misc, expected: '{"z":1,"a":2}' },
  // --- functions
  { name: "abs", template: "{{abs($.neg)}}", payload: misc, expected: 3.5 },
  { name: "ceil and floor", template: "{{ceil($.f) + floor($.f)}}", payload: misc, expected: 5 },
  { name: "round half away from zero (Go math.Round)", template: "{{round(-2.5)}}", payload: misc, expected: -3 },
  { name: "trunc", template: "{{trunc($.neg)}}", payload: misc, expected: -3 },
  { name: "sqrt", template: "{{sqrt(16)}}", payload: misc, expected: 4 },
  { name: "pow10", template: "{{pow10(3)}}", payload: misc, expected: 1000 },
  { name: "exp and log are inverse", template: "{{round(log(exp(2)))}}", payload: misc, expected: 2 },
  { name: "length of an array", template: "{{length($.list)}}", payload: misc, expected: 3 },
  { name: "size counts container members, so a string's size is 0", template: "{{size($.word) + size($.obj)}}", payload: misc, expected: 2 },
  {
    name: "length of an object is 1 (ajson: arrays count elements, strings bytes, anything else 1)",
    template: "{{length($.obj)}}",
    payload: misc,
    expected: 1,
  },
  { name: "first and last", template: "{{first($.list) * 10 + last($.list)}}", payload: misc, expected: 32 },
  { name: "first of an empty array is null", template: "{{first($.empty)}}", payload: misc, expected: null },
  { name: "sum and avg", template: "{{sum($.nums) + avg($.nums)}}", payload: misc, expected: 12.5 },
  { name: "b64encode", template: "{{b64encode('tiny:host')}}", payload: misc, expected: "dGlueTpob3N0" },
  { name: "b64decode", template: "{{b64decode('dGlueTpob3N0')}}", payload: misc, expected: "tiny:host" },
  { name: "upper and lower", template: "{{upper($.word) + lower('ABC')}}", payload: misc, expected: "TINYabc" },
  { name: "trim", template: "{{trim($.s)}}", payload: misc, expected: "Hello World" },
  { name: "reverse a string", template: "{{reverse($.word)}}", payload: misc, expected: "ynit" },
  { name: "split", template: "{{split($.csv, ',')}}", payload: misc, expected: ["a", "b", "c"] },
  { name: "join", template: "{{join(split($.csv, ','), '-')}}", payload: misc, expected: "a-b-c" },
  { name: "contains on a string", template: "{{contains($.email, '@')}}", payload: misc, expected: true },
  { name: "contains needs strings", template: { v: "{{contains($.list, 2)}}" }, payload: misc, expected: { v: null } },
  { name: "hasprefix and hassuffix", template: "{{hasprefix($.word, 'ti') && hassuffix($.word, 'ny')}}", payload: misc, expected: true },
  { name: "replace replaces every occurrence", template: "{{replace('a-b-c', '-', '+')}}", payload: misc, expected: "a+b+c" },
  { name: "substr", template: "{{substr($.email, 0, 3)}}", payload: misc, expected: "dev" },
  { name: "index of a substring", template: "{{index($.email, '@')}}", payload: misc, expected: 3 },
  { name: "function names are case-insensitive", template: "{{UPPER($.word)}}", payload: misc, expected: "TINY" },
  // --- evaluation errors inside templates
  { name: "failing pure expression becomes null", template: { v: "{{$.b * 2}}" }, payload: misc, expected: { v: null } },
  { name: "failing interpolated expression keeps its text", template: "v={{ $.b * 2 }}!", payload: misc, expected: "v={{ $.b * 2 }}!" },
  { name: "arithmetic on a missing path fails to null", template: "{{$.nope + 1}}", payload: misc, expected: null },
  { name: "division by zero fails to null", template: "{{$.n / 0}}", payload: misc, expected: null },
];

describe("expression table", () => {
  test("has at least 70 rows", () => {
    expect(ROWS.length).toBeGreaterThanOrEqual(70);
  });
  for (const row of ROWS) {
    test(row.name, () => {
      const compiled = compileTemplate(row.template);
      expect(compiled.evaluate(row.payload)).toEqual(row.expected);
    });
  }
});
