/**
 * src/golang/ against Go's recorded outcomes (test/conformance/encoding/go.jsonl, recorded from
 * test/go/codecs: encoding/csv, goccy/go-json, encoding/xml, fmt, text/template, golang-jwt).
 * Every case must give Go's outcome unless listed in deliberate.json; a listed case that matches
 * Go again fails. The live oracle is checked by test/integration/encoding-conformance.test.ts.
 */
import { describe, expect, test } from "bun:test";
import { allEncodingCases, compare, readDeliberate, readRecording } from "../../conformance/encoding/harness.ts";
import { ours } from "../../conformance/encoding/ours.ts";

const cases = allEncodingCases();
const recorded = readRecording();
const deliberate = readDeliberate();

describe("encoding conformance (recorded Go outcomes)", () => {
  test("every case has a recording and every recording a case", () => {
    expect(cases.filter((c) => !recorded.has(c.id)).map((c) => c.id)).toEqual([]);
    expect([...recorded.keys()].filter((id) => !cases.some((c) => c.id === id))).toEqual([]);
  });

  for (const op of [...new Set(cases.map((c) => c.op))]) {
    test(`${op}: every case gives Go's outcome unless deliberate`, () => {
      const subset = cases.filter((c) => c.op === op);
      const report = compare(subset, (c) => recorded.get(c.id)!, ours, deliberate);
      console.log(`encoding conformance ${op}: ${report.run} cases, ${report.equal} equal, ${report.deliberate} deliberate`);
      expect(report.undeclared).toEqual([]);
      expect(report.stale).toEqual([]);
    });
  }
});
