/**
 * fmt cases for the Go oracle (test/go/codecs `sprint`): `fmt.Sprint` of the values JSON gives a
 * Go component (what csv_encode writes for a non-scalar cell and go_template prints), and
 * `fmt.Sprintf` with the verbs, flags, widths and precisions go_template's printf offers. Integers
 * (Go `int`) cannot come from JSON, so Sprintf of integers is covered by the template cases.
 */
import type { EncodingCase } from "./types.ts";

const SPRINT_VALUES: unknown[] = [
  1000000,
  123456,
  1234567,
  0.000001,
  0.0000001,
  1e21,
  1e20,
  -0.5,
  1.5,
  3.14159,
  100,
  2 ** 53,
  1e-320,
  0.1 + 0.2,
  "s",
  true,
  false,
  null,
  [1, "x", null, [true]],
  { b: 1, a: [1, 2], c: { d: "e" } },
  {},
  [],
  "",
  "a b",
  { "": null },
  [1e6, 1e-7],
];

const FORMATS: [string, unknown[]][] = [
  ["%v|%s|%q|%x|%X|%T", ["héllo", "héllo", "héllo", "héllo", "héllo", "héllo"]],
  ["%5s|%-5s|%.2s|%5.1s|%05s", ["ab", "ab", "abc", "xyz", "ab"]],
  ["%q|%+q|%#q|%#q", ["tab\there\n\u0001é😀", "é😀", "back`tick", "plain"]],
  ["%v|%.2f|%e|%E|%g|%G|%8.3f|%-8.2f|%+.1f|% .1f|%08.3f", [3.14159, 3.14159, 3.14159, 1234.5678, 0.00001234, 1e21, 2.5, 2.5, 2.5, 2.5, -2.5]],
  ["%.0f|%.0f|%.0f|%.1f|%.1f|%.2f|%.3g|%.3g|%.10g|%g|%g", [0.5, 1.5, 2.5, 0.25, 0.35, 1.005, 1.0, 123456, 1 / 3, 100000, 1000000]],
  ["%#g|%#.3g|%#v|%#.0f|%#e", [1.0, 2.0, 1.5, 3.0, 1.0]],
  ["%f|%e|%g|%v|%5.1f|%-6v|%06v", [1e300, 1e-300, 5e-324, 1.7976931348623157e308, -0.04, 1.5, -1.5]],
  ["%t|%v|%5t|%d", [true, false, true, true]],
  ["%d|%s|%x", [1.5, 2.5, 3.5]],
  ["%v|%+v|%#v", [{ a: 1, b: [1, "x", null] }, { a: 1 }, { a: 1, b: [1, "x", null], c: null }]],
  [
    "%v|%d|%s",
    [
      [1, 2],
      [1, 2],
      [1, "a"],
    ],
  ],
  ["%v|%s|%d|%T", [null, null, null, null]],
  ["%d %d", [1.5]],
  ["%s", ["a", "b", 3, null]],
  ["100%% %z %!", [1]],
  ["%", []],
  ["%.", [1.5]],
  ["%*d|%-*s|%.*f", [3.5, "x", 2, 1.5]],
  ["%x|%X|%#x|% x|% #x", ["hi", "hi", "hi", "hi", "hi"]],
  ["%6.2v|%.3v|%10v|%-10v|", [3.14159, "abcdef", [1, 2], { a: 1 }]],
  ["%U|%c", [65, 65]],
  ["%v", [{ k: 1e6, j: 1e-5, i: 12345678 }]],
  ["%x|%X|%.2x|%x|%x|%x|%.0x|%#x|%10.3x", [3.5, -0.1, 1 / 3, 0, 5e-324, 1e300, 1.5, 2.0, 255.75]],
];

/** Every fmt case. */
export function fmtCases(): EncodingCase[] {
  const cases: EncodingCase[] = SPRINT_VALUES.map((v, i) => ({ id: `fmt-sprint-${String(i).padStart(2, "0")}`, op: "sprint", values: [v] }));
  cases.push({ id: "fmt-sprint-mixed", op: "sprint", values: [1, 2, "a", 3, "b", "c", null, true, 4.5] });
  FORMATS.forEach(([format, values], i) => cases.push({ id: `fmt-sprintf-${String(i).padStart(2, "0")}`, op: "sprint", format, values }));
  return cases;
}
