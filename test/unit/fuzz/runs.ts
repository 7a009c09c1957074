/**
 * Case counts of the property fuzzers (docs/testing.md "Fuzzing"): fixed per run so the unit suite
 * stays within seconds; `FUZZ_RUNS_SCALE` multiplies them for a longer local or nightly run, and a
 * failing seed is printed by fast-check so it can become a regular test.
 */
const scale = Number(process.env.FUZZ_RUNS_SCALE ?? "1");

/** `n` cases scaled by `FUZZ_RUNS_SCALE` (default 1). */
export function runs(n: number): { numRuns: number } {
  return { numRuns: Math.max(1, Math.round(n * (Number.isFinite(scale) && scale > 0 ? scale : 1))) };
}
