/**
 * The run reconciler, the durable safety net (runtime-spec §3.6): on the leader, every interval,
 * read the run ledger; re-publish frontier hops (emitted, never recorded) of runs idle longer than
 * `staleAfter`, at most `maxRedrives` times each, then give up with a failed record; delete the keys
 * of finished runs idle longer than `gcAfter`. A run's reply hop is not part of its frontier
 * (src/core/durable/view.ts): it goes to the waiting origin, never to a handler, so it never
 * gets a record — Go counts it and ends every replied run with a "re-drive limit" failure.
 */
import type { Result } from "../../core/result.ts";
import type { Logger } from "../../telemetry/log.ts";
import { logger as rootLogger } from "../../telemetry/log.ts";
import type { Msg } from "../../core/hop.ts";
import { parseStepRecord } from "./ledger.ts";
import type { StepRecord } from "../../core/durable/run.ts";
import { viewRun } from "../../core/durable/view.ts";
import type { RunLedger } from "./run-ledger.ts";
import { startInterval, type Timer } from "../../core/timer.ts";

/** Pass interval, ms (runtime-spec §13.1: 1 min). */
export const RECONCILE_INTERVAL_MS = 60_000;
/** A run with a frontier and no progress for this long is re-driven, ms (6 min). */
export const STALE_AFTER_MS = 6 * 60_000;
/** A finished run idle this long is deleted, ms (24 h). */
export const GC_AFTER_MS = 24 * 60 * 60_000;
/** Re-drives per frontier hop before a terminal failed record. */
export const MAX_REDRIVES = 3;

/** Options of {@link RunReconciler}; every timing is a parameter so tests use small values. */
export interface RunReconcilerOptions {
  ledger: RunLedger;
  /** Sends a re-driven hop (through the router, so it goes out with its original step key). */
  republish: (msg: Msg) => Promise<Result>;
  /** Passes run only while this is true (runtime-spec §3.6: leader-gated). */
  isLeader: () => boolean;
  intervalMs?: number;
  staleAfterMs?: number;
  gcAfterMs?: number;
  maxRedrives?: number;
  /** Clock, ms since epoch; default `Date.now`. */
  now?: () => number;
  log?: Logger;
}

/** What one pass did. */
export interface PassReport {
  runs: number;
  redriven: number;
  gaveUp: number;
  deletedRuns: number;
}

interface RunView {
  steps: Map<string, StepRecord>;
  keys: string[];
}

const STEP_KEY = /^exec\/([^/]+)\/step\/(.+)$/;
const REDRIVE_KEY = /^exec\/([^/]+)\/redrive\/(.+)$/;

/** Periodic leader-only ledger pass. */
export class RunReconciler {
  readonly #o: RunReconcilerOptions;
  readonly #log: Logger;
  #timer: Timer | undefined;
  #running: Promise<PassReport> | undefined;

  constructor(o: RunReconcilerOptions) {
    this.#o = o;
    this.#log = o.log ?? rootLogger.child({ component: "run-reconciler" });
  }

  /** Starts periodic passes (a pass never overlaps the previous one). */
  start(): void {
    this.#timer ??= startInterval(this.#o.intervalMs ?? RECONCILE_INTERVAL_MS, () => {
      if (this.#running || !this.#o.isLeader()) return;
      this.#running = this.pass()
        .catch((err: unknown) => {
          this.#log.warn({ err: String(err) }, "run reconciler pass failed");
          return { runs: 0, redriven: 0, gaveUp: 0, deletedRuns: 0 };
        })
        .finally(() => (this.#running = undefined));
    });
  }

  /** Stops the passes; waits for a running one. */
  async stop(): Promise<void> {
    this.#timer?.cancel();
    this.#timer = undefined;
    await this.#running;
  }

  /** One pass over the whole ledger (runtime-spec §3.6). */
  async pass(): Promise<PassReport> {
    const o = this.#o;
    const now = (o.now ?? Date.now)();
    const runs = new Map<string, RunView>();
    const view = (id: string) => {
      let v = runs.get(id);
      if (!v) runs.set(id, (v = { steps: new Map(), keys: [] }));
      return v;
    };
    for (const key of await o.ledger.keys()) {
      const s = STEP_KEY.exec(key);
      if (s) {
        const v = view(s[1]!);
        v.keys.push(key);
        const rec = parseStepRecord(await o.ledger.raw(key)); // unreadable: skipped (runtime-spec §3.6)
        if (rec) v.steps.set(s[2]!, rec);
        continue;
      }
      const r = REDRIVE_KEY.exec(key);
      if (r) view(r[1]!).keys.push(key);
    }
    const report: PassReport = { runs: runs.size, redriven: 0, gaveUp: 0, deletedRuns: 0 };
    for (const [runId, v] of runs) {
      const run = viewRun(runId, v.steps);
      const frontier = run?.frontier ?? [];
      const latest = run?.lastProgressMs ?? 0;
      const idle = now - latest;
      if (frontier.length === 0) {
        if (latest > 0 && idle > (o.gcAfterMs ?? GC_AFTER_MS)) {
          for (const k of v.keys) await o.ledger.delete(k);
          report.deletedRuns++;
        }
        continue;
      }
      if (idle <= (o.staleAfterMs ?? STALE_AFTER_MS)) continue;
      const max = o.maxRedrives ?? MAX_REDRIVES;
      for (const hop of frontier) {
        const n = await o.ledger.redrives(runId, hop.stepKey);
        if (n >= max) {
          await o.ledger.putStep(runId, hop.stepKey, {
            node: hop.to,
            status: "failed",
            error: `re-drive limit reached after ${n} attempts — hop to ${hop.to} never completed`,
            completedAt: new Date(now).toISOString(),
          });
          report.gaveUp++;
          continue;
        }
        const msg: Msg = { edgeId: hop.edgeID, from: hop.from, to: hop.to, data: Buffer.from(hop.data, "base64"), depth: 0, runId, stepKey: hop.stepKey };
        if (hop.replySubject) msg.replySubject = hop.replySubject;
        if (hop.replyTarget) msg.replyTarget = hop.replyTarget;
        if (hop.replyDeadlineUnixMs) msg.replyDeadlineUnixMs = hop.replyDeadlineUnixMs;
        const r = await o.republish(msg);
        if (r.kind === "fail") {
          this.#log.warn({ runId, stepKey: hop.stepKey, err: r.error.message }, "re-drive publish failed");
          continue;
        }
        await o.ledger.setRedrives(runId, hop.stepKey, n + 1);
        report.redriven++;
      }
    }
    return report;
  }
}
