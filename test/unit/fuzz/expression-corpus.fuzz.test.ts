/**
 * The expression corpus's recorded Go outcomes (test/conformance/) as a fuzzing oracle, without Go:
 * variants of a recorded case that cannot change its meaning must still give Go's recorded outcome
 * through our engine — the payload's JSON with random whitespace between its tokens, and the
 * configuration nested one level deeper beside a constant field. Deliberate differences
 * (deliberate.json) are left out; the live comparison is test/integration/expression-fuzz.test.ts.
 */
import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { allCases, difference, evaluateOurs, readDeliberate, type Case, type Outcome } from "../../conformance/harness.ts";
import { runs } from "./runs.ts";

const deliberate = readDeliberate();
const isJson = (t: string) => {
  try {
    JSON.parse(t);
    return true;
  } catch {
    return false;
  }
};
/** Recorded cases that match Go as they are, on a payload JSON.parse accepts (so whitespace is insignificant). */
const CASES = allCases().filter(
  (c) => c.go && c.go.panic === undefined && deliberate[c.id] === undefined && isJson(c.payload) && difference(c.go, evaluateOurs(c)) === undefined,
);
const WHITESPACE = fc.array(fc.constantFrom(" ", "\n", "\t", "\r\n"), { maxLength: 3 }).map((w) => w.join(""));

/** `json` with `pads[i % pads.length]` inserted around every structural character outside strings. */
function reflow(json: string, pads: readonly string[]): string {
  let out = "";
  let inString = false;
  let k = 0;
  for (let i = 0; i < json.length; i++) {
    const ch = json[i]!;
    if (inString) {
      out += ch;
      if (ch === "\\") out += json[++i] ?? "";
      else if (ch === '"') inString = false;
      continue;
    }
    if (ch === '"') inString = true;
    if ("{}[],:".includes(ch)) out += `${pads[k++ % pads.length]}${ch}${pads[k++ % pads.length]}`;
    else out += ch;
  }
  return out;
}

function mustMatch(c: Case, go: Outcome): void {
  const d = difference(go, evaluateOurs(c));
  if (d !== undefined) throw new Error(`${c.id} ${JSON.stringify(c.config)} on ${JSON.stringify(c.payload.slice(0, 120))}: ${d}`);
}

describe("expression corpus variants (recorded Go outcomes)", () => {
  test(`the recorded cases used (${CASES.length}) are most of the corpus`, () => {
    expect(CASES.length).toBeGreaterThan(1000);
  });

  test("the payload with any whitespace between its JSON tokens gives Go's recorded outcome", () => {
    fc.assert(
      fc.property(fc.constantFrom(...CASES), fc.array(WHITESPACE, { minLength: 1, maxLength: 5 }), (c, pads) => {
        mustMatch({ ...c, payload: reflow(c.payload, pads) }, c.go!);
      }),
      runs(2000),
    );
  });

  test("the configuration nested beside a constant field gives Go's recorded outcome, nested the same way", () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...CASES.filter((c) => c.go!.hopError === undefined && typeof c.config === "object" && c.config !== null && !Array.isArray(c.config))),
        fc.stringMatching(/^[a-z][a-z0-9_]{0,8}$/).filter((k) => k !== "constant"),
        (c, key) => {
          const go: Outcome = { result: { [key]: c.go!.result, constant: "k" }, fieldErrors: c.go!.fieldErrors ?? [] };
          mustMatch({ ...c, config: { [key]: c.config, constant: "k" } }, go);
        },
      ),
      runs(1000),
    );
  });
});
