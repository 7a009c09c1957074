/**
 * The scheduler's durable-run services behind the SDK's run functions (src/sdk/durable.ts): the
 * ledger read, reply subjects, and the root record of runs components begin.
 */
import type { ComponentLogger } from "../../core/context.ts";
import type { RunRuntime } from "../../core/durable/run-runtime.ts";
import type { StepLedger } from "../../core/durable/step-ledger.ts";
import type { ReplyChannels, ReplyInbox } from "../../core/durable/replies.ts";
import type { StepRecord } from "../../core/durable/run.ts";
import { viewRun, type RunView } from "../../core/durable/view.ts";
import { messageOf } from "../../core/errors.ts";

/** {@link RunRuntime} over one ledger and one way of opening reply subjects. */
export class SchedulerRuns implements RunRuntime {
  constructor(
    readonly ledger: StepLedger,
    readonly replies: ReplyChannels,
    readonly log: ComponentLogger,
  ) {}

  async readRun(runId: string): Promise<RunView | undefined> {
    return viewRun(runId, await this.ledger.readRun(runId));
  }

  openReply(timeoutMs: number): ReplyInbox {
    return this.replies.openReply(timeoutMs);
  }

  async recordRoot(runId: string, stepKey: string, record: StepRecord): Promise<void> {
    try {
      await this.ledger.putStep(runId, stepKey, record);
    } catch (err) {
      this.log.warn({ runId, stepKey, node: record.node, err: messageOf(err) }, "root step record not written");
    }
  }
}
