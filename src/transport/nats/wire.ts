/**
 * The NATS wire codec: a hop ({@link Msg}) as NATS headers + raw JSON body, and a {@link Result} as a
 * reply, exactly as the Go module writes and reads them (runtime-spec §4.2). Pure functions: no
 * connection, so the unit tests cover every header without a server.
 */
import { headers as newHeaders, Match, MsgHdrsImpl, type MsgHdrs } from "@nats-io/transport-node";
import { errorCode, retryable } from "../../core/errors.ts";
import { empty, fail, ok, type Result } from "../../core/result.ts";
import { payloadBytes, type Msg } from "../../core/hop.ts";
import { RemoteCodedError, RemoteError, WireDecodeError } from "./errors.ts";
import { EDGE_STREAM, SYSMSG_STREAM } from "./names.ts";
import { isLocalRefusal } from "../refusal.ts";

const REFUSED_FLAG = "1";

/** Sender node:port (runtime-spec §4.2). */
export const H_FROM = "x-from";
/** Receiver node:port. */
export const H_TO = "x-to";
/** Edge id. */
export const H_EDGE_ID = "x-edge-id";
/** Hop depth, decimal; only sent when > 0. */
export const H_DEPTH = "x-message-depth";
/** Reply: error text. */
export const H_ERROR = "x-error";
/** Reply: code of a CodedError. */
export const H_ERROR_CODE = "x-error-code";
/** Reply (tinyhost only; Go ignores it): `1` = the receiving replica refused the hop before running it (src/transport/refusal.ts). */
export const H_REFUSED = "x-refused";
/** Reply: `"1"` for a nil result. */
export const H_EMPTY = "x-empty";
/** Core-inbox the JetStream receiver replies to (JetStream classic hops, wire.Publish). */
export const H_REPLY_INBOX = "x-reply-inbox";
/** `"rpc"` for MCP agent-tool calls (runtime-spec §3.4). */
export const H_MODE = "x-mode";
/** Durable run id (runtime-spec §1.7). */
export const H_RUN_ID = "x-run-id";
/** Durable step key. */
export const H_STEP_KEY = "x-step-key";
/** Durable reply subject. */
export const H_REPLY_SUBJECT = "x-reply-subject";
/** Durable reply target `node:port`. */
export const H_REPLY_TARGET = "x-reply-target";
/** Durable reply deadline, decimal unix ms. */
export const H_REPLY_DEADLINE = "x-reply-deadline";
/** JetStream de-duplication id (core: edge id; durable: step key). */
export const H_MSG_ID = "Nats-Msg-Id";
/**
 * W3C trace context (only when a propagator is configured), as written on the wire. Go injects
 * and extracts trace context through `propagation.HeaderCarrier`, an `http.Header`, which
 * canonicalises the key: it writes `Traceparent` and reads only that exact key, because nats.go's
 * header map is case-sensitive (runtime-spec §17). We write the canonical form and read any case.
 */
export const H_TRACEPARENT = "Traceparent";
/** W3C trace state, canonical form (see {@link H_TRACEPARENT}). */
export const H_TRACESTATE = "Tracestate";
/** W3C baggage, canonical form (see {@link H_TRACEPARENT}). */
export const H_BAGGAGE = "Baggage";
/** Value of {@link H_EMPTY}. */
export const EMPTY_FLAG = "1";

/** W3C trace carrier fields that ride a hop (keys as the OpenTelemetry propagators use them). */
export interface TraceCarrier {
  traceparent?: string;
  tracestate?: string;
  baggage?: string;
}

/** How {@link encodeHop} writes a hop. */
export interface EncodeHopOptions {
  /** `Nats-Msg-Id` value; omitted when undefined or empty. */
  msgId?: string;
  /** `x-reply-inbox` value (JetStream classic sender). */
  replyInbox?: string;
  /** Write the durable run headers (run id, step key, reply fields) — JetStream durable sender only (runtime-spec §4.3, §4.4). */
  durable?: boolean;
  /** Trace context to carry. */
  trace?: TraceCarrier;
}

/** A hop as it came off the wire. */
export interface DecodedHop {
  msg: Msg;
  /** `x-reply-inbox`, when the sender waits on a core inbox. */
  replyInbox?: string;
  /** `Nats-Msg-Id`, when present. */
  msgId?: string;
  /** Trace context, when present. */
  trace: TraceCarrier;
}

const EMPTY_BYTES = new Uint8Array(0);

/**
 * The JSON bytes of a hop payload: a `Uint8Array` is already JSON and goes raw (it came off a wire);
 * any other value is JSON-encoded (`undefined` → `null`, as Go marshals a nil interface).
 * @throws TypeError when the value cannot be JSON-encoded (cycles, BigInt).
 */
export function encodePayload(data: unknown): Uint8Array {
  return payloadBytes(data);
}

/**
 * NATS headers of `msg` (runtime-spec §4.2). Empty values are not written, as Go does. Header keys
 * are written exactly as Go writes them: `x-*` and `Nats-Msg-Id` as given (nats.go does not
 * canonicalise), trace context in `http.Header` form (`Traceparent`, runtime-spec §17).
 */
export function encodeHop(msg: Msg, opts: EncodeHopOptions = {}): MsgHdrs {
  const h = new MsgHdrsImpl();
  // Straight into the header map: nats.js's set() re-scans every key per call.
  const m = h.headers;
  const put = (k: string, v: string) => m.set(k, [safeValue(v)]);
  if (msg.from) put(H_FROM, msg.from);
  put(H_TO, msg.to);
  if (msg.edgeId) put(H_EDGE_ID, msg.edgeId);
  if (msg.depth > 0) put(H_DEPTH, String(msg.depth));
  if (msg.mode) put(H_MODE, msg.mode);
  if (opts.durable) {
    if (msg.runId) put(H_RUN_ID, msg.runId);
    if (msg.stepKey) put(H_STEP_KEY, msg.stepKey);
    if (msg.replySubject) put(H_REPLY_SUBJECT, msg.replySubject);
    if (msg.replyTarget) put(H_REPLY_TARGET, msg.replyTarget);
    if (msg.replyDeadlineUnixMs && msg.replyDeadlineUnixMs > 0) put(H_REPLY_DEADLINE, String(Math.trunc(msg.replyDeadlineUnixMs)));
  }
  if (opts.replyInbox) put(H_REPLY_INBOX, opts.replyInbox);
  if (opts.msgId) put(H_MSG_ID, opts.msgId);
  if (opts.trace?.traceparent) put(H_TRACEPARENT, opts.trace.traceparent);
  if (opts.trace?.tracestate) put(H_TRACESTATE, opts.trace.tracestate);
  if (opts.trace?.baggage) put(H_BAGGAGE, opts.trace.baggage);
  return h;
}

/** A header value cannot hold CR/LF (it would end the header block): they become spaces. */
function safeValue(v: string): string {
  return v.includes("\n") || v.includes("\r") ? v.replace(/[\r\n]+/g, " ") : v;
}

/** The encoded size of `h` as sent on the wire (`NATS/1.0` block), bytes. */
export function headerBytes(h: MsgHdrs): Uint8Array {
  return (h as MsgHdrsImpl).encode();
}

/** Reads header values by lowercase key, whatever case the sender used. */
type HeaderGet = (lowerKey: string) => string;

const NO_HEADERS: HeaderGet = () => "";

/**
 * A case-insensitive view of `h`. Header names are case-insensitive (RFC 9110 §5.1, which the
 * NATS header block follows), and peers differ: Go writes `x-to` but `Traceparent`. The decoded map
 * answers lowercase keys directly; the few keys with capitals (`Nats-Msg-Id`, `Traceparent`, …)
 * also go into a small side map under their lowercase form (first spelling wins). nats.js's own
 * case-insensitive get() would re-scan every key per lookup.
 */
function headerView(h: MsgHdrs | undefined): HeaderGet {
  if (!h) return NO_HEADERS;
  if (!(h instanceof MsgHdrsImpl)) return (k) => h.get(k, Match.IgnoreCase);
  const map = h.headers;
  let upper: Map<string, string[]> | undefined;
  for (const [key, v] of map) {
    if (!hasUpper(key)) continue;
    const lk = key.toLowerCase();
    upper ??= new Map();
    if (!map.has(lk) && !upper.has(lk)) upper.set(lk, v);
  }
  if (!upper) return (k) => map.get(k)?.[0] ?? "";
  const side = upper;
  return (k) => (map.get(k) ?? side.get(k))?.[0] ?? "";
}

function hasUpper(s: string): boolean {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 65 && c <= 90) return true;
  }
  return false;
}

function decimal(header: HeaderGet, key: string): number {
  const v = header(key);
  if (v === "") return 0;
  if (!/^-?\d+$/.test(v)) throw new WireDecodeError(key, v, "not a decimal integer");
  const n = Number(v);
  if (!Number.isSafeInteger(n)) throw new WireDecodeError(key, v, "out of range");
  return n;
}

/**
 * The hop carried by an incoming message: headers → fields, body → `data` as raw JSON bytes
 * (decoded lazily by the runner; an empty body stays empty). Header names match in any case.
 * @throws WireDecodeError when `x-to` is missing, `x-mode` is unknown, or a numeric header is not a decimal integer.
 */
export function decodeHop(h: MsgHdrs | undefined, body: Uint8Array): DecodedHop {
  const header = headerView(h);
  const to = header(H_TO);
  if (to === "") throw new WireDecodeError(H_TO, to, "missing: the hop has no destination");
  const mode = header(H_MODE);
  if (mode !== "" && mode !== "rpc") throw new WireDecodeError(H_MODE, mode, `unknown mode (expected "rpc" or none)`);
  const depth = decimal(header, H_DEPTH);
  if (depth < 0) throw new WireDecodeError(H_DEPTH, String(depth), "negative depth");
  const msg: Msg = { edgeId: header(H_EDGE_ID), from: header(H_FROM), to, data: body, depth };
  if (mode === "rpc") msg.mode = "rpc";
  const runId = header(H_RUN_ID);
  if (runId) msg.runId = runId;
  const stepKey = header(H_STEP_KEY);
  if (stepKey) msg.stepKey = stepKey;
  const replySubject = header(H_REPLY_SUBJECT);
  if (replySubject) msg.replySubject = replySubject;
  const replyTarget = header(H_REPLY_TARGET);
  if (replyTarget) msg.replyTarget = replyTarget;
  const deadline = decimal(header, H_REPLY_DEADLINE);
  if (deadline > 0) msg.replyDeadlineUnixMs = deadline;
  const out: DecodedHop = { msg, trace: {} };
  const inbox = header(H_REPLY_INBOX);
  if (inbox) out.replyInbox = inbox;
  const msgId = header(LOWER_MSG_ID);
  if (msgId) out.msgId = msgId;
  const tp = header(LOWER_TRACEPARENT);
  if (tp) out.trace.traceparent = tp;
  const ts = header(LOWER_TRACESTATE);
  if (ts) out.trace.tracestate = ts;
  const bg = header(LOWER_BAGGAGE);
  if (bg) out.trace.baggage = bg;
  return out;
}

const LOWER_MSG_ID = H_MSG_ID.toLowerCase();
const LOWER_TRACEPARENT = H_TRACEPARENT.toLowerCase();
const LOWER_TRACESTATE = H_TRACESTATE.toLowerCase();
const LOWER_BAGGAGE = H_BAGGAGE.toLowerCase();

/** A reply ready to publish. */
export interface EncodedReply {
  headers: MsgHdrs | undefined;
  data: Uint8Array;
}

/**
 * The reply for `result` (runtime-spec §4.2): fail → header-only `x-error` (+ `x-error-code` for a
 * coded error anywhere in the cause chain); empty, `ok(null)`, `ok(undefined)` → header-only
 * `x-empty: 1`; `ok(bytes)` → raw bytes; any other value → its JSON.
 * @throws TypeError when an ok value cannot be JSON-encoded (callers turn it into an error reply).
 */
export function encodeReply(result: Result): EncodedReply {
  if (result.kind === "fail") return encodeErrorReply(result.error);
  if (result.kind === "empty" || result.value === null || result.value === undefined) {
    const h = newHeaders();
    h.set(H_EMPTY, EMPTY_FLAG);
    return { headers: h, data: EMPTY_BYTES };
  }
  return { headers: undefined, data: encodePayload(result.value) };
}

/**
 * A header-only `x-error` reply for `err` (+ `x-error-code` when coded, + `x-refused: 1` when this
 * process refused the hop — never for a refusal relayed from further down, src/transport/refusal.ts).
 */
export function encodeErrorReply(err: Error): EncodedReply {
  const h = newHeaders();
  // A header value cannot hold CR/LF: multi-line messages travel on one line.
  h.set(H_ERROR, oneLine(err.message || err.name || "error"));
  const code = errorCode(err);
  if (code) h.set(H_ERROR_CODE, oneLine(code));
  if (isLocalRefusal(err)) h.set(H_REFUSED, REFUSED_FLAG);
  return { headers: h, data: EMPTY_BYTES };
}

function oneLine(s: string): string {
  return s.replace(/[\r\n]+/g, " ");
}

/**
 * The Result a reply carries (runtime-spec §4.2, receiver side): `x-error` → fail with
 * {@link RemoteCodedError} when `x-error-code` is present (message not prefixed twice; marked
 * retryable when `x-refused` says the replica refused it unrun), else {@link RemoteError};
 * `x-empty` or an empty body →
 * empty; else `ok(bytes)` — raw JSON, decoded lazily by whoever consumes it.
 */
export function decodeReply(h: MsgHdrs | undefined, body: Uint8Array): Result {
  const header = headerView(h);
  const text = header(H_ERROR);
  if (text !== "") {
    const code = header(H_ERROR_CODE);
    if (!code) return fail(new RemoteError(text));
    const err = new RemoteCodedError(code, text);
    return fail(header(H_REFUSED) !== "" ? retryable(err) : err);
  }
  if (header(H_EMPTY) !== "" || body.byteLength === 0) return empty;
  return ok(body);
}

/** A JetStream publish acknowledgement as the server sends it (`{"stream","seq"[,"duplicate","domain"]}`). */
export interface StreamAck {
  stream: string;
  seq: number;
}

const ACK_KEYS = new Set(["stream", "seq", "duplicate", "domain"]);
const MODULE_STREAMS = new Set([EDGE_STREAM, SYSMSG_STREAM]);
const OPEN_BRACE = 0x7b;

/**
 * The PubAck of a module stream when a core reply is one (runtime-spec §4.5): a core request on a
 * subject that `module-edges`/`module-sysmsgs` captures is answered by the server with the stream's
 * acknowledgement — no headers, a small JSON body naming the stream — before (and instead of) any
 * module's reply. Only these two stream names count, so a module's own reply is never mistaken.
 */
export function streamAckOf(h: MsgHdrs | undefined, body: Uint8Array): StreamAck | undefined {
  if (h !== undefined || body.byteLength > 256 || body[0] !== OPEN_BRACE) return undefined;
  let v: unknown;
  try {
    v = JSON.parse(new TextDecoder().decode(body));
  } catch {
    return undefined;
  }
  if (typeof v !== "object" || v === null || Array.isArray(v)) return undefined;
  const o = v as Record<string, unknown>;
  if (typeof o.stream !== "string" || !MODULE_STREAMS.has(o.stream) || typeof o.seq !== "number") return undefined;
  if (!Object.keys(o).every((k) => ACK_KEYS.has(k))) return undefined;
  return { stream: o.stream, seq: o.seq };
}
