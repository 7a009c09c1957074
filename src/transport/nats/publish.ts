/**
 * Sending one message into a running flow from outside it — what the platform's `send_signal`, the
 * MCP signal sender and the Go SDK's `wire.Publish` (pkg/wire/publish.go) do, and what
 * `tinyhost send` does in a cluster:
 * - subject `tinymodule.<module>.sysmsg` when the port starts with `_` (every pod gets it; the
 *   leader acts), else `tinymodule.<module>.msg` (one pod of the queue group); the module is the
 *   second dot segment of the node's name (runtime-spec §4.1, §4.2);
 * - headers `x-to: <node>:<port>`, `x-from` (`signal` for a raw payload, runtime-spec §2.1),
 *   `x-edge-id` when given, the W3C trace context when a propagator is set; the body is the JSON;
 * - without waiting: a plain publish, flushed;
 * - waiting on core NATS: a reply inbox as the message's reply subject and its `x-reply-inbox`
 *   header (as Go does); a "no responders" status on the inbox is an error, not an empty reply, and
 *   a module stream's PubAck there (the target runs JetStream) is a `TransportMismatchError`;
 * - waiting under JetStream (`TINY_NATS_TRANSPORT=jetstream`): the message is published to the
 *   stream (its acknowledgement only proves it was stored) and the flow's reply is awaited on the
 *   `x-reply-inbox` the JetStream receiver answers to (runtime-spec §4.4). Go's `wire.Publish`
 *   sets the same inbox as the reply subject, so the stream's PubAck `{"stream":…,"seq":…}` arrives
 *   there first and is returned as the reply; here it is not (docs/compatibility.md "Sending into a
 *   flow"). A wait that ends after the stream stored the message is `StoredPendingError` (it still
 *   runs); `msgId` sets `Nats-Msg-Id`, and a copy the stream drops is `DuplicateMessageError` when waited for.
 * The reply is decoded as every hop reply is (`x-error`, `x-error-code`, `x-empty`; runtime-spec §4.2).
 */
import { jetstream, PubHeaders, type PubAck } from "@nats-io/jetstream";
import { createInbox, type NatsConnection } from "@nats-io/transport-node";
import { fail, type Result } from "../../core/result.ts";
import { FROM_SIGNAL, moduleOfNode } from "../../core/hop.ts";
import {
  DuplicateMessageError,
  NatsSendError,
  NoRespondersError,
  NoSubjectError,
  RequestTimeoutError,
  StoredPendingError,
  TransportMismatchError,
} from "./errors.ts";
import { msgSubject, SYSMSG_STREAM, sysmsgSubject } from "./names.ts";
import { checkPayloadSize } from "./request.ts";
import { injectTrace } from "./trace.ts";
import { decodeReply, encodeHop, encodePayload, streamAckOf } from "./wire.ts";
import { startTimer } from "../../core/timer.ts";

/** Default reply wait, ms (Go `wire.Publish`: 30 s when `Timeout` is zero). */
export const PUBLISH_TIMEOUT_MS = 30_000;

/** Options of {@link publishToNode}. */
export interface PublishOptions {
  /** `x-from`; default {@link FROM_SIGNAL} (the runner then takes the payload as the port's data, runtime-spec §2.2). `""` sends none. */
  from?: string;
  /** `x-edge-id`; none by default (a send from outside travels on no edge). */
  edgeId?: string;
  /** Wait for the flow's reply (default false: resolves once the message left, or was stored by JetStream). */
  wait?: boolean;
  /** Reply wait, ms (default {@link PUBLISH_TIMEOUT_MS}). */
  timeoutMs?: number;
  /** `jetstream` when the modules run `TINY_NATS_TRANSPORT=jetstream` (default `core`). */
  transport?: "core" | "jetstream";
  /**
   * JetStream only: the message id (`Nats-Msg-Id`). The stream drops a second message with the same
   * id within its duplicate window (2 min, src/transport/nats/streams.ts), so a retry runs once.
   */
  msgId?: string;
}

/** What {@link publishToNode} sent. */
export interface Published {
  /** The subject it went to. */
  subject: string;
  /** The flow's reply when waited for, else `empty` once sent. */
  result: Result;
  /** JetStream: the stream's acknowledgement (where it stored the message; `duplicate` when it dropped it). */
  stored?: { stream: string; seq: number; duplicate: boolean };
}

/** The subject a message to `node`'s `port` goes to. @throws NoSubjectError when the name has no module segment. */
export function publishSubject(node: string, port: string): string {
  const module = moduleOfNode(node);
  if (node.includes(":") || module === undefined || module === "") throw new NoSubjectError(`${node}:${port}`);
  return port.startsWith("_") ? sysmsgSubject(module) : msgSubject(module);
}

/**
 * What becomes of a message a module stream stored, for a sender that has no result for it: the
 * business consumer `<module>` outlives the pods and starts at the first message it has not acked,
 * while each pod's system consumer starts at new messages (src/transport/nats/streams.ts).
 */
export function storedFate(stream: string): string {
  return stream === SYSMSG_STREAM
    ? "each running replica's system consumer takes it, but a replica that starts later does not (a module at zero replicas never runs it)"
    : "it will run when a replica takes it (at zero replicas, once one starts) — do not resend";
}

/** What a core send waiting for a reply is told when a module stream answered instead. */
function coreSendFix(stream: string): string {
  return `${storedFate(stream)}; to wait for a result, send with --transport jetstream (TINY_NATS_TRANSPORT=jetstream)`;
}

/**
 * Resolves with the first message on `inbox` (decoded), a no-responders status as its error, or a
 * timeout. On core NATS a module stream's PubAck arriving there is a {@link TransportMismatchError}.
 */
function awaitReply(nc: NatsConnection, inbox: string, subject: string, timeoutMs: number, core: boolean): { reply: Promise<Result>; cancel: () => void } {
  const done = Promise.withResolvers<Result>();
  const sub = nc.subscribe(inbox, {
    max: 1,
    callback: (err, m) => {
      if (err)
        return done.resolve(
          fail(err.name === "NoRespondersError" || /no responders/i.test(err.message) ? new NoRespondersError(subject, err) : new NatsSendError(subject, err)),
        );
      // The server answers a request nobody subscribes to with a header-only 503 status (NATS ADR-9).
      if (m.headers?.code === 503 || (m.data.byteLength === 0 && m.headers?.hasError && m.headers.status?.startsWith("503")))
        return done.resolve(fail(new NoRespondersError(subject)));
      const ack = core ? streamAckOf(m.headers, m.data) : undefined;
      done.resolve(ack ? fail(new TransportMismatchError(subject, ack.stream, ack.seq, coreSendFix(ack.stream))) : decodeReply(m.headers, m.data));
    },
  });
  const timer = startTimer(timeoutMs, () => done.resolve(fail(new RequestTimeoutError(subject, timeoutMs))));
  const cancel = () => {
    timer.cancel();
    sub.unsubscribe();
  };
  void done.promise.then(cancel);
  return { reply: done.promise, cancel };
}

/**
 * Sends `data` to `<node>:<port>` (see the module comment). Never rejects: a send that fails
 * resolves with `fail(...)` naming the subject.
 * @param node the node's full name (`<flow>.<module>.<component>-<suffix>`), no `:port`.
 * @param data the payload: JSON bytes as they are, any other value JSON-encoded.
 */
export async function publishToNode(nc: NatsConnection, node: string, port: string, data: unknown, o: PublishOptions = {}): Promise<Published> {
  let subject: string;
  let body: Uint8Array;
  try {
    subject = publishSubject(node, port);
    body = encodePayload(data);
  } catch (err) {
    return { subject: "", result: fail(err) };
  }
  const timeoutMs = o.timeoutMs ?? PUBLISH_TIMEOUT_MS;
  const inbox = o.wait ? createInbox() : undefined;
  const msg = { edgeId: o.edgeId ?? "", from: o.from ?? FROM_SIGNAL, to: `${node}:${port}`, data: body, depth: 0 };
  const headers = encodeHop(msg, { ...(inbox ? { replyInbox: inbox } : {}), trace: injectTrace() });
  if (o.msgId !== undefined && o.transport === "jetstream") headers.set(PubHeaders.MsgIdHdr, o.msgId);
  const tooLarge = checkPayloadSize(nc, subject, body, headers);
  if (tooLarge) return { subject, result: fail(tooLarge) };
  const waiting = inbox ? awaitReply(nc, inbox, subject, timeoutMs, o.transport !== "jetstream") : undefined;
  let ack: PubAck | undefined;
  try {
    if (o.transport === "jetstream") {
      // The stream's acknowledgement says the message is stored (an error when no stream takes the subject).
      ack = await jetstream(nc).publish(subject, body, { headers, timeout: Math.min(timeoutMs, PUBLISH_TIMEOUT_MS) });
    } else {
      nc.publish(subject, body, { headers, ...(inbox ? { reply: inbox } : {}) });
      await nc.flush();
    }
  } catch (err) {
    waiting?.cancel();
    const e = err as Error;
    return {
      subject,
      result: fail(/no responders/i.test(e.message) || e.name === "NoRespondersError" ? new NoRespondersError(subject, err) : new NatsSendError(subject, err)),
    };
  }
  const stored = ack ? { stored: { stream: ack.stream, seq: ack.seq, duplicate: ack.duplicate } } : {};
  if (ack?.duplicate && waiting) {
    // The reply of the first copy went to its own inbox; none will come to this one.
    waiting.cancel();
    return { subject, result: fail(new DuplicateMessageError(subject, o.msgId ?? "", ack.stream, ack.seq)), ...stored };
  }
  if (!waiting) return { subject, result: { kind: "empty" }, ...stored };
  const result = await waiting.reply;
  // Stored but not answered in time: it still runs, so the caller must not take this for a failure to resend.
  if (ack && result.kind === "fail" && result.error instanceof RequestTimeoutError)
    return { subject, result: fail(new StoredPendingError(subject, timeoutMs, ack.stream, ack.seq, storedFate(ack.stream))), ...stored };
  return { subject, result, ...stored };
}
