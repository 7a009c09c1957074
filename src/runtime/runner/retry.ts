/**
 * Per-edge retry policy (runtime-spec §2.5): how many attempts, which errors qualify, and the delay
 * between attempts.
 */
import { errorCode, isTimeout, shouldRetry } from "../../core/errors.ts";
import type { RetryPolicy } from "../../core/node.ts";

/** Attempts when a policy is absent or `maxAttempts <= 0` (runtime-spec §2.5 `defaultMaxAttempts`). */
export const DEFAULT_MAX_ATTEMPTS = 3;
/** Default first backoff delay, ms (runtime-spec §13.1). */
export const DEFAULT_INITIAL_DELAY_MS = 1000;
/** Default backoff multiplier (runtime-spec §13.1). */
export const DEFAULT_BACKOFF_COEFFICIENT = 2;
/** Default cap on one backoff delay, ms (runtime-spec §13.1). */
export const DEFAULT_MAX_DELAY_MS = 30_000;

/** A retry policy with every default resolved. */
export interface ResolvedRetryPolicy {
  maxAttempts: number;
  initialDelayMs: number;
  coefficient: number;
  maxDelayMs: number;
  nonRetryableCodes: ReadonlySet<string>;
  /** Deadline for the whole attempt loop, ms; 0 = none (runtime-spec §2.5: bounds the loop, not one attempt). */
  timeoutMs: number;
}

const EMPTY_CODES: ReadonlySet<string> = new Set();

/** The policy used when an edge has none (and for direct `node:port` sends). */
export const DEFAULT_RETRY_POLICY: ResolvedRetryPolicy = Object.freeze({
  maxAttempts: DEFAULT_MAX_ATTEMPTS,
  initialDelayMs: DEFAULT_INITIAL_DELAY_MS,
  coefficient: DEFAULT_BACKOFF_COEFFICIENT,
  maxDelayMs: DEFAULT_MAX_DELAY_MS,
  nonRetryableCodes: EMPTY_CODES,
  timeoutMs: 0,
});

/**
 * Resolves an edge's `retryPolicy` (runtime-spec §2.5): `maxAttempts > 0` else 3; `initialDelayMs`
 * default 1000; `backoffCoefficient` parsed as a float if ≥ 1 else 2; `maxDelayMs` default 30000.
 */
export function resolveRetryPolicy(p: RetryPolicy | undefined): ResolvedRetryPolicy {
  if (!p) return DEFAULT_RETRY_POLICY;
  const coef = Number.parseFloat(p.backoffCoefficient ?? "");
  return {
    maxAttempts: p.maxAttempts && p.maxAttempts > 0 ? Math.floor(p.maxAttempts) : DEFAULT_MAX_ATTEMPTS,
    initialDelayMs: p.initialDelayMs && p.initialDelayMs > 0 ? p.initialDelayMs : DEFAULT_INITIAL_DELAY_MS,
    coefficient: Number.isFinite(coef) && coef >= 1 ? coef : DEFAULT_BACKOFF_COEFFICIENT,
    maxDelayMs: p.maxDelayMs && p.maxDelayMs > 0 ? p.maxDelayMs : DEFAULT_MAX_DELAY_MS,
    nonRetryableCodes: p.nonRetryableErrorCodes?.length ? new Set(p.nonRetryableErrorCodes) : EMPTY_CODES,
    timeoutMs: p.timeoutMs && p.timeoutMs > 0 ? p.timeoutMs : 0,
  };
}

/** Delay before attempt `attempt + 1` after attempt `attempt` (1-based) failed, ms: initial × coef^(attempt-1), capped. */
export function backoffDelayMs(policy: ResolvedRetryPolicy, attempt: number): number {
  return Math.min(policy.initialDelayMs * policy.coefficient ** (attempt - 1), policy.maxDelayMs);
}

/** Whether a failure of attempt `attempt` with `err` earns another attempt under `policy`. */
export function mayRetry(policy: ResolvedRetryPolicy, attempt: number, err: Error): boolean {
  if (attempt >= policy.maxAttempts) return false;
  if (!shouldRetry(err)) return false;
  const code = errorCode(err);
  return !(code !== undefined && policy.nonRetryableCodes.has(code));
}

/**
 * Whether `err` is a wire transport's deadline error for the deadline `deadlineUnixMs` (the edge's
 * own, which the runner put on the hop): a timeout ({@link isTimeout}, e.g. gRPC
 * `DEADLINE_EXCEEDED`) in the cause chain that carries that exact `deadlineUnixMs`. The runner then
 * answers `EDGE_TIMEOUT`, the same as when its own timer fires first (runtime-spec §2.5: `timeoutMs`
 * bounds the loop). A timeout with another deadline (a remote component's own, the 5-minute default)
 * stays what it is.
 */
export function isDeadlineOf(err: Error, deadlineUnixMs: number): boolean {
  for (let e: unknown = err, i = 0; e instanceof Error && i < 64; e = e.cause, i++) {
    if ((e as { deadlineUnixMs?: unknown }).deadlineUnixMs === deadlineUnixMs && isTimeout(e)) return true;
  }
  return false;
}
