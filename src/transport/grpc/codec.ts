/**
 * Mapping between a hop ({@link Msg}/{@link Result}) and the gRPC wire (runtime-spec §4.7):
 * `MessageRequest{From, To, Payload, EdgeID}` + metadata `x-message-depth`, and
 * `MessageResponse{Data}` or a gRPC status carrying the error text (+ `x-error-code`, + `x-refused`
 * when this server refused the hop unrun).
 * Pure functions: no I/O, unit-tested without a network.
 */
import { status as grpcStatus, type Metadata, type MetadataValue } from "@grpc/grpc-js";
import { CodedError, errorCode, retryable } from "../../core/errors.ts";
import { empty, fail, ok, type Result } from "../../core/result.ts";
import { isLocalRefusal } from "../refusal.ts";
import type { Msg } from "../../core/hop.ts";
import { GrpcCallError, GrpcDecodeError, GrpcEncodeError, RemoteHandlerError } from "./errors.ts";
import type { MessageRequestWire } from "./proto.ts";

/** Metadata key carrying the hop depth, sent only when > 0 (runtime-spec §4.2, §4.7). */
export const DEPTH_METADATA = "x-message-depth";
/** Trailer key carrying a coded error's code (tinyhost addition; docs/compatibility.md `## gRPC`). */
export const ERROR_CODE_METADATA = "x-error-code";
/**
 * Trailer key marking a reply this server refused before running the hop (busy, shutting down):
 * value `"1"`, the name and value the NATS wire uses (src/transport/refusal.ts). Only the refusing
 * server sets it, so only the edge next to the refusal retries (tinyhost addition;
 * docs/compatibility.md `## gRPC`).
 */
export const REFUSED_METADATA = "x-refused";
/** Value of {@link REFUSED_METADATA}. */
export const REFUSED_FLAG = "1";

const enc = new TextEncoder();
const dec = new TextDecoder();
const EMPTY = new Uint8Array(0);

/**
 * The wire bytes of a hop payload: a `Uint8Array` passes through as is (it already holds JSON
 * bytes from another wire); `undefined` → no bytes; any other value → its JSON text (a string is a
 * JSON string, quoted), as Go's `json.Marshal` of the value.
 * @throws GrpcEncodeError when the value has no JSON form (cycle, BigInt).
 */
export function encodePayload(data: unknown, what = "hop payload"): Uint8Array {
  if (data instanceof Uint8Array) return data;
  if (data === undefined) return EMPTY;
  let text: string | undefined;
  try {
    text = JSON.stringify(data);
  } catch (err) {
    throw new GrpcEncodeError(what, err);
  }
  // Functions and symbols stringify to undefined: there is nothing to send.
  return text === undefined ? EMPTY : enc.encode(text);
}

/**
 * Builds the `MessageRequest` for `msg`. Empty strings are left out (proto3 omits defaults, so the
 * bytes equal Go's); `ID` is never set (unused by Go).
 * @throws GrpcEncodeError when the payload cannot be encoded.
 */
export function requestFromMsg(msg: Msg): Partial<MessageRequestWire> {
  const req: Partial<MessageRequestWire> = {};
  if (msg.from) req.From = msg.from;
  if (msg.to) req.To = msg.to;
  const payload = encodePayload(msg.data);
  if (payload.byteLength > 0) req.Payload = payload;
  if (msg.edgeId) req.EdgeID = msg.edgeId;
  return req;
}

/** Zero-copy `Uint8Array` view of a Buffer (keeps Buffer-only methods out of hop payloads). */
function plainBytes(b: Uint8Array | undefined): Uint8Array {
  if (!b || b.byteLength === 0) return EMPTY;
  return Object.getPrototypeOf(b) === Uint8Array.prototype ? b : new Uint8Array(b.buffer, b.byteOffset, b.byteLength);
}

/**
 * The hop a received `MessageRequest` describes (runtime-spec §4.7 server): payload stays JSON
 * bytes (the runner decodes lazily), `depth` from {@link depthFromMetadata}. Missing fields read
 * as proto3 defaults.
 */
export function msgFromRequest(req: Partial<MessageRequestWire>, depth: number): Msg {
  return {
    edgeId: req.EdgeID ?? "",
    from: req.From ?? "",
    to: req.To ?? "",
    data: plainBytes(req.Payload),
    depth,
  };
}

/**
 * The hop depth from metadata `x-message-depth`: a decimal integer ≥ 0; absent or malformed → 0
 * (Go ignores the `strconv.Atoi` error the same way).
 */
export function depthFromMetadata(md: Metadata): number {
  const v: MetadataValue | undefined = md.get(DEPTH_METADATA)[0];
  const s = typeof v === "string" ? v.trim() : v === undefined ? "" : dec.decode(v);
  if (!/^\d{1,9}$/.test(s)) return 0;
  return Number(s);
}

/** What the server sends back for a handler result: response bytes, or an error for a gRPC status. */
export type WireReply = { readonly data: Uint8Array } | { readonly error: Error };

/**
 * Encodes a handler's result (runtime-spec §4.7): `fail` → the error (sent as a status); `empty`,
 * `ok(undefined)` and `ok(null)` → no bytes (Go's nil result); `ok(Uint8Array)` → raw bytes;
 * any other value → JSON bytes. A value with no JSON form becomes a {@link GrpcEncodeError}.
 */
export function replyFromResult(result: Result): WireReply {
  if (result.kind === "fail") return { error: result.error };
  if (result.kind === "empty" || result.value === null || result.value === undefined) return { data: EMPTY };
  try {
    return { data: encodePayload(result.value, "reply") };
  } catch (err) {
    return { error: err as Error };
  }
}

/**
 * The gRPC status fields sent for a handler error: UNKNOWN + text, the code trailer when coded, and
 * `refused` when this process refused the hop unrun (a {@link isLocalRefusal local refusal}, never
 * one relayed from further down) — the server then adds the {@link REFUSED_METADATA} trailer.
 * A refusal keeps status UNKNOWN, as every handler error: a Go client reads it as any other error.
 */
export function errorStatus(err: Error): { code: number; details: string; errorCode: string | undefined; refused: boolean } {
  return { code: grpcStatus.UNKNOWN, details: err.message, errorCode: errorCode(err), refused: isLocalRefusal(err) };
}

/**
 * Decodes `MessageResponse.Data` for the sender (runtime-spec §4.7, §16 item 19): no bytes →
 * `empty`; the sending port declares a response schema → the parsed JSON value; otherwise the raw
 * JSON bytes (the caller decodes them, as Go hands `[]byte` back).
 */
export function resultFromReply(data: Uint8Array | undefined, msg: Pick<Msg, "to" | "responseSchema">): Result {
  const bytes = plainBytes(data);
  if (bytes.byteLength === 0) return empty;
  if (!msg.responseSchema) return ok(bytes);
  try {
    return ok(JSON.parse(dec.decode(bytes)));
  } catch (err) {
    return fail(new GrpcDecodeError(msg.to, err));
  }
}

const statusNames = new Map<number, string>(
  Object.entries(grpcStatus)
    .filter((e): e is [string, number] => typeof e[1] === "number")
    .map(([name, n]) => [n, name]),
);

/** The gRPC status name for `code` (`"UNAVAILABLE"`), or `"STATUS_<n>"` if unknown. */
export function statusName(code: number): string {
  return statusNames.get(code) ?? `STATUS_${code}`;
}

/** The error fields grpc-js gives a failed unary call. */
export interface CallErrorLike {
  code?: number;
  details?: string;
  message?: string;
  metadata?: Metadata;
}

/**
 * The error a failed call resolves to on the sender: status UNKNOWN is the remote handler's error
 * (Go returns handler errors as plain errors) → the text as is, as a `CodedError` when the trailer
 * `x-error-code` is present (message kept equal to the remote text: no doubled `"<code>: "`
 * prefix, runtime-spec §16 item 18), wrapped as retryable when the trailer `x-refused` says the
 * server refused the hop unrun (busy, shutting down: the edge retry policy may send it again); any
 * other status → {@link GrpcCallError} naming the module and address.
 */
export function decodeCallError(err: CallErrorLike, module: string, address: string): Error {
  const code = err.code ?? grpcStatus.UNKNOWN;
  const details = err.details ?? err.message ?? "";
  if (code === grpcStatus.UNKNOWN) {
    const remoteCode = trailer(err.metadata, ERROR_CODE_METADATA);
    const refused = trailer(err.metadata, REFUSED_METADATA) !== "";
    if (remoteCode === "") return refused ? retryable(new RemoteHandlerError(details)) : new RemoteHandlerError(details);
    const prefix = `${remoteCode}: `;
    const coded = new CodedError(remoteCode, new Error(details.startsWith(prefix) ? details.slice(prefix.length) : details));
    coded.message = details;
    return refused ? retryable(coded) : coded;
  }
  const name = statusName(code);
  return new GrpcCallError(code, name, `grpc call to module ${module} (${address}): ${name}: ${details}`);
}

/** The first value of trailer `key` as text, `""` when absent. */
function trailer(md: Metadata | undefined, key: string): string {
  const v = md?.get(key)[0];
  return typeof v === "string" ? v : v === undefined ? "" : dec.decode(v);
}
