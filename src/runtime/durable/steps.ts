/**
 * One durable step (runtime-spec §2.2 step 2, §2.7, §14.4): how a hop that belongs to a run — or
 * that starts one at a node labelled `tinysystems.io/execution-mode: durable` — reaches its handler.
 *
 * 1. A hop carrying a run whose step already has a ledger record is skipped: the handler (and its
 *    side effects) never run twice for one step.
 * 2. Otherwise the handler runs with the run current (src/core/durable/run.ts), so the hops it emits are stamped
 *    with child step keys by the scheduler's router and recorded as this step's emits.
 * 3. After the handler returned — every emit is then stored — the step's record is written; only
 *    then does the caller (the JetStream receiver) ack. A failure the component marked retryable
 *    is not recorded, so the step can run again (an edge retry in process, a JetStream redelivery,
 *    the run reconciler); any other failure is recorded as `failed`, which is terminal.
 *
 * The same protocol runs whatever the ledger is (JetStream KV or node metadata), so runs behave
 * alike with and without JetStream; only the delivery of hops differs (src/runtime/scheduler/scheduler.ts).
 */
import { coded, retryable, shouldRetry, TinyError, messageOf } from "../../core/errors.ts";
import { empty, fail, type Result } from "../../core/result.ts";
import type { ComponentLogger } from "../../core/context.ts";
import type { Msg } from "../../core/hop.ts";
import { LedgerUnavailableError, StepNotRecordedError } from "../../core/durable/errors.ts";
import type { StepLedger } from "../../core/durable/step-ledger.ts";
import { mintRun, RunContext, rootStepKey, withRun, type StepRecord } from "../../core/durable/run.ts";

/** Counters a test or a metrics endpoint can read. */
export interface DurableStepStats {
  /** Runs minted at durable-labelled nodes. */
  minted: number;
  /** Hops skipped because their step already had a record. */
  skipped: number;
  /** Step records written. */
  recorded: number;
  /** Step-record writes that failed. */
  recordFailures: number;
  /** Steps that failed retryably and were left unrecorded so they can run again. */
  retryable: number;
}

/** Runs durable steps against one ledger. */
export class DurableSteps {
  readonly stats: DurableStepStats = { minted: 0, skipped: 0, recorded: 0, recordFailures: 0, retryable: 0 };

  constructor(
    readonly ledger: StepLedger,
    readonly log: ComponentLogger,
  ) {}

  /**
   * Runs `handle` as the step `msg` is, on node `node`: continuing `msg`'s run, or minting one when
   * `msg` carries none. Never rejects.
   * @returns `empty` for a skipped replay; the handler's result otherwise; `fail` with a retryable
   *   {@link StepNotRecordedError} / {@link LedgerUnavailableError} when a continued step's ledger
   *   cannot be written / read (so a JetStream hop is redelivered rather than acked unrecorded);
   *   a record the ledger refuses for its size (`PAYLOAD_TOO_LARGE`) fails with that code, not
   *   retryable, since a re-run would write the same record.
   */
  async run(node: string, msg: Msg, handle: () => Promise<Result>): Promise<Result> {
    let run: RunContext;
    const minted = !msg.runId;
    if (msg.runId) {
      const stepKey = msg.stepKey || rootStepKey(msg.runId);
      if (msg.stepKey) {
        try {
          if (await this.ledger.hasStep(msg.runId, stepKey, node)) {
            this.stats.skipped++;
            this.log.debug({ node, runId: msg.runId, stepKey }, "step already recorded; durable replay skipped");
            return empty;
          }
        } catch (err) {
          return fail(retryable(new LedgerUnavailableError(node, stepKey, err)));
        }
      }
      run = new RunContext({ ...msg, runId: msg.runId, stepKey });
    } else {
      run = mintRun();
      this.stats.minted++;
      this.log.debug({ node, runId: run.runId }, "durable run minted");
    }
    const startedAt = new Date();
    const result = await withRun(run, handle);
    if (result.kind === "fail" && shouldRetry(result.error)) {
      // Go records it as failed, which makes its own retries (edge policy, nak) skip the step.
      this.stats.retryable++;
      return result;
    }
    const completedAt = new Date();
    const record: StepRecord = {
      node,
      status: result.kind === "fail" ? "failed" : "done",
      ...(result.kind === "fail" ? { error: result.error.message } : {}),
      ...(run.emits.length > 0 ? { emits: run.emits } : {}),
      startedAt: startedAt.toISOString(),
      completedAt: completedAt.toISOString(),
      durationMs: completedAt.getTime() - startedAt.getTime(),
    };
    try {
      await this.ledger.putStep(run.runId, run.stepKey, record);
      this.stats.recorded++;
    } catch (err) {
      this.stats.recordFailures++;
      this.log.warn({ node, runId: run.runId, stepKey: run.stepKey, err: messageOf(err) }, "step record not written");
      // A minted run's first step came in as a classic hop: nothing would redeliver it as this step.
      if (minted) return result;
      const notRecorded = new StepNotRecordedError(node, run.stepKey, err);
      // A record over the broker's max_payload never fits: running the step again cannot help.
      if (isPayloadTooLarge(err)) return fail(coded(PAYLOAD_TOO_LARGE, notRecorded));
      return fail(retryable(notRecorded));
    }
    return result;
  }
}

/** Code of a write refused for its size (the NATS transport's PayloadTooLargeError). */
const PAYLOAD_TOO_LARGE = "PAYLOAD_TOO_LARGE";

function isPayloadTooLarge(err: unknown): boolean {
  return err instanceof TinyError && err.code === PAYLOAD_TOO_LARGE;
}
