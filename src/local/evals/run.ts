/**
 * Runs eval specs against a flow in local mode, as the platform's `tiny eval` runs them against a
 * cluster (TinySystems CLI internal/eval/run.go): fire the trigger as `send_signal` does, collect
 * what the run's spans recorded — every payload by `node:port` (input spans under their `to`,
 * emits under their `port`), failures that escaped (input spans ending in an error), emits on an
 * `error` port as handled — wait until the run settled, and judge it with {@link check}.
 * Settled: something beyond the trigger's own `_control` hop ran, no span is open, and none opened
 * or ended for the settle time (the platform waits for no new spans in its trace store for 3 s;
 * here spans are seen as they happen, so open ones are known and the wait is shorter). A run still
 * going at the timeout is judged on what there is, as the platform does.
 */
import type { LocalHost } from "../host.ts";
import type { SpanListener, TappedSpan } from "../span-tap.ts";
import { check, type Failure, type Observed } from "./check.ts";
import type { EvalSpec } from "./spec.ts";

/** Default settle time, ms. */
export const DEFAULT_SETTLE_MS = 500;

/** The outcome of one eval. */
export interface EvalResult {
  spec: EvalSpec;
  /** The node the trigger was sent to (resolved from the spec's name or suffix). */
  node?: string;
  /** Assertions that did not hold (empty: passed, unless {@link error}). */
  failures: Failure[];
  /** Set when the eval could not run at all (no such node, nothing ran); distinct from a failed claim. */
  error?: string;
  /** What the run produced. */
  observed: Observed;
  durationMs: number;
}

/** True when the eval ran and every assertion held. */
export function passed(r: EvalResult): boolean {
  return r.error === undefined && r.failures.length === 0;
}

/** Options of {@link runEval}. */
export interface RunEvalOptions {
  /** Quiet time that ends a run, ms (default {@link DEFAULT_SETTLE_MS}). */
  settleMs?: number;
  /** Polling step of the settle check, ms (default 20). */
  pollMs?: number;
}

/**
 * The declared node `ref` names: its full name, else the one name ending in `ref` or `.ref` (a
 * flow's prefix changes when a project is re-imported; Go pkg/evals `Trigger.Node`).
 * @throws Error naming the candidates when none or several match.
 */
export function resolveNode(names: Iterable<string>, ref: string): string {
  const all = [...names];
  if (all.includes(ref)) return ref;
  const hits = all.filter((n) => n.endsWith(`.${ref}`) || n.endsWith(ref)).sort();
  if (hits.length === 1) return hits[0]!;
  if (hits.length === 0) return fail(`trigger node ${JSON.stringify(ref)} matches no node of the flow (nodes: ${all.sort().join(", ") || "none"})`);
  return fail(`trigger node ${JSON.stringify(ref)} is ambiguous: it ends ${hits.length} node names (${hits.join(", ")}); give more of the name`);
}

function fail(message: string): never {
  throw new Error(message);
}

/** Fires `spec`'s trigger on `host` and judges the run. Never throws: a run that cannot happen is {@link EvalResult.error}. */
export async function runEval(host: LocalHost, spec: EvalSpec, options: RunEvalOptions = {}): Promise<EvalResult> {
  const t0 = performance.now();
  const observed: Observed = { payloads: {}, errors: 0, handled: 0, usage: {} };
  const done = (extra: Partial<EvalResult>): EvalResult => ({ spec, failures: [], observed, durationMs: performance.now() - t0, ...extra });
  let node: string;
  try {
    node = resolveNode(host.desired().keys(), spec.trigger.node);
  } catch (err) {
    return done({ error: (err as Error).message });
  }
  const settleMs = options.settleMs ?? DEFAULT_SETTLE_MS;
  let open = 0;
  let spans = 0;
  let started = false;
  let lastActivity = performance.now();
  const listener: SpanListener = {
    opened(_kind, key) {
      open++;
      spans++;
      lastActivity = performance.now();
      if (!key.endsWith(":_control")) started = true;
    },
    ended(s: TappedSpan) {
      open--;
      lastActivity = performance.now();
      if (s.payload !== undefined) (observed.payloads[s.key] ??= []).push(s.payload);
      if (s.error) observed.errors++;
      if (s.kind === "output" && s.key.endsWith(":error")) observed.handled++;
      for (const [unit, amount] of s.usage ?? []) observed.usage[unit] = (observed.usage[unit] ?? 0) + amount; // Go sums every span's
    },
  };
  const untap = host.tapSpans(listener);
  try {
    let fired: Awaited<ReturnType<LocalHost["send"]>> | undefined;
    void host.send(node, spec.trigger.port, structuredClone(spec.trigger.data ?? {})).then((r) => (fired = r));
    const deadline = t0 + spec.timeoutMs;
    const poll = options.pollMs ?? 20;
    while (performance.now() < deadline) {
      await Bun.sleep(poll);
      // The trigger never reached a node (an unknown port): nothing will run.
      if (fired?.kind === "fail" && spans === 0) return done({ node, error: `fire ${node}:${spec.trigger.port}: ${fired.error.message}` });
      if (started && open === 0 && performance.now() - lastActivity >= settleMs) break;
    }
    if (spans === 0)
      return done({
        node,
        error: `nothing ran within ${formatMs(spec.timeoutMs)} — the trigger was sent but no hop was recorded. Check the node id, and that its module runs here`,
      });
    return done({ node, failures: check(spec, observed) });
  } finally {
    untap();
  }
}

/** `45s`, `1.5s`, `250ms`. */
export function formatMs(ms: number): string {
  return ms >= 1000 ? `${Number((ms / 1000).toFixed(1))}s` : `${Math.round(ms)}ms`;
}
