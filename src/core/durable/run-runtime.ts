/**
 * The seam between the SDK's run functions (src/sdk/durable.ts) and the runtime that serves them:
 * the scheduler hangs a {@link RunRuntime} on every context it creates under {@link RUN_RUNTIME}.
 */
import type { ReplyInbox } from "./replies.ts";
import type { StepRecord } from "./run.ts";
import type { RunView } from "./view.ts";

/**
 * Key under which the runtime hangs its {@link RunRuntime} on the contexts it creates. Runtime
 * machinery: components use the functions of src/sdk/durable.ts.
 */
export const RUN_RUNTIME: unique symbol = Symbol.for("tinyhost.runRuntime");

/** What the SDK's run functions need from the runtime (the scheduler provides it). Runtime machinery. */
export interface RunRuntime {
  /** The progress of run `runId` from the ledger this module uses; undefined when it has no records. */
  readRun(runId: string): Promise<RunView | undefined>;
  /** Opens a subject on this process that waits `timeoutMs` for a run's reply hop. */
  openReply(timeoutMs: number): ReplyInbox;
  /** Writes the root step record of a run a component began (best effort: failures are logged). */
  recordRoot(runId: string, stepKey: string, record: StepRecord): Promise<void>;
}
