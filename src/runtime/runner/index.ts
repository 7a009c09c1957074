/** The runner: one per node (runtime-spec §2). */
export { Runner, identityOf, DEFAULT_STOP_FLUSH_MS, type RunnerHost, type StatusSink } from "./runner.ts";
export { HopScope, rootScope, describeCycle } from "./scope.ts";
export { noopTracer, otelTracer, noopSpan, type Tracer, type HopSpan, type HopSite } from "./tracer.ts";
export {
  MetadataState,
  StateTooLargeError,
  StateWriteError,
  STATE_PREFIX,
  STATE_MAX_BYTES,
  STATE_OVERLAY_TTL_MS,
  type MetadataStore,
} from "./metadata-state.ts";
export { resolveRetryPolicy, backoffDelayMs, mayRetry, DEFAULT_RETRY_POLICY, type ResolvedRetryPolicy } from "./retry.ts";
export {
  PortValidationError,
  PayloadDecodeError,
  EmptyPortError,
  NodeStoppedError,
  EdgeTimeoutError,
  HopCancelledError,
  StatusWriteError,
  type PortIssue,
} from "./errors.ts";
export { PortConfigError } from "./port-config.ts";
export { statusPorts, statusComponent, redact, REDACTED } from "./status.ts";
export { StatusWriter, DEFAULT_WRITE_RETRY, type WriteRetry, type WriteOutcome, type FlushOutcome } from "./status-writer.ts";
export { NodeGuard, ComponentFaultError, componentFaults, guardOf, recordFault, type FaultSite, type GuardTarget } from "./guard.ts";
