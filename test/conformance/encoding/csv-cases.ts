/**
 * CSV cases for the Go oracle (test/go/codecs `csv_read`, `csv_write`): RFC 4180 basics and the
 * inputs that break hand-written parsers — quotes in every position, CRLF and lone CR, blank lines,
 * BOMs, multi-byte text and spaces, ragged rows, unterminated quotes, huge fields and many rows.
 */
import type { EncodingCase } from "./types.ts";

const READ_TEXTS: Record<string, string> = {
  basic: 'name,restarts,ready\napi-1,0,true\n"web, edge",7,false\n',
  "no-final-newline": "a,b\n1,2",
  crlf: "a,b\r\n1,2\r\n",
  "crlf-in-quotes": 'a,b\r\n"x\r\ny",2\r\n',
  "lone-cr": "a,b\r1,2\n",
  "lone-cr-in-quotes": '"x\ry",1\n',
  "trailing-cr-eof": "a,b\n1,2\r",
  "only-cr": "\r",
  "blank-lines": "\n\na,b\n\n1,2\n\n\n",
  "blank-crlf-lines": "\r\n\r\na,b\r\n\r\n1,2\r\n",
  empty: "",
  "only-newline": "\n",
  "quoted-comma": 'a,b\n"1,5",2\n',
  "doubled-quote": 'a\n"he said ""hi"""\n',
  "embedded-newline": 'name,note\n"Smith, John","line one\nline two"\n',
  "multi-line-field-then-error": 'a,b\n"x\ny"z,1\n',
  "bare-quote": 'a,b\n1,he said "hi" loudly\n',
  "bare-quote-first-col": 'x"y,1\n',
  "quote-after-close": 'a\n"abc"d\n',
  "unterminated-quote": 'a,b\n"never closed,1\n',
  "unterminated-quote-eof": '"abc',
  "unterminated-multi-line": 'a\n"x\ny\nz',
  "quote-then-space": '"a" ,b\n',
  "space-then-quote": 'a, "b"\n',
  "empty-quoted": '"",""\n',
  "empty-fields": ",,\n,,\n",
  "ragged-short": "a,b,c\n1,2\n",
  "ragged-long": "a,b\n1,2,3\n",
  "ragged-later": "a,b\n1,2\n3\n",
  bom: "\ufeffname,n\nx,1\n",
  "bom-quoted": '\ufeff"name",n\nx,1\n',
  "utf8-fields": "ключ,值,🎉\nä,ö,ü\n",
  "utf8-bare-quote": 'ключ,знач"ение\n',
  "utf8-quote-error": '"ключ"x,1\n',
  "unicode-spaces": "a,\u00a0b,\u3000c\n",
  "tabs-and-spaces": "a,\t b\n",
  "nul-byte": "a\u0000b,c\n",
  "lone-surrogate": "a,\ud800\n",
  "semicolon-data": "a;b\n1;2\n",
  "trailing-comma": "a,b,\n1,2,\n",
  "spaces-only-line": "   \na\n",
  "quote-at-eof-after-newline": '"a\n',
  "lazy-inner-quote": 'a,"b"c"d",e\n',
  "escaped-quote-then-eof": '"a""',
  "dot-field": "\\.,x\n",
};

const CSV_BIG_FIELD = "x".repeat(3 * 1024 * 1024);
const CSV_MANY_ROWS = Array.from({ length: 20_000 }, (_, i) => `row-${i},${i},"q,${i}"`).join("\n") + "\n";

/** Every read case, once per option set that changes Go's answer. */
export function csvCases(): EncodingCase[] {
  const cases: EncodingCase[] = [];
  const variants: [string, { comma: string; trim?: boolean; lazy?: boolean; ragged?: boolean }][] = [
    ["", { comma: "," }],
    ["-lazy", { comma: ",", lazy: true }],
    ["-trim", { comma: ",", trim: true }],
    ["-ragged", { comma: ",", ragged: true }],
    ["-trim-lazy-ragged", { comma: ",", trim: true, lazy: true, ragged: true }],
  ];
  for (const [name, text] of Object.entries(READ_TEXTS)) {
    for (const [suffix, opts] of variants) cases.push({ id: `csv-read-${name}${suffix}`, op: "csv_read", text, ...opts });
  }
  for (const [comma, name] of [
    [";", "semicolon"],
    ["\t", "tab"],
    ["|", "pipe"],
  ] as const) {
    cases.push({ id: `csv-read-delim-${name}`, op: "csv_read", text: `a${comma}b\n"1${comma}5"${comma}2\nx,y${comma}z\n`, comma });
  }
  cases.push({ id: "csv-read-huge-field", op: "csv_read", text: `a,b\n"${CSV_BIG_FIELD}",1\n`, comma: "," });
  cases.push({ id: "csv-read-huge-unquoted-field", op: "csv_read", text: `a\n${CSV_BIG_FIELD}\n`, comma: "," });
  cases.push({ id: "csv-read-many-rows", op: "csv_read", text: `name,n,q\n${CSV_MANY_ROWS}`, comma: "," });

  const writes: Record<string, string[][]> = {
    plain: [
      ["a", "b"],
      ["1", "2"],
    ],
    quoting: [["Smith, John", 'he said "hi"', "line one\nline two", "cr\rhere", "crlf\r\nhere"]],
    "leading-space": [[" a", "\tb", "\u00a0c", "\u3000d", "e "]],
    "dot-and-empty": [["\\.", "", "x\\."]],
    unicode: [["ключ", "值", "🎉", "\ufeffbom"]],
    "empty-record": [[]],
    "one-empty-field": [[""]],
    "no-records": [],
    "lone-surrogate": [["\ud800x"]],
    huge: [[CSV_BIG_FIELD + '"', "y"]],
  };
  for (const [name, records] of Object.entries(writes)) {
    for (const [comma, cname] of [
      [",", ""],
      [";", "-semicolon"],
      ["\t", "-tab"],
      ["|", "-pipe"],
    ] as const) {
      cases.push({ id: `csv-write-${name}${cname}`, op: "csv_write", records, comma });
    }
  }
  cases.push({ id: "csv-write-delims-in-fields", op: "csv_write", records: [["a;b", "c|d", "e\tf", "g,h"]], comma: ";" });
  return cases;
}
