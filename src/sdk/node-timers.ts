/**
 * Timers and background tasks a component starts, owned by its node: each ends when the node stops
 * (`ctx.nodeSignal`), and a throw or rejection inside one becomes that node's fault — its status
 * shows the error with the site (`timer`, `task`), a log line names the node, the fault counter
 * grows (src/runtime/runner/guard.ts). A bare `setTimeout` or a forgotten promise skips all that and
 * only reaches the process-level last resort. docs/authoring.md "Timers, tasks and faults".
 */
import { guardOf, type FaultSite } from "../runtime/runner/guard.ts";
import { startInterval, startTimer, type TimerOptions } from "../core/timer.ts";

/** What the helpers need from a component context: the node's lifetime signal. */
export interface NodeScoped {
  /** Aborts when the node stops (`ComponentContext.nodeSignal`). */
  readonly nodeSignal: AbortSignal;
}

/**
 * Hands a throw at `site` to the guard of the node `owner.nodeSignal` belongs to; without one (the
 * signal belongs to no runner) the error is re-thrown on a fresh microtask so the last resort logs
 * it — never dropped. Ignored once the node stopped (cancelled work).
 */
export function reportNodeFault(owner: NodeScoped, site: FaultSite, err: unknown): void {
  if (owner.nodeSignal.aborted) return; // work that fails while its node stops is being cancelled
  const guard = guardOf(owner.nodeSignal);
  if (guard) guard.fault(site, err);
  else
    queueMicrotask(() => {
      throw err;
    });
}

/** Runs `fn` (sync or async) and reports a throw or rejection. */
function runReported(owner: NodeScoped, site: FaultSite, fn: () => unknown): void {
  try {
    const r = fn();
    if (r !== null && typeof r === "object" && typeof (r as PromiseLike<unknown>).then === "function") {
      void Promise.resolve(r).then(undefined, (err: unknown) => reportNodeFault(owner, site, err));
    }
  } catch (err) {
    reportNodeFault(owner, site, err);
  }
}

/**
 * Calls `fn` once after `ms` milliseconds, unless the node stops first.
 * @param owner the component context (`ctx`). @param ms delay in ms, any length (clamped at 0;
 *   src/core/timer.ts). @param options host timers (tests pass a virtual clock).
 * @param fn sync or async; a throw/rejection faults the node at site `timer`.
 * @returns a function that cancels the timer (no-op once it ran).
 */
export function nodeTimeout(owner: NodeScoped, ms: number, fn: () => unknown, options?: TimerOptions): () => void {
  const signal = owner.nodeSignal;
  if (signal.aborted) return () => {};
  const cancel = () => {
    timer.cancel();
    signal.removeEventListener("abort", cancel);
  };
  const timer = startTimer(
    ms,
    () => {
      signal.removeEventListener("abort", cancel);
      runReported(owner, "timer", fn);
    },
    options,
  );
  signal.addEventListener("abort", cancel, { once: true });
  return cancel;
}

/**
 * Calls `fn` every `ms` milliseconds until cancelled or the node stops. A call that throws faults
 * the node (site `timer`) and the interval keeps running (the next call may succeed).
 * @param ms period in ms (at least 1), any length (src/core/timer.ts).
 * @param options host timers (tests pass a virtual clock).
 * @returns a function that cancels the interval.
 */
export function nodeInterval(owner: NodeScoped, ms: number, fn: () => unknown, options?: TimerOptions): () => void {
  const signal = owner.nodeSignal;
  if (signal.aborted) return () => {};
  const cancel = () => {
    timer.cancel();
    signal.removeEventListener("abort", cancel);
  };
  const timer = startInterval(ms, () => runReported(owner, "timer", fn), options);
  signal.addEventListener("abort", cancel, { once: true });
  return cancel;
}

/**
 * Owns background work the component does not await (a promise, or a function started now): a
 * rejection faults the node at site `task` instead of becoming an unhandled rejection. A rejection
 * after the node stopped is ignored (cancelled work).
 */
export function nodeTask(owner: NodeScoped, work: PromiseLike<unknown> | (() => unknown)): void {
  if (typeof work === "function") runReported(owner, "task", work);
  else void Promise.resolve(work).then(undefined, (err: unknown) => reportNodeFault(owner, "task", err));
}
