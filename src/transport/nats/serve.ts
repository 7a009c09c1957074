/**
 * The serving half shared by both NATS transports: an incoming message → hop → handler → reply
 * (runtime-spec §4.3, §4.4). A malformed message or a throwing handler becomes an `x-error` reply,
 * never a dropped request or a crashed process.
 */
import type { MsgHdrs } from "@nats-io/transport-node";
import { fail, toError, type Result } from "../../core/result.ts";
import type { Msg } from "../../core/hop.ts";
import { withRemoteTrace } from "./trace.ts";
import { decodeHop, encodeErrorReply, encodeReply, type DecodedHop, type EncodedReply } from "./wire.ts";

/**
 * Handles a hop from the `.sysmsg` subject; `leader` is the pod's leader flag at delivery (Go puts
 * it on ctx with `utils.WithLeader`, runtime-spec §4.3, §14.5).
 */
export type SystemMsgHandler = (msg: Msg, signal: AbortSignal, leader: boolean) => Promise<Result>;

/** Runs a handler and never rejects: a throw or rejection becomes `fail(err)`. */
export async function callHandler(fn: () => Promise<Result>): Promise<Result> {
  try {
    return await fn();
  } catch (err) {
    return fail(err);
  }
}

/** The reply for `result`; a value that cannot be JSON-encoded becomes an error reply. */
export function replyFor(result: Result): EncodedReply {
  try {
    return encodeReply(result);
  } catch (err) {
    return encodeErrorReply(toError(err));
  }
}

/** Outcome of decoding: the hop, or the error reply to send instead. */
export type Decoded = { ok: true; hop: DecodedHop } | { ok: false; reply: EncodedReply; error: Error };

/** Decodes an incoming message; a malformed one yields the `x-error` reply to answer with. */
export function decodeIncoming(headers: MsgHdrs | undefined, data: Uint8Array): Decoded {
  try {
    return { ok: true, hop: decodeHop(headers, data) };
  } catch (err) {
    const e = toError(err);
    return { ok: false, reply: encodeErrorReply(e), error: e };
  }
}

/** Runs `handler` for `hop` with its remote trace parent active. Never rejects. */
export function runHop(hop: DecodedHop, handler: (msg: Msg) => Promise<Result>): Promise<Result> {
  return withRemoteTrace(hop.trace, () => callHandler(() => handler(hop.msg)));
}
