/**
 * A run's progress read from its step records (runtime-spec §1.7: "a run's progress is readable
 * straight out of the store"): the steps, the frontier (hops emitted by a recorded step that have no
 * record of their own yet), and a status. The run reconciler (§3.6) and the SDK's `readRun` share it.
 */
import type { EmitRecord, StepRecord } from "./run.ts";

/** One recorded step with its key. */
export interface StepView extends StepRecord {
  stepKey: string;
}

/** What a run's records say. */
export interface RunView {
  runId: string;
  /**
   * `"failed"` when a step failed; else `"running"` while some emitted hop has no record; else
   * `"done"`. A run whose records are gone (unknown, or deleted 24 h after it finished) has no view.
   */
  status: "running" | "done" | "failed";
  /** Recorded steps, oldest completion first. */
  steps: StepView[];
  /**
   * Hops emitted by recorded steps that have no record yet. The run's reply hop is not a step (it
   * goes to the waiting origin, never to a handler), so it is never part of the frontier.
   */
  frontier: EmitRecord[];
  /** Latest `completedAt` over the steps, unix ms (0 when none parses). */
  lastProgressMs: number;
}

/** Builds the view of run `runId` from its records; undefined when there are none. */
export function viewRun(runId: string, records: ReadonlyMap<string, StepRecord>): RunView | undefined {
  if (records.size === 0) return undefined;
  const steps: StepView[] = [];
  const frontier: EmitRecord[] = [];
  let last = 0;
  let failed = false;
  for (const [stepKey, rec] of records) {
    steps.push({ ...rec, stepKey });
    last = Math.max(last, Date.parse(rec.completedAt) || 0);
    if (rec.status === "failed") failed = true;
    for (const e of rec.emits ?? []) {
      if (records.has(e.stepKey)) continue;
      if (e.replySubject && e.replyTarget && e.to === e.replyTarget) continue; // the reply hop
      frontier.push(e);
    }
  }
  steps.sort((a, b) => (Date.parse(a.completedAt) || 0) - (Date.parse(b.completedAt) || 0));
  return { runId, status: failed ? "failed" : frontier.length > 0 ? "running" : "done", steps, frontier, lastProgressMs: last };
}
