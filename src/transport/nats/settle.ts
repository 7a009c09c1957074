/**
 * Settling a JetStream message (ack, nak, term, in-progress) so that it works on every server we
 * support and never throws.
 *
 * Term carries no reason: nats-server before 2.10 matches the ack body `+TERM` exactly
 * (`server/consumer.go` `processAck`: `bytes.Equal(msg, AckTerm)`; 2.10 switched to `HasPrefix`),
 * so `+TERM <reason>` is silently ignored there and the message is redelivered after AckWait until
 * MaxDeliver — the hop ran three times. The reason goes to the log instead. Pinned by
 * test/integration/nats-jetstream.test.ts "a failed hop is terminated once".
 *
 * A settle on a closed or draining connection (shutdown, a broker gone for good) would throw from
 * inside a handler's tail or a timer; here it is skipped and logged: the server redelivers the
 * message after AckWait, which is what an unsettled message means.
 */
import type { JsMsg } from "@nats-io/jetstream";
import type { NatsConnection } from "@nats-io/transport-node";
import type { Logger } from "../../telemetry/log.ts";
import { messageOf } from "../../core/errors.ts";

/** How a message is settled (JetStream ack kinds; `working` = `+WPI`, resets AckWait). */
export type SettleKind = "ack" | "nak" | "term" | "working";

/**
 * Settles `m` as `kind`. Never throws.
 * @param reason - for `term`: logged (not sent, see the module comment).
 * @param nakDelayMs - for `nak`: redeliver no sooner than this, ms (`-NAK {"delay"}`, nats-server ≥ 2.7).
 * @returns true when the settle was handed to the connection, false when it was skipped (closed
 *   connection) or the client threw.
 */
export function settle(nc: NatsConnection, m: JsMsg, kind: SettleKind, log: Logger, reason?: string, nakDelayMs?: number): boolean {
  if (nc.isClosed()) {
    log.debug({ subject: m.subject, seq: m.seq, kind }, "connection closed: message left unsettled (redelivered after AckWait)");
    return false;
  }
  try {
    if (kind === "ack") m.ack();
    else if (kind === "nak") m.nak(nakDelayMs);
    else if (kind === "working") m.working();
    else {
      if (reason) log.debug({ subject: m.subject, seq: m.seq, reason }, "message terminated");
      m.term();
    }
    return true;
  } catch (err) {
    log.warn({ subject: m.subject, seq: m.seq, kind, err: messageOf(err) }, "message not settled (redelivered after AckWait)");
    return false;
  }
}
