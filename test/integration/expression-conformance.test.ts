/**
 * The expression evaluator against the real Go SDK: every case of test/conformance/ runs through
 * the Go oracle (test/go/oracle: the SDK's pkg/evaluator + ajson v0.1.6 behind the runner's
 * callback, built by scripts/build-go-tools.sh) and through tinyhost's port-configuration path
 * (src/runtime/runner/port-config.ts). Any difference not listed in test/conformance/deliberate.json
 * fails, and so does a listed case that now matches Go. The recordings the unit test uses must
 * still be what the live oracle says.
 */
import { beforeAll, describe, expect, test } from "bun:test";
import { allCases, conformance, type Outcome, readDeliberate, sameGoOutcome } from "../conformance/harness.ts";
import { runOracle } from "../conformance/oracle.ts";

const cases = allCases();
const deliberate = readDeliberate();
let live: Map<string, Outcome>;

beforeAll(async () => {
  live = await runOracle(cases);
}, 600_000);

describe("expression conformance (live Go oracle)", () => {
  test("the live oracle reproduces every recorded Go outcome", () => {
    const stale = cases
      .filter((c) => !sameGoOutcome(c.go!, live.get(c.id)!))
      .map((c) => `${c.id}: recorded ${JSON.stringify(c.go)}, live ${JSON.stringify(live.get(c.id))}`);
    expect(stale).toEqual([]);
  });

  test("every case gives Go's outcome unless listed as deliberate, and every listed case differs", () => {
    const report = conformance(cases, (c) => live.get(c.id)!, deliberate);
    console.log(`expression conformance: ${report.run} cases run, ${report.equal} equal, deliberate ${JSON.stringify(report.deliberate)}`);
    expect(report.undeclared).toEqual([]);
    expect(report.stale).toEqual([]);
  });
});
