/**
 * Metered work (Go module/usage.go, SDK v0.13.125): a component reports what a hop cost in units it
 * names — `meter(ctx, "llm_input_tokens", 1200)` — and the runtime writes the per-unit sums on the
 * hop's input span as `tiny.usage.<unit>` (a double), which the platform's `get_usage` reads. The
 * runtime never interprets a unit. Report what the provider charged for, not an estimate.
 */
import { TinyError } from "./errors.ts";

/** Prefix of the span attribute a unit is written under (Go `module.UsageAttrPrefix`). */
export const USAGE_ATTR_PREFIX = "tiny.usage.";

/** The per-hop sums a context carries; the runner installs one per hop and reads it when the hop ends. */
export const USAGE = Symbol.for("tinyhost.usage");

/** A context that may carry a hop's usage sums (the runner's hop contexts do). */
interface Metered {
  readonly [USAGE]?: Map<string, number>;
}

/**
 * Records that this hop consumed `amount` of `unit`; amounts of one unit are summed per hop.
 * Outside a hop (a lifecycle hook, a unit test calling `handle` directly) it does nothing, and a
 * zero or negative amount is ignored — as Go's `Meter`: a provider that reported nothing must not
 * look like a hop that cost nothing measured.
 * @throws TinyError `USAGE_INVALID` when `unit` is not a string or `amount` is not a finite number
 * (Go would add a NaN to the sum; tinyhost names the bad value instead).
 */
export function meter(ctx: object, unit: string, amount: number): void {
  if (typeof unit !== "string") throw new TinyError("USAGE_INVALID", `meter: unit must be a string, got ${JSON.stringify(unit)}`);
  if (typeof amount !== "number" || !Number.isFinite(amount))
    throw new TinyError("USAGE_INVALID", `meter: amount of unit ${JSON.stringify(unit)} must be a finite number, got ${String(amount)}`);
  if (unit === "" || amount <= 0) return;
  const sums = (ctx as Metered)[USAGE];
  if (sums) sums.set(unit, (sums.get(unit) ?? 0) + amount);
}
