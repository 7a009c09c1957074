/**
 * Error markings for edge retries, and the canonical error-port payload.
 *
 * Rules from runtime-spec §1.6: `retryable`/`permanent` wrap (nil stays nil); `shouldRetry` walks the
 * `cause` chain; a permanent marking anywhere beats a retryable one; plain errors are NOT retried
 * (default-deny); a coded error is not retryable unless also marked retryable.
 */

/**
 * Base class of every tinyhost error — the runtime's, the components' and an author's: carries a
 * machine-readable `code` (project standard: errors are classes with a code). `C`
 * narrows the code's type for classes with one fixed code (`TinyError<"K8S_API">`). `name` is the
 * class name unless a subclass sets another.
 */
export class TinyError<C extends string = string> extends Error {
  /** Machine-readable reason, e.g. `"VALIDATION"`, `"PERMANENT"`. */
  readonly code: C;
  /** @param code - stable code. @param message - names the field and value at fault. @param options - `cause`. */
  constructor(code: C, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.code = code;
    this.name = new.target.name;
  }
}

/** Marks `cause` as worth retrying by edge retry policies (runtime-spec §1.6 `Retryable`). code `"RETRYABLE"`. */
export class RetryableError extends TinyError {
  constructor(cause: Error) {
    super("RETRYABLE", cause.message, { cause });
  }
}

/** Marks `cause` as never to be retried; beats any retryable marking (runtime-spec §1.6 `PermanentError`). code `"PERMANENT"`. */
export class PermanentError extends TinyError {
  constructor(cause: Error | string) {
    const err = typeof cause === "string" ? new Error(cause) : cause;
    super("PERMANENT", err.message, { cause: err });
  }
}

/**
 * An error with an explicit code; message is `"<code>: <message>"` (runtime-spec §1.6 `CodedError`).
 * Not retryable unless wrapped by {@link retryable}.
 */
export class CodedError extends TinyError {
  constructor(code: string, cause: Error) {
    super(code, `${code}: ${cause.message}`, { cause });
  }
}

/** The message of anything thrown: an Error's `message`, anything else as `String(x)`. */
export function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

function asError(err: unknown): Error {
  return err instanceof Error ? err : new Error(String(err));
}

/** Wraps `err` as retryable; `null`/`undefined` stays as is. runtime-spec §1.6. */
export function retryable<E>(err: E): E extends null | undefined ? E : RetryableError {
  if (err === null || err === undefined) return err as never;
  return new RetryableError(asError(err)) as never;
}

/** Wraps `err` as permanent (never retried); `null`/`undefined` stays as is. runtime-spec §1.6. */
export function permanent<E>(err: E): E extends null | undefined ? E : PermanentError {
  if (err === null || err === undefined) return err as never;
  return new PermanentError(asError(err)) as never;
}

/** Wraps `err` with a code (message `"<code>: <msg>"`). runtime-spec §1.6 `NonRetryable(code, err)`. */
export function coded(code: string, err: unknown): CodedError {
  return new CodedError(code, asError(err));
}

function* chain(err: unknown): Generator<unknown> {
  let cur: unknown = err;
  for (let i = 0; cur !== undefined && cur !== null && i < 64; i++) {
    yield cur;
    cur = cur instanceof Error ? cur.cause : undefined;
  }
}

/** True when a {@link RetryableError} is anywhere in the `cause` chain of `err`. */
export function isRetryable(err: unknown): boolean {
  for (const e of chain(err)) if (e instanceof RetryableError) return true;
  return false;
}

/** True when a {@link PermanentError} is anywhere in the `cause` chain of `err`. */
export function isPermanent(err: unknown): boolean {
  for (const e of chain(err)) if (e instanceof PermanentError) return true;
  return false;
}

/** The first `code` of a {@link CodedError} in the chain, else `undefined` (runtime-spec §1.6 `ErrorCode`). */
export function errorCode(err: unknown): string | undefined {
  for (const e of chain(err)) if (e instanceof CodedError) return e.code;
  return undefined;
}

/**
 * Whether an edge may re-attempt a hop that failed with `err` (runtime-spec §1.6 `ShouldRetry`):
 * `null` → false; permanent anywhere → false; else retryable anywhere → true; plain → false.
 */
export function shouldRetry(err: unknown): boolean {
  if (err === null || err === undefined) return false;
  if (isPermanent(err)) return false;
  return isRetryable(err);
}

/**
 * Codes of the errors that mean "a deadline passed" (one list for the HTTP 504 answer and the
 * runner's edge-timeout check): the edge's `retryPolicy.timeoutMs` (`EDGE_TIMEOUT`), http_server's
 * write timeout (`FLOW_TIMEOUT`), the gRPC call deadline (`GRPC_DEADLINE_EXCEEDED`), the NATS request
 * and RPC waits (`REQUEST_TIMEOUT`, `RPC_TIMEOUT`). Strings, not classes: those classes live in the
 * runtime and the transports, which the SDK does not import.
 */
export const TIMEOUT_CODES: ReadonlySet<string> = new Set(["EDGE_TIMEOUT", "FLOW_TIMEOUT", "GRPC_DEADLINE_EXCEEDED", "REQUEST_TIMEOUT", "RPC_TIMEOUT"]);

/**
 * True when a deadline error is anywhere in the `cause` chain of `err`: a `code` in
 * {@link TIMEOUT_CODES}, or a DOM `TimeoutError` (what `AbortSignal.timeout` aborts with).
 */
export function isTimeout(err: unknown): boolean {
  for (const e of chain(err)) {
    if (!(e instanceof Error)) return false;
    const code = (e as { code?: unknown }).code;
    if ((typeof code === "string" && TIMEOUT_CODES.has(code)) || e.name === "TimeoutError") return true;
  }
  return false;
}

/**
 * The canonical payload for a component's `error` source port: `{context?, error, retryable}`
 * (runtime-spec §1.6 `ErrorMessage`, components.md §0.5). `retryable` derives from {@link isRetryable}.
 */
export interface ErrorPayload<C = unknown> {
  context?: C;
  error: string;
  retryable: boolean;
}

/** Builds an {@link ErrorPayload} from `err`, with optional passthrough `context` (runtime-spec §1.6 `NewError`). */
export function errorPayload<C>(err: unknown, context?: C): ErrorPayload<C> {
  const e = asError(err);
  const out: ErrorPayload<C> = { error: e.message, retryable: isRetryable(e) };
  if (context !== undefined) out.context = context;
  return out;
}
