/**
 * A hop the receiving replica refused before running it — it is busy (src/transport/slots.ts) or
 * shutting down (src/operator/hop-gate.ts). The hop itself is fine, so sending it again (to this
 * or another replica) is safe: the NATS wire marks such a reply with the header `x-refused: 1`, the
 * gRPC wire with the trailer `x-refused: 1`, and a tinyhost sender reads only that mark as retryable
 * (src/transport/nats/wire.ts `decodeReply`, src/transport/grpc/codec.ts `decodeCallError`). A module
 * that relays the error from further down does not repeat the mark, so only the edge next to the
 * refusal retries — never every level of a chain (a retry storm).
 */
import { CodedError } from "../core/errors.ts";

/** Base of the refusals. A coded error: `code` travels as `x-error-code`. */
export class HopRefusedError extends CodedError {}

/** True when a {@link HopRefusedError} raised in this process is anywhere in the `cause` chain of `err`. */
export function isLocalRefusal(err: unknown): boolean {
  for (let cur: unknown = err; cur instanceof Error; cur = cur.cause) if (cur instanceof HopRefusedError) return true;
  return false;
}

/**
 * A hop that arrived after shutdown began (the hop gate, src/operator/hop-gate.ts, or a gRPC call
 * still queued for a slot when the server stops taking work). code `"SHUTTING_DOWN"`; a refusal:
 * the reply says so and a tinyhost sender retries it. Returned wrapped as retryable (a JetStream
 * hop without an inbox is then `nak`'d).
 */
export class ShuttingDownError extends HopRefusedError {
  /** @param to - the hop's destination `node:port`. */
  constructor(to: string) {
    super("SHUTTING_DOWN", new Error(`module is shutting down: hop to ${JSON.stringify(to)} refused; another replica may take it`));
  }
}
