/**
 * The value a handler returns and an `output(...)` call resolves to.
 *
 * Mirrors the Go `module.Result` (runtime-spec §1.2): nothing (a successful no-op), a payload, or an
 * error. Results are plain frozen-shape objects so a hop costs no class allocation.
 */

/** A successful result carrying `value` (which may be `null`/`undefined`). runtime-spec §1.2 `Ok(v)`. */
export interface OkResult<T = unknown> {
  readonly kind: "ok";
  readonly value: T;
}

/** A failed result carrying `error`. runtime-spec §1.2 `Fail(err)`. */
export interface FailResult {
  readonly kind: "fail";
  readonly error: Error;
}

/** The zero result: success with nothing to report. runtime-spec §1.2 (zero `Result`). */
export interface EmptyResult {
  readonly kind: "empty";
}

/** One of {@link OkResult}, {@link FailResult}, {@link EmptyResult}. runtime-spec §1.2. */
export type Result<T = unknown> = OkResult<T> | FailResult | EmptyResult;

/** What a handler may return: a Result, or nothing (treated as {@link empty}). */
export type HandleReturn = Result | void | Promise<Result | void>;

/** The zero result (runtime-spec §1.2: "nothing → zero Result"). */
export const empty: EmptyResult = Object.freeze({ kind: "empty" as const });

/** Wraps `value` as a successful result. runtime-spec §1.2 `Ok(v)`. */
export function ok<T>(value: T): OkResult<T> {
  return { kind: "ok", value };
}

/**
 * Wraps `error` as a failed result. `fail(null)`/`fail(undefined)` returns {@link empty} — no phantom
 * error (runtime-spec §1.2 `Fail(nil)`). A non-Error value is wrapped in an `Error` with its string form.
 */
export function fail(error: unknown): Result<never> {
  if (error === null || error === undefined) return empty;
  return { kind: "fail", error: toError(error) };
}

/** True when `x` is a {@link Result} produced by {@link ok}, {@link fail} or {@link empty}. */
export function isResult(x: unknown): x is Result {
  if (typeof x !== "object" || x === null) return false;
  const k = (x as { kind?: unknown }).kind;
  return (k === "ok" && "value" in x) || (k === "fail" && (x as { error?: unknown }).error instanceof Error) || k === "empty";
}

/**
 * Normalises what a handler returned: `undefined` → {@link empty}; a {@link Result} → itself; any
 * other value → `ok(value)` (lenient for plain-JS authors; the types ask for a Result).
 */
export function toResult(x: unknown): Result {
  if (x === undefined) return empty;
  if (isResult(x)) return x;
  return ok(x);
}

/** The payload of a result: the value for `ok`, otherwise `undefined` (Go `Result.Value()`). */
export function resultValue(r: Result): unknown {
  return r.kind === "ok" ? r.value : undefined;
}

/** Converts any thrown value into an `Error` (strings and objects keep their text). */
export function toError(x: unknown): Error {
  if (x instanceof Error) return x;
  if (typeof x === "string") return new Error(x);
  if (x === undefined) return new Error("undefined"); // JSON.stringify gives no text for it
  try {
    return new Error(JSON.stringify(x));
  } catch {
    return new Error(String(x));
  }
}
