/**
 * budget_guard (common-module budgetguard): the cases of its Go tests (budgetguard_test.go:
 * TestExceeded, TestZeroCeilingsAreIgnored, TestReasonNamesTheCeiling, TestSettingsRejectNoCeiling)
 * plus the loop through the real runner: counters in, next counters out on proceed, exceeded past
 * a ceiling.
 */
import { describe, expect, test } from "bun:test";
import { ok, testComponent } from "tinyhost";
import guard, { exceededReason } from "../../../components/budget_guard.ts";

process.env.TINYHOST_LOG_LEVEL ??= "silent";

describe("exceededReason (Go exceeded)", () => {
  const set = { maxIterations: 3, maxTokens: 1000, maxCostUSD: 0.5 };
  const cases: [string, number, number, number, boolean][] = [
    ["first pass", 1, 10, 0.01, false],
    ["at the iteration limit still runs", 3, 10, 0.01, false],
    ["one past the iteration limit stops", 4, 10, 0.01, true],
    ["under the token budget", 2, 999, 0.01, false],
    ["over the token budget", 2, 1001, 0.01, true],
    ["over the cost budget", 2, 10, 0.51, true],
  ];
  for (const [name, iteration, tokens, usd, stop] of cases) {
    test(name, () => expect(exceededReason(set, iteration, tokens, usd) !== "").toBe(stop));
  }

  test("unset token and cost ceilings never stop a loop; the iteration ceiling always applies", () => {
    const only = { maxIterations: 5, maxTokens: 0, maxCostUSD: 0 };
    expect(exceededReason(only, 1, 999_999, 999)).toBe("");
    expect(exceededReason(only, 6, 0, 0)).toBe("iteration limit reached (5)");
  });

  test("the reason names the ceiling, with Go's numbers (%.4f for cost, ties to even)", () => {
    const s = { maxIterations: 2, maxTokens: 100, maxCostUSD: 1 };
    expect(exceededReason(s, 3, 0, 0)).toBe("iteration limit reached (2)");
    expect(exceededReason(s, 1, 101, 0)).toBe("token budget reached (101 of 100)");
    expect(exceededReason(s, 1, 0, 1.5)).toBe("cost budget reached (1.5000 of 1.0000 USD)");
    // 1.03125 is exact in binary: Go's strconv rounds the tie to even (1.0312), toFixed would give 1.0313
    expect(exceededReason(s, 1, 0, 1.03125)).toBe("cost budget reached (1.0312 of 1.0000 USD)");
    expect(exceededReason(s, 1, 0, 1.09375)).toBe("cost budget reached (1.0938 of 1.0000 USD)");
  });
});

describe("budget_guard", () => {
  test("a loop of three passes proceeds twice with the counters to map back, then is cut off", async () => {
    const h = await testComponent(guard, { settings: { maxIterations: 2 } });
    let pass = await h.send("request", { context: { task: "t" }, inputTokens: 10, outputTokens: 5, costUSD: 0.25 });
    expect(h.emitted.at(-1)).toEqual({
      port: "proceed",
      data: { context: { task: "t" }, iteration: 1, spentTokens: 15, spentUSD: 0.25, remainingIterations: 1 },
    });
    const p = h.emitted.at(-1)!.data as { iteration: number; spentTokens: number; spentUSD: number };
    pass = await h.send("request", { context: { task: "t" }, iteration: p.iteration, spentTokens: p.spentTokens, spentUSD: p.spentUSD, inputTokens: 1 });
    expect(h.emitted.at(-1)).toEqual({
      port: "proceed",
      data: { context: { task: "t" }, iteration: 2, spentTokens: 16, spentUSD: 0.25, remainingIterations: 0 },
    });
    h.respond("exceeded", (d) => ok({ reported: d }));
    pass = await h.send("request", { context: { task: "t" }, iteration: 2, spentTokens: 16, spentUSD: 0.25 });
    expect(h.emitted.at(-1)).toEqual({
      port: "exceeded",
      data: { context: { task: "t" }, reason: "iteration limit reached (2)", iteration: 3, spentTokens: 16, spentUSD: 0.25 },
    });
    expect(pass).toEqual({ kind: "ok", value: { reported: h.emitted.at(-1)!.data } });
    await h.stop();
  });

  test("a single pass that blows the token budget is caught on that pass", async () => {
    const h = await testComponent(guard, { settings: { maxIterations: 10, maxTokens: 100 } });
    await h.send("request", { inputTokens: 90, outputTokens: 20 });
    expect(h.emitted).toEqual([{ port: "exceeded", data: { reason: "token budget reached (110 of 100)", iteration: 1, spentTokens: 110, spentUSD: 0 } }]);
    await h.stop();
  });

  test("no context in, none out (Go omits a nil context); defaults allow ten passes", async () => {
    const h = await testComponent(guard);
    await h.send("request", {});
    expect(h.emitted).toEqual([{ port: "proceed", data: { iteration: 1, spentTokens: 0, spentUSD: 0, remainingIterations: 9 } }]);
    await h.stop();
  });

  test("settings without a ceiling, or with a negative one, fail the reconcile naming the field and value", async () => {
    for (const [settings, message] of [
      [{ maxIterations: 0 }, "maxIterations must be at least 1, got 0"],
      [{}, "maxIterations must be at least 1, got 0"],
      [{ maxIterations: 5, maxTokens: -1 }, "maxTokens cannot be negative, got -1"],
      [{ maxIterations: 5, maxCostUSD: -0.5 }, "maxCostUSD cannot be negative, got -0.5"],
    ] as const) {
      const h = await testComponent(guard, { settings });
      expect(h.status()).toMatchObject({ error: true });
      expect(h.status().status).toContain(message);
      await h.stop();
    }
    const good = await testComponent(guard, { settings: { maxIterations: 5 } });
    expect(good.status().error).toBeFalsy();
    await good.stop();
  });

  test("a counter that is not an integer fails the hop naming the field", async () => {
    const h = await testComponent(guard);
    const r = await h.send("request", { iteration: "two" });
    expect(r.kind).toBe("fail");
    expect(r.kind === "fail" && r.error.message).toContain("$.iteration");
    expect(h.emitted).toEqual([]);
    await h.stop();
  });
});
