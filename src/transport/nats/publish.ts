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
 *   header (as Go does); a "no responders" status on the inbox is an error, not an empty reply;
 * - waiting under JetStream (`TINY_NATS_TRANSPORT=jetstream`): the message is published to the
 *   stream (its acknowledgement only proves it was stored) and the flow's reply is awaited on the
 *   `x-reply-inbox` the JetStream receiver answers to (runtime-spec §4.4). Go's `wire.Publish`
 *   sets the same inbox as the reply subject, so the stream's PubAck `{"stream":…,"seq":…}` arrives
 *   there first and is returned as the reply; here it is not (docs/compatibility.md "Sending into a
 *   flow").
 * The reply is decoded as every hop reply is (`x-error`, `x-error-code`, `x-empty`; runtime-spec §4.2).
 */
import { jetstream } from "@nats-io/jetstream";
import { createInbox, type NatsConnection } from "@nats-io/transport-node";
import { fail, type Result } from "../../core/result.ts";
import { FROM_SIGNAL, moduleOfNode } from "../../core/hop.ts";
import { NatsSendError, NoRespondersError, NoSubjectError, RequestTimeoutError } from "./errors.ts";
import { msgSubject, sysmsgSubject } from "./names.ts";
import { checkPayloadSize } from "./request.ts";
import { injectTrace } from "./trace.ts";
import { decodeReply, encodeHop, encodePayload } from "./wire.ts";
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
}

/** What {@link publishToNode} sent. */
export interface Published {
  /** The subject it went to. */
  subject: string;
  /** The flow's reply when waited for, else `empty` once sent. */
  result: Result;
}

/** The subject a message to `node`'s `port` goes to. @throws NoSubjectError when the name has no module segment. */
export function publishSubject(node: string, port: string): string {
  const module = moduleOfNode(node);
  if (node.includes(":") || module === undefined || module === "") throw new NoSubjectError(`${node}:${port}`);
  return port.startsWith("_") ? sysmsgSubject(module) : msgSubject(module);
}

/** Resolves with the first message on `inbox` (decoded), a no-responders status as its error, or a timeout. */
function awaitReply(nc: NatsConnection, inbox: string, subject: string, timeoutMs: number): { reply: Promise<Result>; cancel: () => void } {
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
      done.resolve(decodeReply(m.headers, m.data));
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
  const tooLarge = checkPayloadSize(nc, subject, body, headers);
  if (tooLarge) return { subject, result: fail(tooLarge) };
  const waiting = inbox ? awaitReply(nc, inbox, subject, timeoutMs) : undefined;
  try {
    if (o.transport === "jetstream") {
      // The stream's acknowledgement says the message is stored (an error when no stream takes the subject).
      await jetstream(nc).publish(subject, body, { headers, timeout: Math.min(timeoutMs, PUBLISH_TIMEOUT_MS) });
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
  if (!waiting) return { subject, result: { kind: "empty" } };
  return { subject, result: await waiting.reply };
}
