/**
 * Errors of the REST client: an API answer that is not 2xx ({@link KubeApiError}), a request that
 * never got an answer ({@link KubeConnectionError}), a bad argument ({@link KubeInputError}), and
 * a body that cannot be decoded ({@link KubeDecodeError}).
 */
import type { KubeStatus, StatusDetails } from "./types.ts";
import { TinyError } from "../../core/errors.ts";

/**
 * Reason used when the body is not a Status (or has none), by HTTP code. Rule: apimachinery
 * `pkg/api/errors` `NewGenericServerResponse` and the `metav1.StatusReason` constants.
 */
const REASON_BY_CODE: Record<number, string> = {
  400: "BadRequest",
  401: "Unauthorized",
  403: "Forbidden",
  404: "NotFound",
  405: "MethodNotAllowed",
  406: "NotAcceptable",
  409: "Conflict",
  410: "Gone",
  413: "RequestEntityTooLarge",
  415: "UnsupportedMediaType",
  422: "Invalid",
  429: "TooManyRequests",
  500: "InternalError",
  503: "ServiceUnavailable",
  504: "Timeout",
};

/**
 * The reason for an HTTP code when the server gave none.
 * @param status - HTTP status code.
 * @returns e.g. `NotFound` for 404, `Unknown` for codes without a Kubernetes reason.
 */
export function reasonForCode(status: number): string {
  return REASON_BY_CODE[status] ?? (status >= 500 ? "InternalError" : "Unknown");
}

/**
 * The apiserver answered with a non-2xx code (or a watch delivered an ERROR with code 410).
 * Fields come from the `Status` body when there is one; otherwise `reason` is derived from the
 * HTTP code. The message reads `<VERB> <path>: <status> <reason>: <server message>`.
 */
export class KubeApiError extends TinyError<"K8S_API"> {
  /** HTTP status code, e.g. 409. */
  readonly status: number;
  /** `metav1.StatusReason`, e.g. `Conflict`, `NotFound`, `AlreadyExists`, `Gone`, `Forbidden`, `Invalid`. */
  readonly reason: string;
  /** The server's own message (the Status `message`, or the start of a non-Status body). */
  readonly serverMessage: string;
  /** Status `details` (kind, name, causes, retryAfterSeconds) when present. */
  readonly details: StatusDetails | undefined;
  /** HTTP method of the failed request, or `WATCH` for a watch. */
  readonly verb: string;
  /** Request path (without query). */
  readonly path: string;
  /** Seconds to wait before retrying, from `details.retryAfterSeconds` or the `Retry-After` header. */
  readonly retryAfterSeconds: number | undefined;

  /**
   * @param init - request verb and path, HTTP status, the parsed Status (if any), the raw body
   * text (used when there is no Status), a reason override, and the Retry-After header value.
   */
  constructor(init: {
    verb: string;
    path: string;
    status: number;
    body?: KubeStatus | undefined;
    text?: string;
    reason?: string;
    retryAfter?: string | null;
  }) {
    const body = init.body;
    const reason = init.reason ?? (body?.reason || reasonForCode(init.status));
    const serverMessage = body?.message ?? (init.text ?? "").trim().slice(0, 500);
    super("K8S_API", `${init.verb} ${init.path}: ${init.status} ${reason}${serverMessage ? `: ${serverMessage}` : ""}`);
    this.name = "KubeApiError";
    this.status = init.status;
    this.reason = reason;
    this.serverMessage = serverMessage;
    this.details = body?.details;
    this.verb = init.verb;
    this.path = init.path;
    const header = init.retryAfter ? Number(init.retryAfter) : NaN;
    this.retryAfterSeconds = body?.details?.retryAfterSeconds ?? (Number.isFinite(header) ? header : undefined);
  }
}

/**
 * The request got no HTTP answer: DNS, refused connection, TLS failure (e.g. a server certificate
 * not signed by the configured CA), reset, or the client-side timeout.
 */
export class KubeConnectionError extends TinyError<"K8S_CONNECTION"> {
  /** The apiserver base URL that could not be reached. */
  readonly server: string;
  /** True when the client-side timeout fired (the server may still have acted on the request). */
  readonly timedOut: boolean;

  /**
   * @param server - apiserver base URL. @param what - `<VERB> <path>`.
   * @param cause - the underlying error. @param timeoutMs - set when the client timeout fired.
   */
  constructor(server: string, what: string, cause: unknown, timeoutMs?: number) {
    const why = timeoutMs !== undefined ? `timed out after ${timeoutMs} ms` : describe(cause);
    super("K8S_CONNECTION", `${what}: cannot reach the Kubernetes API at ${server}: ${why}`, { cause });
    this.name = "KubeConnectionError";
    this.server = server;
    this.timedOut = timeoutMs !== undefined;
  }
}

/** An argument to a client call is unusable (empty name, namespace on a cluster-scoped resource, …). */
export class KubeInputError extends TinyError<"K8S_INPUT"> {
  /** The argument at fault, e.g. `metadata.name`. */
  readonly field: string;

  /** @param field - the argument at fault. @param problem - what is wrong, naming the value. */
  constructor(field: string, problem: string) {
    super("K8S_INPUT", `${field} ${problem}`);
    this.name = "KubeInputError";
    this.field = field;
  }
}

/** A 2xx body or a watch line is not the JSON the API promises. */
export class KubeDecodeError extends TinyError<"K8S_DECODE"> {
  /** @param what - `<VERB> <path>`. @param problem - what was wrong, quoting the start of the text. */
  constructor(what: string, problem: string) {
    super("K8S_DECODE", `${what}: ${problem}`);
    this.name = "KubeDecodeError";
  }
}

/** @returns true when `e` is a {@link KubeApiError} with reason `NotFound` (HTTP 404). */
export function isNotFound(e: unknown): e is KubeApiError {
  return e instanceof KubeApiError && e.reason === "NotFound";
}

/**
 * @returns true when `e` is a {@link KubeApiError} with reason `Conflict` (HTTP 409 from a stale
 * resourceVersion); AlreadyExists, also 409, is not a conflict (apimachinery `IsConflict`).
 */
export function isConflict(e: unknown): e is KubeApiError {
  return e instanceof KubeApiError && e.reason === "Conflict";
}

/** @returns true when `e` is a {@link KubeApiError} with reason `AlreadyExists`. */
export function isAlreadyExists(e: unknown): e is KubeApiError {
  return e instanceof KubeApiError && e.reason === "AlreadyExists";
}

/**
 * @returns true when `e` is a {@link KubeApiError} with HTTP 410: the resourceVersion is too old
 * (reason `Gone` or `Expired`); a watcher must relist.
 */
export function isGone(e: unknown): e is KubeApiError {
  return e instanceof KubeApiError && e.status === 410;
}

/** @returns true when `v` looks like a `meta/v1` Status object. */
export function isStatus(v: unknown): v is KubeStatus {
  return typeof v === "object" && v !== null && (v as { kind?: unknown }).kind === "Status";
}

function describe(cause: unknown): string {
  if (cause instanceof Error) {
    const code = (cause as { code?: unknown }).code;
    return typeof code === "string" && !cause.message.includes(code) ? `${code}: ${cause.message}` : cause.message;
  }
  return String(cause);
}

/**
 * A compare-and-swap write kept losing to other writers (409 Conflict) until the attempt limit of
 * the conflict-retry policy (./conflict.ts). Code `CONFLICT_RETRIES_EXHAUSTED`; `cause` is the last
 * Conflict.
 */
export class ConflictRetriesExhaustedError extends TinyError<"CONFLICT_RETRIES_EXHAUSTED"> {
  /** @param what - the object, e.g. `Service ns/name`. @param attempts - attempts made. @param cause - the last Conflict. */
  constructor(what: string, attempts: number, cause: unknown) {
    super("CONFLICT_RETRIES_EXHAUSTED", `${what}: still conflicting after ${attempts} attempts`, { cause });
  }
}
