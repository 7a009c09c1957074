/** The step ledger's contract (runtime-spec §1.7, §2.7); its two stores are in src/runtime/durable/ (ledger.ts, run-ledger.ts). */
import type { StepRecord } from "./run.ts";

/** Where step records are kept. Every method may reject (the store is unreachable). */
export interface StepLedger {
  /** What backs the ledger: `"jetstream"` (KV `TINY_EXEC`) or `"metadata"` (node status metadata). */
  readonly kind: "jetstream" | "metadata";
  /**
   * True when step `stepKey` of run `runId` has a record, so its hop must not run again
   * (runtime-spec §2.2 step 2). `node` is the node that would run it (the metadata ledger looks there).
   */
  hasStep(runId: string, stepKey: string, node: string): Promise<boolean>;
  /** Writes the record of a step (runtime-spec §2.7); the metadata ledger writes to `record.node`. */
  putStep(runId: string, stepKey: string, record: StepRecord): Promise<void>;
  /** Every record of run `runId` this ledger can see, by step key (empty when none). */
  readRun(runId: string): Promise<Map<string, StepRecord>>;
}
