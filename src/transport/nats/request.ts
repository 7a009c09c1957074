/**
 * One core NATS request with the Go sender's semantics (runtime-spec §4.3): a payload over the
 * server's `max_payload` is refused before sending; "no responders" and "timeout" are distinct
 * errors naming the subject; the caller's AbortSignal cancels the wait. Never rejects.
 */
import { errors as natsErrors, type MsgHdrs, type NatsConnection } from "@nats-io/transport-node";
import { coded } from "../../core/errors.ts";
import { fail, type Result } from "../../core/result.ts";
import { NatsSendError, NoRespondersError, PayloadTooLargeError, RequestCancelledError, RequestTimeoutError, TransportMismatchError } from "./errors.ts";
import { decodeReply, encodeErrorReply, headerBytes, streamAckOf, type EncodedReply } from "./wire.ts";

/** Default wait for a reply when the caller gives no deadline, ms (runtime-spec §4.3: 5 min). */
export const DEFAULT_REQUEST_TIMEOUT_MS = 5 * 60_000;

/** Headers larger than this are unusual; below `max_payload - this` the exact size check is skipped. */
const HEADER_SLACK_BYTES = 16 * 1024;

/**
 * Checks `data` + `headers` against the connection's `max_payload` (from the server INFO).
 * @returns a {@link PayloadTooLargeError} giving both sizes, or undefined when it fits (or no INFO yet).
 */
export function checkPayloadSize(nc: NatsConnection, subject: string, data: Uint8Array, headers: MsgHdrs | undefined): PayloadTooLargeError | undefined {
  const max = nc.info?.max_payload;
  if (!max || data.byteLength + HEADER_SLACK_BYTES < max) return undefined;
  const size = data.byteLength + (headers ? headerBytes(headers).byteLength : 0);
  return size > max ? new PayloadTooLargeError(subject, size, max) : undefined;
}

/**
 * The reply to publish on `inbox`: `reply` itself, or — when it is over the server's `max_payload`
 * — a coded `PAYLOAD_TOO_LARGE` error reply giving both sizes, so the waiting caller fails at once
 * instead of waiting out its deadline for a reply the server would refuse (Go drops it: nats.go's
 * Publish returns ErrMaxPayload and the caller times out; docs/compatibility.md).
 */
export function replyWithinLimit(nc: NatsConnection, inbox: string, reply: EncodedReply): EncodedReply {
  const tooLarge = checkPayloadSize(nc, `reply to ${inbox}`, reply.data, reply.headers);
  return tooLarge ? encodeErrorReply(coded("PAYLOAD_TOO_LARGE", tooLarge)) : reply;
}

/** Maps a nats.js request failure to our error classes. */
export function requestError(subject: string, timeoutMs: number, err: unknown): Error {
  if (err instanceof natsErrors.NoRespondersError) return new NoRespondersError(subject, err);
  if (err instanceof natsErrors.RequestError) {
    if (err.isNoResponders()) return new NoRespondersError(subject, err);
    if (err.cause instanceof natsErrors.NoRespondersError) return new NoRespondersError(subject, err);
  }
  if (err instanceof natsErrors.TimeoutError) return new RequestTimeoutError(subject, timeoutMs, err);
  return new NatsSendError(subject, err);
}

/** Aborting the caller's signal: a deadline abort reads as a timeout, anything else as a cancel. */
function abortError(subject: string, timeoutMs: number, reason: unknown): Error {
  if (reason instanceof Error && reason.name === "TimeoutError") return new RequestTimeoutError(subject, timeoutMs, reason);
  return new RequestCancelledError(subject, reason);
}

/**
 * Sends `data` with `headers` to `subject` and resolves to the decoded reply (runtime-spec §4.2).
 * A module stream's PubAck in place of a reply fails with {@link TransportMismatchError}.
 * @param timeoutMs wait for the reply; the signal can end it sooner.
 */
export function request(nc: NatsConnection, subject: string, data: Uint8Array, headers: MsgHdrs, timeoutMs: number, signal?: AbortSignal): Promise<Result> {
  if (signal?.aborted) return Promise.resolve(fail(abortError(subject, timeoutMs, signal.reason)));
  const tooLarge = checkPayloadSize(nc, subject, data, headers);
  if (tooLarge) return Promise.resolve(fail(tooLarge));
  let pending: Promise<Result>;
  try {
    pending = nc.request(subject, data, { timeout: timeoutMs, headers }).then(
      (m) => {
        const ack = streamAckOf(m.headers, m.data);
        return ack ? fail(new TransportMismatchError(subject, ack.stream, ack.seq)) : decodeReply(m.headers, m.data);
      },
      (err: unknown) => fail(requestError(subject, timeoutMs, err)),
    );
  } catch (err) {
    // nats.js throws synchronously for a closed connection or an oversize message.
    const size = data.byteLength + headerBytes(headers).byteLength;
    const max = nc.info?.max_payload ?? 0;
    return Promise.resolve(fail(max > 0 && size > max ? new PayloadTooLargeError(subject, size, max) : new NatsSendError(subject, err)));
  }
  if (!signal) return pending;
  return new Promise<Result>((resolve) => {
    const onAbort = () => resolve(fail(abortError(subject, timeoutMs, signal.reason)));
    signal.addEventListener("abort", onAbort, { once: true });
    void pending.then((r) => {
      signal.removeEventListener("abort", onAbort);
      resolve(r);
    });
  });
}
