/**
 * The expression evaluator against Go's recorded results (test/conformance/: 318 cases recorded
 * by the integrator, our own cases recorded from the Go oracle by test/conformance/record.ts),
 * through the runner's port-configuration path. The live oracle runs in
 * test/integration/expression-conformance.test.ts; this test needs no Go.
 */
import { describe, expect, test } from "bun:test";
import { allCases, conformance, readDeliberate, REASON_CLASSES } from "../../conformance/harness.ts";

const cases = allCases();
const deliberate = readDeliberate();

describe("expression conformance (recorded Go results)", () => {
  test("the corpus holds at least 600 cases with unique ids, each with Go's recorded outcome", () => {
    expect(cases.length).toBeGreaterThanOrEqual(600);
    expect(new Set(cases.map((c) => c.id)).size).toBe(cases.length);
    expect(cases.filter((c) => c.go === undefined).map((c) => c.id)).toEqual([]);
  });

  test("deliberate.json names only corpus cases, each with a known reason class", () => {
    const ids = new Set(cases.map((c) => c.id));
    expect(Object.keys(deliberate).filter((id) => !ids.has(id))).toEqual([]);
    expect(Object.entries(deliberate).filter(([, cls]) => !(REASON_CLASSES as readonly string[]).includes(cls))).toEqual([]);
  });

  const report = conformance(cases, (c) => c.go!, deliberate);

  test("every case not listed as deliberate gives Go's recorded outcome", () => {
    expect(report.undeclared).toEqual([]);
  });

  test("every case listed as deliberate still differs from Go (else it must be unlisted)", () => {
    expect(report.stale).toEqual([]);
  });
});
