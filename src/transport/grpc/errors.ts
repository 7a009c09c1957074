/**
 * Errors of the gRPC fallback transport (runtime-spec §4.7). Each has a `code`; none is marked
 * retryable, because retry markings never survive a wire (runtime-spec §4.2, §16 item 13) — the
 * one exception is a refusal of the receiving server (`x-refused` trailer, src/transport/refusal.ts),
 * which `decodeCallError` marks retryable.
 */
import { TinyError, messageOf } from "../../core/errors.ts";

/**
 * The address pool has no address for the target module (runtime-spec §4.7 client pool).
 * Message exactly as Go's: `"<module> module address is unknown"`. code `"MODULE_ADDRESS_UNKNOWN"`.
 */
export class ModuleAddressUnknownError extends TinyError {
  /** The module name that was looked up. */
  readonly module: string;
  constructor(module: string) {
    super("MODULE_ADDRESS_UNKNOWN", `${module} module address is unknown`);
    this.module = module;
  }
}

/** The hop's `to` has no module segment (`<hash>.<module>.<component>-<sfx>`, runtime-spec §1.9). code `"NO_ROUTE"`. */
export class GrpcRouteError extends TinyError {
  constructor(to: string) {
    super("NO_ROUTE", `parse destination error: ${JSON.stringify(to)} has no module segment`);
  }
}

/** The hop payload (or a reply) cannot be encoded as JSON bytes, e.g. a cycle or a BigInt. code `"ENCODE"`. */
export class GrpcEncodeError extends TinyError {
  constructor(what: string, cause: unknown) {
    super("ENCODE", `cannot encode ${what} as JSON: ${messageOf(cause)}`, { cause });
  }
}

/** Reply bytes that the sending port expects as JSON are not valid JSON. code `"DECODE"`. */
export class GrpcDecodeError extends TinyError {
  constructor(to: string, cause: unknown) {
    super("DECODE", `reply from ${to} is not valid JSON: ${messageOf(cause)}`, { cause });
  }
}

/**
 * The remote module's handler failed: its error text, carried as the gRPC status details
 * (status UNKNOWN, as Go returns a plain `error` from the handler). code `"REMOTE"`; a coded
 * remote error arrives as a `CodedError` instead (see `decodeCallError`).
 */
export class RemoteHandlerError extends TinyError {
  constructor(message: string) {
    super("REMOTE", message);
  }
}

/**
 * The call itself failed: connection refused/unavailable, deadline, cancelled by the caller, or a
 * status other than UNKNOWN. `code` is `"GRPC_<STATUS NAME>"`, e.g. `"GRPC_UNAVAILABLE"`,
 * `"GRPC_CANCELLED"`; `status` is the numeric gRPC status.
 */
export class GrpcCallError extends TinyError {
  /** Numeric gRPC status code (https://grpc.github.io/grpc/core/md_doc_statuscodes.html). */
  readonly status: number;
  constructor(status: number, statusName: string, message: string, options?: { cause?: unknown }) {
    super(`GRPC_${statusName}`, message, options);
    this.status = status;
  }
}

/**
 * The call's deadline passed before the reply came (gRPC status DEADLINE_EXCEEDED, from the
 * client's own timer, the server's, or the caller's deadline aborting the call). The deadline is
 * the edge's `retryPolicy.timeoutMs`, else `DEFAULT_REMOTE_HOP_TIMEOUT_MS` (5 min, src/core/hop.ts). code
 * `"GRPC_DEADLINE_EXCEEDED"`, a timeout for `isTimeout` (HTTP 504, the runner's `EDGE_TIMEOUT`).
 */
export class GrpcDeadlineError extends GrpcCallError {
  /** The deadline that passed, unix ms (the hop's `deadlineUnixMs` when it had one). */
  readonly deadlineUnixMs: number;
  /** @param target - `module m (host:port)` or `module m`. @param timeoutMs - the deadline's distance from the send, ms. */
  constructor(target: string, timeoutMs: number, deadlineUnixMs: number, options?: { cause?: unknown }) {
    super(4, "DEADLINE_EXCEEDED", `grpc call to ${target}: no answer within its deadline of ${timeoutMs} ms (DEADLINE_EXCEEDED)`, options);
    this.deadlineUnixMs = deadlineUnixMs;
  }
}

/** The server could not bind its listen address (bad format, port in use). code `"GRPC_BIND"`. */
export class GrpcBindError extends TinyError {
  constructor(message: string, options?: { cause?: unknown }) {
    super("GRPC_BIND", message, options);
  }
}
