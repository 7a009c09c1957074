/**
 * Checks an edge's `retryPolicy` against the TinyNode CRD's schema (crds/, Go `EdgeRetryPolicy`), so
 * local mode refuses what the apiserver would refuse instead of reading a `"30d"` or `1e300` as
 * "no timeout". Values the schema allows but the runtime does not use (0, negatives) keep their
 * defaults at run time (src/runtime/runner/retry.ts), as in Go.
 */

const INT64_MIN = -(2 ** 63);
const INT64_LIMIT = 2 ** 63;
/** CRD bounds of `maxAttempts`. */
const MIN_ATTEMPTS = 1;
const MAX_ATTEMPTS = 10;

const isInt64 = (v: unknown): boolean => typeof v === "number" && Number.isInteger(v) && v >= INT64_MIN && v < INT64_LIMIT;

/**
 * The first problem of `policy` (the value of `<at>.retryPolicy`), as a sentence naming the field and
 * the value, or `undefined` when it is absent or valid.
 * @param at the edge's path, e.g. `spec.edges[0]`.
 */
export function retryPolicyProblem(policy: unknown, at: string): { field: string; problem: string } | undefined {
  if (policy === undefined || policy === null) return undefined;
  const base = `${at}.retryPolicy`;
  if (typeof policy !== "object" || Array.isArray(policy)) return { field: "", problem: `${base} must be a mapping, got ${JSON.stringify(policy)}` };
  const p = policy as Record<string, unknown>;
  for (const f of ["timeoutMs", "initialDelayMs", "maxDelayMs"] as const) {
    if (p[f] !== undefined && !isInt64(p[f]))
      return { field: f, problem: `${base}.${f} must be an integer (ms) within the 64-bit range, got ${JSON.stringify(p[f])}` };
  }
  const n = p.maxAttempts;
  if (n !== undefined && !(Number.isInteger(n) && (n as number) >= MIN_ATTEMPTS && (n as number) <= MAX_ATTEMPTS)) {
    return { field: "maxAttempts", problem: `${base}.maxAttempts must be an integer from ${MIN_ATTEMPTS} to ${MAX_ATTEMPTS}, got ${JSON.stringify(n)}` };
  }
  if (p.backoffCoefficient !== undefined && typeof p.backoffCoefficient !== "string") {
    return { field: "backoffCoefficient", problem: `${base}.backoffCoefficient must be a decimal string, got ${JSON.stringify(p.backoffCoefficient)}` };
  }
  const codes = p.nonRetryableErrorCodes;
  if (codes !== undefined && codes !== null && !(Array.isArray(codes) && codes.every((c) => typeof c === "string"))) {
    return { field: "nonRetryableErrorCodes", problem: `${base}.nonRetryableErrorCodes must be a list of strings, got ${JSON.stringify(codes)}` };
  }
  return undefined;
}
