/**
 * Errors of the NATS transports. Each has a `code`; wire failures name the subject (and sizes, for
 * payload refusals) so a log line alone says what went wrong. A failed hop resolves as `fail(err)`,
 * never as a rejected promise or a crashed process (project standard).
 */
import { CodedError, TinyError, messageOf } from "../../core/errors.ts";

/** An incoming NATS message whose headers or payload cannot become a hop. code `"WIRE_DECODE"`. */
export class WireDecodeError extends TinyError {
  constructor(
    readonly header: string,
    readonly value: string,
    reason: string,
  ) {
    super("WIRE_DECODE", `malformed NATS message: header ${header}=${JSON.stringify(value)}: ${reason}`);
  }
}

/** Nobody serves the subject (NATS "no responders", status 503). code `"NO_RESPONDERS"`. */
export class NoRespondersError extends TinyError {
  constructor(
    readonly subject: string,
    cause?: unknown,
  ) {
    super("NO_RESPONDERS", `nats request to ${subject}: no responders (no module serves this subject)`, { cause });
  }
}

/** The request got no reply within its deadline. code `"REQUEST_TIMEOUT"`. */
export class RequestTimeoutError extends TinyError {
  constructor(
    readonly subject: string,
    readonly timeoutMs: number,
    cause?: unknown,
  ) {
    super("REQUEST_TIMEOUT", `nats request to ${subject}: timeout after ${timeoutMs} ms`, { cause });
  }
}

/** The caller's signal aborted the request. code `"REQUEST_CANCELLED"`. */
export class RequestCancelledError extends TinyError {
  constructor(
    readonly subject: string,
    reason?: unknown,
  ) {
    const why = reason instanceof Error ? reason.message : reason === undefined ? "aborted" : String(reason);
    super("REQUEST_CANCELLED", `nats request to ${subject}: cancelled by the caller (${why})`, { cause: reason });
  }
}

/** The payload (body + headers) is larger than the server's `max_payload`. code `"PAYLOAD_TOO_LARGE"`. */
export class PayloadTooLargeError extends TinyError {
  constructor(
    readonly subject: string,
    readonly sizeBytes: number,
    readonly maxBytes: number,
  ) {
    super("PAYLOAD_TOO_LARGE", `nats publish to ${subject}: message is ${sizeBytes} bytes, server max_payload is ${maxBytes} bytes`);
  }
}

/**
 * A core request answered by a JetStream stream's PubAck instead of a module (runtime-spec §4.5):
 * the stream captured the message, so the module's JetStream consumer will handle it (also at zero
 * replicas, once one starts) and its reply goes nowhere. Go hands the PubAck JSON on as the reply;
 * we fail the hop with this instead (docs/compatibility.md). code `"TRANSPORT_MISMATCH"`.
 * @param fix what the sender should change; default: run the sending module on JetStream too.
 */
export class TransportMismatchError extends TinyError {
  constructor(
    readonly subject: string,
    readonly stream: string,
    readonly seq: number,
    fix = "run this module with TINY_NATS_TRANSPORT=jetstream too",
  ) {
    super(
      "TRANSPORT_MISMATCH",
      `nats request to ${subject}: answered by JetStream stream ${stream} (seq ${seq}), not by a module: ` +
        `the stream captured the message, so the target's JetStream consumer will handle it and no reply comes back over core NATS; ` +
        fix,
    );
  }
}

/**
 * A JetStream send waited for its result and got none in time, but the stream stored the message:
 * it still runs as `fate` says, so resending would run it twice. code `"STORED_PENDING"`.
 * @param fate what becomes of the stored message (depends on the stream's consumers).
 */
export class StoredPendingError extends TinyError {
  constructor(
    readonly subject: string,
    readonly timeoutMs: number,
    readonly stream: string,
    readonly seq: number,
    fate: string,
  ) {
    super("STORED_PENDING", `no result within ${durationText(timeoutMs)}; the message is stored in stream ${stream} (seq ${seq}): ${fate}`);
  }
}

/**
 * The stream dropped a JetStream send as a duplicate: a message with the same `Nats-Msg-Id` was
 * stored within the stream's duplicate window, so this copy never runs and no result comes back
 * for it. code `"DUPLICATE"`.
 */
export class DuplicateMessageError extends TinyError {
  constructor(
    readonly subject: string,
    readonly msgId: string,
    readonly stream: string,
    readonly seq: number,
  ) {
    super(
      "DUPLICATE",
      `stream ${stream} already holds a message with id ${JSON.stringify(msgId)} (seq ${seq}): this copy was dropped; ` +
        `the first one runs (or ran) and its result went to its own sender`,
    );
  }
}

/** `1500` → `"1.5s"`, `120000` → `"2m"`, `250` → `"250ms"`: the units `tinyhost send --timeout` takes. */
export function durationText(ms: number): string {
  if (ms >= 60_000 && ms % 60_000 === 0) return `${ms / 60_000}m`;
  if (ms >= 1000) return `${ms / 1000}s`;
  return `${ms}ms`;
}

/** Any other NATS failure while sending (connection closed, publish rejected). code `"NATS"`. */
export class NatsSendError extends TinyError {
  constructor(
    readonly subject: string,
    cause: unknown,
  ) {
    super("NATS", `nats request to ${subject}: ${messageOf(cause)}`, { cause });
  }
}

/**
 * An error reply without a code (`x-error` only): the text travels as is. code `"REMOTE"`.
 * runtime-spec §4.2 reply encoding.
 */
export class RemoteError extends TinyError {
  constructor(message: string) {
    super("REMOTE", message);
  }
}

/**
 * An error reply with `x-error-code`: a {@link CodedError} whose message is the received text,
 * without doubling the `"<code>: "` prefix Go's sender already put there (runtime-spec §4.2, §16
 * item 18; docs/compatibility.md `## Transports`).
 */
export class RemoteCodedError extends CodedError {
  constructor(code: string, text: string) {
    const prefix = `${code}: `;
    super(code, new Error(text.startsWith(prefix) ? text.slice(prefix.length) : text));
  }
}

/** A hop's destination has no module segment, so it has no subject. code `"NO_SUBJECT"`. */
export class NoSubjectError extends TinyError {
  constructor(to: string) {
    super("NO_SUBJECT", `parse destination error: ${JSON.stringify(to)} names no node "<hash>.<module>.<component>"`);
  }
}
