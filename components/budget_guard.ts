/**
 * `budget_guard` — "Budget Guard" (common-module budgetguard, components.md §1.18): the one place
 * with a ceiling in an agent loop. Each pass through `request` counts one iteration and folds this
 * pass's tokens and cost into the running totals; within budget it emits `proceed` with the next
 * counters (map them back into `request` on the next pass), past a ceiling `exceeded` naming it.
 * The totals travel in the payload, so one node supervises many concurrent loops.
 */
import { defineComponent, mark, omitEmpty, source, target, Type } from "tinyhost";

/** Go `type Context any`: the passthrough loop payload. */
const context = (description?: string) =>
  mark(Type.Unknown({ $id: "Context" }), { configurable: true, title: "Context", ...(description ? { description } : {}) });

const Settings = Type.Object(
  {
    maxIterations: Type.Integer({ title: "Max Iterations", description: "How many times the loop may go round before it is cut off." }),
    maxTokens: Type.Optional(
      Type.Integer({ title: "Max Tokens", description: "Total input+output tokens the loop may spend. 0 means no token ceiling — iterations still apply." }),
    ),
    maxCostUSD: Type.Optional(
      Type.Number({
        title: "Max Cost (USD)",
        description: "Total spend the loop may reach, using the cost you supply per iteration. 0 means no cost ceiling.",
      }),
    ),
  },
  { $id: "Settings" },
);

const Request = Type.Object(
  {
    context: Type.Optional(context("Loop payload — passed through unchanged so the next iteration can carry on.")),
    iteration: Type.Optional(
      Type.Integer({ title: "Iteration", description: "Zero or absent on first arrival. Map the value from proceed back here on each pass." }),
    ),
    inputTokens: Type.Optional(
      Type.Integer({ title: "Input Tokens", description: "Tokens used by THIS iteration — map from the model's usage. Accumulated by the guard." }),
    ),
    outputTokens: Type.Optional(Type.Integer({ title: "Output Tokens", description: "Tokens produced by THIS iteration — map from the model's usage." })),
    costUSD: Type.Optional(Type.Number({ title: "Cost (USD)", description: "Cost of THIS iteration, if you price it. Accumulated by the guard." })),
    spentTokens: Type.Optional(Type.Integer({ title: "Spent Tokens", description: "Running total so far. Map from proceed." })),
    spentUSD: Type.Optional(Type.Number({ title: "Spent (USD)", description: "Running total so far. Map from proceed." })),
  },
  { $id: "Request" },
);

const Proceed = Type.Object(
  {
    context: Type.Optional(context()),
    iteration: Type.Optional(Type.Integer({ title: "Iteration", description: "Incremented. Map back into the guard on the next pass." })),
    spentTokens: Type.Optional(Type.Integer({ title: "Spent Tokens", description: "Running total including this iteration." })),
    spentUSD: Type.Optional(Type.Number({ title: "Spent (USD)", description: "Running total including this iteration." })),
    remainingIterations: Type.Optional(Type.Integer({ title: "Remaining Iterations" })),
  },
  { $id: "Proceed" },
);

const Exceeded = Type.Object(
  {
    context: Type.Optional(context("Loop payload at the moment it was cut off — enough to report or resume deliberately.")),
    reason: Type.Optional(Type.String({ title: "Reason", description: "Which ceiling was reached: iterations, tokens, or cost." })),
    iteration: Type.Optional(Type.Integer({ title: "Iteration" })),
    spentTokens: Type.Optional(Type.Integer({ title: "Spent Tokens" })),
    spentUSD: Type.Optional(Type.Number({ title: "Spent (USD)" })),
  },
  { $id: "Exceeded" },
);

interface Ceilings {
  maxIterations: number;
  maxTokens: number;
  maxCostUSD: number;
}

/** Go `fmt.Sprintf("%.4f", x)`: like `toFixed(4)` but an exact tie rounds half to even, as Go's strconv does. */
function fixed4(x: number): string {
  const scaled = x * 1e4;
  if (Number.isInteger(scaled * 2) && !Number.isInteger(scaled)) {
    const down = Math.floor(scaled);
    return ((down % 2 === 0 ? down : down + 1) / 1e4).toFixed(4);
  }
  return x.toFixed(4);
}

/**
 * The ceiling this pass reached, or "" while the loop may go on (Go `exceeded`). Iterations come
 * first: that limit always exists; 0 for tokens or cost means no such ceiling.
 */
export function exceededReason(set: Ceilings, iteration: number, spentTokens: number, spentUSD: number): string {
  if (iteration > set.maxIterations) return `iteration limit reached (${set.maxIterations})`;
  if (set.maxTokens > 0 && spentTokens > set.maxTokens) return `token budget reached (${spentTokens} of ${set.maxTokens})`;
  if (set.maxCostUSD > 0 && spentUSD > set.maxCostUSD) return `cost budget reached (${fixed4(spentUSD)} of ${fixed4(set.maxCostUSD)} USD)`;
  return "";
}

export default defineComponent({
  info: {
    name: "budget_guard",
    description: "Budget Guard",
    info:
      "Bounds an agent loop. Wire it into the cycle — typically between a tool result and the model it feeds — and it emits on Proceed while the loop is within budget, or on Exceeded once it is not. " +
      "Ceilings: iterations always, plus optional total tokens and cost. Map the model's usage into inputTokens/outputTokens, and map iteration/spentTokens/spentUSD from Proceed back into the guard on each pass; the counters travel in the payload so one guard can supervise many loops at once. " +
      "Without something like this a ReAct loop has no limit at all: the graph closes the circuit and every iteration bills. Wire Exceeded to a report, or to ask so a human decides whether to continue.",
    tags: ["SDK", "Agent", "Safety"],
  },
  state: (): { settings: Ceilings } => ({ settings: { maxIterations: 10, maxTokens: 0, maxCostUSD: 0 } }),
  ports: (self) => [
    target("_settings", Settings, {
      label: "Settings",
      position: "top",
      default: omitEmpty(self.settings, { values: ["maxTokens", "maxCostUSD"] }) as Ceilings,
    }),
    target("request", Request, { label: "Request", position: "left", default: {} }),
    // Concrete values (Go's), so an edge mapping the counters back in checks against numbers.
    source("proceed", Proceed, { label: "Proceed", position: "right", default: { iteration: 1, spentTokens: 0, spentUSD: 0, remainingIterations: 9 } }),
    source("exceeded", Exceeded, {
      label: "Exceeded",
      position: "bottom",
      default: { reason: "iteration limit reached (10)", iteration: 11, spentTokens: 0, spentUSD: 0 },
    }),
  ],
  onSettings(ctx, s) {
    // A ceiling of zero would let every loop through: refuse it when configured, not on the bill.
    if (s.maxIterations <= 0) throw new Error(`maxIterations must be at least 1, got ${s.maxIterations}`);
    if ((s.maxTokens ?? 0) < 0) throw new Error(`maxTokens cannot be negative, got ${s.maxTokens}`);
    if ((s.maxCostUSD ?? 0) < 0) throw new Error(`maxCostUSD cannot be negative, got ${s.maxCostUSD}`);
    ctx.self.settings = { maxIterations: s.maxIterations, maxTokens: s.maxTokens ?? 0, maxCostUSD: s.maxCostUSD ?? 0 };
  },
  handle(ctx, output, _port, data) {
    const set = ctx.self.settings;
    // Count this pass and fold its usage in before testing: an iteration that blows the whole
    // budget is caught on the pass that spent it.
    const iteration = (data.iteration ?? 0) + 1;
    const spentTokens = (data.spentTokens ?? 0) + (data.inputTokens ?? 0) + (data.outputTokens ?? 0);
    const spentUSD = (data.spentUSD ?? 0) + (data.costUSD ?? 0);
    const reason = exceededReason(set, iteration, spentTokens, spentUSD);
    if (reason !== "") return output("exceeded", omitEmpty({ context: data.context, reason, iteration, spentTokens, spentUSD }, { interfaces: ["context"] }));
    return output(
      "proceed",
      omitEmpty({ context: data.context, iteration, spentTokens, spentUSD, remainingIterations: set.maxIterations - iteration }, { interfaces: ["context"] }),
    );
  },
});
