/**
 * The figures every benchmark prints: one JSON array on its last stdout line (the bench/run.ts
 * contract), each row `{name, value, unit, baseline, ratio, target, met}`.
 */

/** Which way a target points: the value must be at most (`max`) or at least (`min`) the target. */
export type TargetKind = "max" | "min";

/** One figure. `null` where a field does not apply. */
export interface BenchRow {
  /** Stable name, e.g. `scale_1000_nodes_ready`. */
  name: string;
  /** The measured figure, in `unit`. */
  value: number;
  /** e.g. `ms`, `MB`, `req/s`. */
  unit: string;
  /** The same-run baseline in the same unit, or null. */
  baseline: number | null;
  /** `value / baseline`, or null. */
  ratio: number | null;
  /** The target (for the value, or for the ratio when `targetOn` is `ratio`), or null. */
  target: number | null;
  /** Whether the target is met; null without a target. */
  met: boolean | null;
  /** What the target bounds; absent means `value`. */
  targetOn?: "value" | "ratio";
  /** `max` (value ≤ target) or `min` (value ≥ target); absent without a target. */
  targetKind?: TargetKind;
  /** One line of context (conditions, what the baseline is). */
  note?: string;
}

/** Fields of {@link row}. */
export interface RowInput {
  name: string;
  value: number;
  unit: string;
  baseline?: number | null;
  /** Bound on the value (`max`/`min`). */
  max?: number;
  min?: number;
  /** Bound on the ratio value/baseline instead of the value. */
  minRatio?: number;
  maxRatio?: number;
  note?: string;
  /** Decimal places kept (default: 0 for values ≥ 100, else 3). */
  digits?: number;
}

const round = (n: number, d: number) => Number(n.toFixed(d));

/** Builds a row, computing `ratio` and `met`. */
export function row(i: RowInput): BenchRow {
  const d = i.digits ?? (Math.abs(i.value) >= 100 ? 0 : 3);
  const baseline = i.baseline ?? null;
  const ratio = baseline !== null && baseline !== 0 ? round(i.value / baseline, 3) : null;
  let target: number | null = null;
  let met: boolean | null = null;
  let targetOn: "value" | "ratio" | undefined;
  let targetKind: TargetKind | undefined;
  if (i.max !== undefined) [target, met, targetOn, targetKind] = [i.max, i.value <= i.max, "value", "max"];
  else if (i.min !== undefined) [target, met, targetOn, targetKind] = [i.min, i.value >= i.min, "value", "min"];
  else if (i.minRatio !== undefined) [target, met, targetOn, targetKind] = [i.minRatio, ratio !== null && ratio >= i.minRatio, "ratio", "min"];
  else if (i.maxRatio !== undefined) [target, met, targetOn, targetKind] = [i.maxRatio, ratio !== null && ratio <= i.maxRatio, "ratio", "max"];
  return {
    name: i.name,
    value: round(i.value, d),
    unit: i.unit,
    baseline: baseline === null ? null : round(baseline, d),
    ratio,
    target,
    met,
    ...(targetOn ? { targetOn, targetKind } : {}),
    ...(i.note ? { note: i.note } : {}),
  };
}

/** Prints the rows as the last stdout line (the runner's contract). */
export function emit(rows: BenchRow[]): void {
  console.log(JSON.stringify(rows));
}

/** True when the benchmark was started with `--quick`. */
export const quick = process.argv.includes("--quick");

/** The `p`-th percentile (0–100) of an ascending array. */
export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

/** Median of unsorted numbers. */
export function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

/** Progress line on stderr, prefixed with the bench name. */
export function progress(bench: string, line: string): void {
  console.error(`[${bench}] ${line}`);
}
