/**
 * Differential fuzzing of the expression evaluator against the real Go SDK (the oracle of
 * test/go/oracle, as expression-conformance.test.ts runs it): generated expressions — well-formed
 * ones from the grammar, fully parenthesized, and token soup — evaluated over the corpus's default
 * payload by both engines, compared as the conformance test compares (test/conformance/harness.ts).
 * A difference passes only when it is of a documented class (docs/compatibility.md "Expressions"):
 * Go panics where we fail the field (`go-panic`), or Go evaluates text our parser refuses as a syntax
 * error (`go-lenient-syntax`). The seeds are fixed (`FUZZ_SEED` picks another); cases found this way
 * are pinned in test/conformance/cases-tinyhost.jsonl (ids `tfuzz-`).
 */
import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { compileTemplate, ExpressionSyntaxError } from "../../src/runtime/expression/index.ts";
import { DEFAULT_PAYLOAD, difference, evaluateOurs, type Case, type Outcome } from "../conformance/harness.ts";
import { runOracle } from "../conformance/oracle.ts";
import { PARENTHESIZED, TOKEN_SOUP } from "../unit/fuzz/expression-arbitraries.ts";
import { runs } from "../unit/fuzz/runs.ts";

const SEED = Number(process.env.FUZZ_SEED ?? "20261206");

/** True when our parser refuses `expr` (the field's text is then no expression at all). */
function refusedByUs(expr: string): boolean {
  try {
    compileTemplate({ v: `{{${expr}}}` });
    return false;
  } catch (e) {
    return e instanceof ExpressionSyntaxError;
  }
}

/** The documented class of a difference, or undefined for an undocumented one. */
function documentedClass(expr: string, go: Outcome): string | undefined {
  if (go.panic !== undefined) return "go-panic";
  if (go.hopError === undefined && (go.fieldErrors ?? []).length === 0 && refusedByUs(expr)) return "go-lenient-syntax";
  return undefined;
}

/** Runs `exprs` through both engines; returns the undocumented differences and counts per class. */
async function differential(prefix: string, exprs: readonly string[]): Promise<{ undocumented: string[]; classes: Record<string, number>; goResults: number }> {
  const cases: Case[] = exprs.map((e, i) => ({ id: `${prefix}-${i}`, config: { v: `{{${e}}}` }, payload: DEFAULT_PAYLOAD, file: "fuzz" }));
  const live = await runOracle(cases);
  const undocumented: string[] = [];
  const classes: Record<string, number> = {};
  let goResults = 0;
  cases.forEach((c, i) => {
    const go = live.get(c.id)!;
    if (go.result !== undefined && (go.fieldErrors ?? []).length === 0) goResults++;
    const d = difference(go, evaluateOurs(c));
    if (d === undefined) return;
    const cls = documentedClass(exprs[i]!, go);
    if (cls) classes[cls] = (classes[cls] ?? 0) + 1;
    else undocumented.push(`${JSON.stringify(exprs[i])}: ${d}`);
  });
  return { undocumented, classes, goResults };
}

describe("expression differential fuzzing against the Go oracle", () => {
  test("well-formed, fully parenthesized expressions: every difference is of a documented class", async () => {
    const exprs = fc.sample(PARENTHESIZED, { numRuns: runs(3000).numRuns, seed: SEED });
    const r = await differential("fzp", exprs);
    console.log(
      `[expression fuzz] parenthesized: ${exprs.length} cases (seed ${SEED}), ${r.goResults} evaluated by Go without a field error, documented differences ${JSON.stringify(r.classes)}`,
    );
    expect(r.undocumented).toEqual([]);
    expect(r.goResults).toBeGreaterThan(exprs.length / 20); // the grammar reaches past field errors
  }, 300_000);

  test("token soup: every difference is a Go panic or text Go evaluates and we refuse to parse", async () => {
    const exprs = fc.sample(TOKEN_SOUP, { numRuns: runs(3000).numRuns, seed: SEED });
    const r = await differential("fzs", exprs);
    console.log(`[expression fuzz] token soup: ${exprs.length} cases (seed ${SEED}), documented differences ${JSON.stringify(r.classes)}`);
    expect(r.undocumented).toEqual([]);
  }, 300_000);
});
