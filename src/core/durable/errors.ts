/** Errors of durable runs; each names the run, step or subject involved. */
import { TinyError, messageOf } from "../errors.ts";

/**
 * A durable step ran but its ledger record could not be written (runtime-spec §2.7). code
 * `"STEP_NOT_RECORDED"`. The JetStream receiver treats it as retryable: the hop is redelivered and
 * the step runs again (its emits de-duplicate by step key), instead of being acked unrecorded.
 */
export class StepNotRecordedError extends TinyError {
  constructor(node: string, stepKey: string, cause: unknown) {
    super("STEP_NOT_RECORDED", `node ${node}: step ${stepKey} ran but its ledger record was not written: ${messageOf(cause)}`, { cause });
  }
}

/** The ledger could not be read before a durable step (runtime-spec §2.2 step 2). code `"LEDGER_UNAVAILABLE"`. */
export class LedgerUnavailableError extends TinyError {
  constructor(node: string, stepKey: string, cause: unknown) {
    super("LEDGER_UNAVAILABLE", `node ${node}: step ledger unreadable for step ${stepKey}: ${messageOf(cause)}`, { cause });
  }
}

/** A run's reply did not arrive before its deadline (runtime-spec §1.7 `ReplyDeadlineUnixMs`). code `"RUN_REPLY_TIMEOUT"`. */
export class RunReplyTimeoutError extends TinyError {
  constructor(subject: string, timeoutMs: number) {
    super("RUN_REPLY_TIMEOUT", `no reply on ${subject} within ${timeoutMs} ms`);
  }
}

/** A run API was used from a context the runtime did not create (no scheduler behind it). code `"NO_RUN_RUNTIME"`. */
export class NoRunRuntimeError extends TinyError {
  constructor(what: string) {
    super("NO_RUN_RUNTIME", `${what}: this context has no durable-run runtime (call it from a handler the tinyhost runtime invoked)`);
  }
}
