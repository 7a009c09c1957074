/**
 * The RPC caller's side (runtime-spec §4.5; Go pkg/wire/rpc.go `PublishRPC`): an agent-tool call
 * to a bare component name of a module, as the platform's MCP tooling makes it. A core publish to
 * `tinymodule.<module>.msg` with `x-to: <component>`, `x-mode: rpc` and `x-reply-inbox: <inbox>`
 * and NO native reply subject — so a JetStream module (whose stream captures the subject) answers
 * on the inbox, and so does a tinyhost core module (docs/compatibility.md: Go's core receiver does not).
 */
import { createInbox, type NatsConnection } from "@nats-io/transport-node";
import { TinyError } from "../../core/errors.ts";
import { fail, type Result } from "../../core/result.ts";
import { NatsSendError } from "./errors.ts";
import { msgSubject } from "./names.ts";
import { checkPayloadSize } from "./request.ts";
import { injectTrace } from "./trace.ts";
import { decodeReply, H_MODE, H_REPLY_INBOX, H_TO, H_TRACEPARENT, H_BAGGAGE } from "./wire.ts";
import { headers as natsHeaders } from "@nats-io/transport-node";
import { startTimer } from "../../core/timer.ts";

/** Default reply wait of an RPC call, ms (Go `RPCOptions.Timeout` zero → 30 s). */
export const DEFAULT_RPC_TIMEOUT_MS = 30_000;

/** No answer to an RPC call in time. code `"RPC_TIMEOUT"`. */
export class RpcTimeoutError extends TinyError {
  constructor(subject: string, component: string, timeoutMs: number) {
    super("RPC_TIMEOUT", `no answer from ${component} on ${subject} within ${timeoutMs} ms (is the module running and connected to this NATS server?)`);
  }
}

/** A required argument of {@link publishRpc} is empty. code `"INVALID_ARGUMENT"`. */
export class RpcArgumentError extends TinyError {
  constructor(what: string) {
    super("INVALID_ARGUMENT", `${what} is required`);
  }
}

/**
 * Calls agent tool `component` on `module` with the JSON bytes `data` (Go `wire.PublishRPC`).
 * @param module the module's sanitized name (its subject segment).
 * @returns `ok(bytes)` — the JSON the tool answered —, `empty` for an `x-empty` answer, or `fail`:
 *   the remote error (`x-error`), {@link RpcTimeoutError}, `PayloadTooLargeError` (before sending, both
 *   sizes), a send error. Never rejects.
 */
export async function publishRpc(nc: NatsConnection, module: string, component: string, data: Uint8Array, timeoutMs = DEFAULT_RPC_TIMEOUT_MS): Promise<Result> {
  if (!module) return fail(new RpcArgumentError("module name"));
  if (!component) return fail(new RpcArgumentError("component name"));
  const subject = msgSubject(module);
  const inbox = createInbox();
  const h = natsHeaders();
  h.set(H_TO, component);
  h.set(H_MODE, "rpc");
  h.set(H_REPLY_INBOX, inbox);
  const trace = injectTrace();
  if (trace.traceparent) h.set(H_TRACEPARENT, trace.traceparent);
  if (trace.baggage) h.set(H_BAGGAGE, trace.baggage);
  const tooLarge = checkPayloadSize(nc, subject, data, h);
  if (tooLarge) return fail(tooLarge);
  const { promise, resolve } = Promise.withResolvers<Result>();
  const sub = nc.subscribe(inbox, { max: 1, callback: (err, m) => resolve(err ? fail(new NatsSendError(inbox, err)) : decodeReply(m.headers, m.data)) });
  const timer = startTimer(timeoutMs, () => resolve(fail(new RpcTimeoutError(subject, component, timeoutMs))));
  try {
    nc.publish(subject, data, { headers: h }); // no reply subject: the answer comes on the inbox
    return await promise;
  } catch (err) {
    return fail(new NatsSendError(subject, err));
  } finally {
    timer.cancel();
    sub.unsubscribe();
  }
}
