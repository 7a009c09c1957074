/**
 * Core NATS transport (runtime-spec §4.3): blocking request/reply between modules.
 *
 * Sender: request to `tinymodule.<targetModule>.msg` with the §4.2 headers, `Nats-Msg-Id` = edge id
 * (as Go's core sender), durable run headers NOT sent (Go core drops them, §4.3).
 * Receiver: queue subscription (queue = own module) on `.msg` — replicas share the load — and a plain
 * subscription on `.sysmsg` on every pod, whose handler gets the leader flag. Business messages run
 * concurrently up to the module's hop slots (src/transport/slots.ts); beyond them a message waits
 * in the bounded slot queue, else is answered with the retryable `BUSY` (the caller's edge retries;
 * docs/operations.md §10). A handler requesting its own module is routed in-process by the
 * scheduler and takes no slot (Go `TestNestedRequestNoDeadlock`); a cycle through another module
 * that fills the slots unwinds with `BUSY` after the queue wait instead of deadlocking.
 * System messages (`.sysmsg`: settings, leader-only control, rare) take no slot.
 */
import type { Msg as NatsMsg, NatsConnection, Subscription } from "@nats-io/transport-node";
import type { Logger } from "../../telemetry/log.ts";
import { logger as rootLogger } from "../../telemetry/log.ts";
import { fail, type Result } from "../../core/result.ts";
import type { Msg, MsgHandler, Transport } from "../../core/hop.ts";
import { DEFAULT_HOP_QUEUE_WAIT_MS, DEFAULT_MAX_CONCURRENT_HOPS, HopSlots } from "../slots.ts";
import { msgSubject, subjectFor, sysmsgSubject } from "./names.ts";
import { DEFAULT_REQUEST_TIMEOUT_MS, replyWithinLimit, request } from "./request.ts";
import { decodeIncoming, replyFor, runHop, type SystemMsgHandler } from "./serve.ts";
import { injectTrace } from "./trace.ts";
import { encodeErrorReply, encodeHop, encodePayload, H_REPLY_INBOX, H_TO, type EncodedReply } from "./wire.ts";
import { bounded } from "../../core/timer.ts";
import { messageOf } from "../../core/errors.ts";

/** Construction options of {@link CoreNatsTransport}. */
export interface CoreNatsOptions {
  /** An open connection (see `connectNats`); the transport never closes it. */
  nc: NatsConnection;
  /** This module's sanitized name: the queue group and the served subjects (runtime-spec §4.1). */
  module: string;
  /** Reply wait when the caller's signal sets no earlier end, ms; default 5 min (runtime-spec §4.3). */
  requestTimeoutMs?: number;
  /** The module's bound on concurrent incoming hops; default {@link DEFAULT_MAX_CONCURRENT_HOPS} slots. */
  slots?: HopSlots;
  /** Longest a business message waits for a slot before `BUSY`, ms; default {@link DEFAULT_HOP_QUEUE_WAIT_MS}. */
  queueWaitMs?: number;
  /** Logger; default a child of the root logger. */
  log?: Logger;
}

/** What {@link CoreNatsTransport.serve} delivers hops to. */
export interface ServeOptions {
  /** Business hops (`.msg`), typically `scheduler.handle`. */
  handler: MsgHandler;
  /** System hops (`.sysmsg`); default: `handler` (the leader flag is then not passed on). */
  system?: SystemMsgHandler;
  /** The pod's live leader flag, read when a system message arrives; default `() => false`. */
  isLeader?: () => boolean;
}

/** Core NATS request/reply transport. `send` never rejects. */
export class CoreNatsTransport implements Transport {
  readonly nc: NatsConnection;
  readonly module: string;
  readonly requestTimeoutMs: number;
  /** The bound on concurrently running business hops. */
  readonly slots: HopSlots;
  readonly #queueWaitMs: number;
  readonly #log: Logger;
  readonly #subs: Subscription[] = [];
  readonly #inflight = new Set<Promise<void>>();
  readonly #stop = new AbortController();
  #stopping: Promise<void> | undefined;

  constructor(opts: CoreNatsOptions) {
    this.nc = opts.nc;
    this.module = opts.module;
    this.requestTimeoutMs = opts.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
    this.#log = opts.log ?? rootLogger.child({ component: "nats-core", module: opts.module });
    this.slots = opts.slots ?? new HopSlots({ limit: DEFAULT_MAX_CONCURRENT_HOPS });
    this.#queueWaitMs = opts.queueWaitMs ?? DEFAULT_HOP_QUEUE_WAIT_MS;
  }

  /**
   * Sends `msg` as a request to the module of `msg.to` (runtime-spec §4.3). Resolves to the reply's
   * Result; failures (no subject, oversize, no responders, timeout, cancel) resolve as `fail(...)`.
   */
  send(msg: Msg, signal?: AbortSignal): Promise<Result> {
    let subject: string;
    let data: Uint8Array;
    try {
      subject = subjectFor(msg.to);
      data = encodePayload(msg.data);
    } catch (err) {
      return Promise.resolve(fail(err));
    }
    const headers = encodeHop(msg, { msgId: msg.edgeId, trace: injectTrace() });
    return request(this.nc, subject, data, headers, this.requestTimeoutMs, signal);
  }

  /** Starts serving `.msg` (queue group = module) and `.sysmsg` (every pod). Call once. */
  serve(opts: ServeOptions): void {
    const isLeader = opts.isLeader ?? (() => false);
    const system: SystemMsgHandler = opts.system ?? ((msg, signal) => opts.handler(msg, signal));
    const signal = this.#stop.signal;
    this.#subs.push(
      this.nc.subscribe(msgSubject(this.module), {
        queue: this.module,
        callback: (err, m) => this.#onMessage(err, m, (msg) => opts.handler(msg, signal), true),
      }),
      this.nc.subscribe(sysmsgSubject(this.module), {
        callback: (err, m) => this.#onMessage(err, m, (msg) => system(msg, signal, isLeader()), false),
      }),
    );
  }

  #onMessage(err: Error | null, m: NatsMsg, handle: (msg: Msg) => Promise<Result>, bounded: boolean): void {
    if (err) {
      this.#log.warn({ err: err.message }, "subscription error");
      return;
    }
    const p = bounded ? this.#admit(m, handle) : this.#handle(m, handle);
    this.#inflight.add(p);
    void p.finally(() => this.#inflight.delete(p));
  }

  /** Runs `m` in a slot, or answers `BUSY` (retryable) when none frees within the queue wait. */
  async #admit(m: NatsMsg, handle: (msg: Msg) => Promise<Result>): Promise<void> {
    if (!(await this.slots.acquire(this.#queueWaitMs))) {
      const refusal = this.slots.busyRefusal(m.headers?.get(H_TO) ?? m.subject, this.#queueWaitMs);
      this.#respond(m, m.reply || m.headers?.get(H_REPLY_INBOX), encodeErrorReply(refusal));
      return;
    }
    try {
      await this.#handle(m, handle);
    } finally {
      this.slots.release();
    }
  }

  async #handle(m: NatsMsg, handle: (msg: Msg) => Promise<Result>): Promise<void> {
    const decoded = decodeIncoming(m.headers, m.data);
    let reply: EncodedReply;
    if (!decoded.ok) {
      this.#log.warn({ subject: m.subject, err: decoded.error.message }, "malformed message answered with x-error");
      reply = decoded.reply;
    } else {
      reply = replyFor(await runHop(decoded.hop, handle));
    }
    // A request has a native reply subject. Without one, a sender waiting on `x-reply-inbox` (Go's
    // `PublishRPC`, runtime-spec §4.5) gets its answer there — Go's core receiver never answers it
    // (§16 item 17); a plain fire-and-forget publish has neither and gets nothing.
    this.#respond(m, m.reply || (decoded.ok ? decoded.hop.replyInbox : m.headers?.get(H_REPLY_INBOX)), reply);
  }

  #respond(m: NatsMsg, inbox: string | undefined, reply: EncodedReply): void {
    if (!inbox) return;
    if (this.nc.isClosed()) {
      this.#log.warn({ subject: m.subject }, "reply not sent: connection closed");
      return;
    }
    try {
      const sent = replyWithinLimit(this.nc, inbox, reply);
      this.nc.publish(inbox, sent.data, sent.headers ? { headers: sent.headers } : undefined);
    } catch (e) {
      this.#log.warn({ subject: m.subject, err: messageOf(e) }, "reply not sent");
    }
  }

  /**
   * Stops taking new work (runtime-spec §4.3 "drain on shutdown"): drains both subscriptions — the
   * server stops routing to this member of the queue group, so the other replicas get the next
   * requests, and what this client already received is still handled. In-flight handlers keep
   * running. Idempotent.
   */
  stopReceiving(): Promise<void> {
    return (this.#stopping ??= Promise.allSettled(this.#subs.map((s) => s.drain())).then(() => undefined));
  }

  /** Hops running or waiting for a slot now. */
  get inFlight(): number {
    return this.#inflight.size;
  }

  /**
   * Graceful stop: {@link stopReceiving}, waits up to `graceMs` for in-flight handlers to reply,
   * then aborts the signal handed to the remaining ones. The connection stays open (its owner
   * drains it).
   */
  async close(graceMs = 10_000): Promise<void> {
    await this.stopReceiving();
    if (this.#inflight.size > 0) {
      await bounded(Promise.allSettled([...this.#inflight]), graceMs);
    }
    this.#stop.abort(new Error("nats transport closed"));
  }
}
