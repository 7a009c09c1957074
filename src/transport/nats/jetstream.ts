/**
 * JetStream transport (runtime-spec §4.4, §14.4): hops through the `module-edges` WorkQueue stream,
 * consumed by the shared durable pull consumer `<module>`; system messages through `module-sysmsgs`
 * and a per-pod consumer `<module>-sys-<pod>`.
 *
 * Sender: classic hop → JetStream publish with `x-reply-inbox`, wait on that core inbox (no
 * `Nats-Msg-Id`, §16 item 17); durable hop (the scheduler stamped a run on it) → publish with the
 * run headers and `Nats-Msg-Id` = step key, fire-and-forget; reply hop → core publish to the reply
 * subject.
 * Receiver: pulls bounded by the module's hop slots (src/transport/slots.ts), one concurrent task
 * per message, in-progress heartbeat while it runs; the handler
 * (the scheduler) runs a durable hop as a step — ledger consulted before, record written after
 * (src/runtime/durable/steps.ts) — so an ack always follows the record; on error: no inbox and
 * retryable (a step whose record could not be written is) → nak, else term.
 */
import { jetstream, jetstreamManager, type JetStreamClient, type JetStreamManager, type JsMsg } from "@nats-io/jetstream";
import { createInbox, type NatsConnection } from "@nats-io/transport-node";
import { coded, retryable, shouldRetry } from "../../core/errors.ts";
import { empty, fail, ok, type Result } from "../../core/result.ts";
import type { Logger } from "../../telemetry/log.ts";
import { logger as rootLogger } from "../../telemetry/log.ts";
import { RunReplyTimeoutError } from "../../core/durable/errors.ts";
import type { ReplyInbox } from "../../core/durable/replies.ts";
import type { Msg, RunCarrier, Transport } from "../../core/hop.ts";
import type { ServeOptions } from "./core.ts";
import { NatsSendError, RequestCancelledError, RequestTimeoutError } from "./errors.ts";
import { EDGE_STREAM, subjectFor, sysConsumerName, SYSMSG_STREAM } from "./names.ts";
import { checkPayloadSize, DEFAULT_REQUEST_TIMEOUT_MS, replyWithinLimit } from "./request.ts";
import { decodeIncoming, replyFor, runHop, type SystemMsgHandler } from "./serve.ts";
import { businessConsumerConfig, ensureConsumer, ensureStream, ensureStreams, edgeStreamConfig, sysmsgStreamConfig, systemConsumerConfig } from "./streams.ts";
import { ROOT_STEP_SUFFIX } from "../../core/durable/run.ts";
import { settle } from "./settle.ts";
import { ConsumerSupervisor, PULL_EXPIRES_MS } from "./supervisor.ts";
import { ReconnectFanout } from "./reconnects.ts";
import { DEFAULT_MAX_CONCURRENT_HOPS, HopSlots } from "../slots.ts";
import { injectTrace } from "./trace.ts";
import { decodeReply, encodeErrorReply, encodeHop, encodePayload, H_ERROR, H_REPLY_INBOX, type EncodedReply } from "./wire.ts";
import { bounded, startInterval, startTimer } from "../../core/timer.ts";

/** In-progress heartbeat interval while a handler runs, ms (runtime-spec §13.1: 10 s). */
export const IN_PROGRESS_MS = 10_000;

/**
 * Slots of the system consumer (`module-sysmsgs`), apart from the module's hop slots: a pull holds
 * its reservation until the pull ends, so one shared pool would let the (mostly idle) system pull
 * starve the business one. System messages are rare control messages (settings, leader-only).
 */
export const SYSTEM_SLOTS = 8;

/** Redelivery delay of a message pulled while the receivers stop, ms: outlasts the last pull ({@link PULL_EXPIRES_MS}). */
export const LATE_NAK_DELAY_MS = PULL_EXPIRES_MS + 500;

/** Construction options of {@link JetStreamTransport}. */
export interface JetStreamTransportOptions {
  /** An open connection; the transport never closes it. */
  nc: NatsConnection;
  /** This module's sanitized name (consumer and subject). */
  module: string;
  /** Pod name for the system consumer (`HOSTNAME`); required to serve (runtime-spec §4.4). */
  pod?: string;
  /** Classic reply wait, ms; default 5 min (runtime-spec §4.4). */
  requestTimeoutMs?: number;
  /** In-progress heartbeat, ms; default {@link IN_PROGRESS_MS}, or a third of `ackWaitMs` when that is shorter. */
  heartbeatMs?: number;
  /** Consumer health check, ms; default 20 s. */
  healthCheckMs?: number;
  /** Pause between consumer rebuilds, ms; default 2 s. */
  rebuildPauseMs?: number;
  /** Consumer AckWait, ms; default 30 s (runtime-spec §4.4). Tests shorten it. */
  ackWaitMs?: number;
  /** Replicas of both streams on a clustered broker (`TINYHOST_NATS_REPLICAS`); default: as the streams are (R1 when created here). */
  replicas?: number;
  /** The module's bound on concurrent incoming hops; default {@link DEFAULT_MAX_CONCURRENT_HOPS} slots. */
  slots?: HopSlots;
  log?: Logger;
}

/** JetStream transport. `send` never rejects. */
export class JetStreamTransport implements Transport, RunCarrier {
  /** Durable hops ride this wire (runtime-spec §3.5: they never short-circuit in-process). */
  readonly carriesRuns = true as const;
  readonly nc: NatsConnection;
  readonly js: JetStreamClient;
  readonly jsm: JetStreamManager;
  readonly module: string;
  readonly #o: JetStreamTransportOptions;
  readonly #log: Logger;
  readonly #supervisors: ConsumerSupervisor[] = [];
  readonly #inflight = new Set<Promise<void>>();
  readonly #stop = new AbortController();
  #stopping: Promise<void> | undefined;
  readonly #heartbeatMs: number;
  #reconnects: ReconnectFanout | undefined;
  /** The bound on concurrently running incoming hops (both consumers share it). */
  readonly slots: HopSlots;
  /** Business messages delivered again (`redelivered`: a nak, an AckWait that ran out, a replica that left). */
  redeliveries = 0;

  private constructor(o: JetStreamTransportOptions, jsm: JetStreamManager) {
    this.#o = o;
    this.nc = o.nc;
    this.jsm = jsm;
    this.js = jetstream(o.nc);
    this.module = o.module;
    this.#log = o.log ?? rootLogger.child({ component: "nats-jetstream", module: o.module });
    this.slots = o.slots ?? new HopSlots({ limit: DEFAULT_MAX_CONCURRENT_HOPS });
    // A long handler must tell the server it is alive well inside AckWait, or its hop is redelivered.
    this.#heartbeatMs = o.heartbeatMs ?? (o.ackWaitMs ? Math.min(IN_PROGRESS_MS, Math.floor(o.ackWaitMs / 3)) : IN_PROGRESS_MS);
  }

  /**
   * Builds the transport and ensures both streams (runtime-spec §4.1: failure is fatal in Go).
   * @throws the JetStream API error when JetStream is off or a stream cannot be created.
   */
  static async create(o: JetStreamTransportOptions): Promise<JetStreamTransport> {
    const jsm = await jetstreamManager(o.nc);
    await ensureStreams(jsm, o.replicas);
    return new JetStreamTransport(o, jsm);
  }

  /**
   * Sends `msg` (runtime-spec §4.4 sender): a hop with a run id (stamped by the scheduler, or
   * re-driven by the run reconciler) is durable and resolves to empty once the broker has it; any
   * other hop is classic and resolves to the receiver's reply.
   */
  send(msg: Msg, signal?: AbortSignal): Promise<Result> {
    if (msg.runId) return this.#sendDurable(msg);
    return this.#sendClassic(msg, signal);
  }

  /**
   * Opens a core inbox on this connection for a run's reply hop (Go `BeginRunWithReply`: the
   * origin subscribes to its reply subject). The reply arrives as the raw body, no headers (§4.4);
   * a reply hop over `max_payload` arrives as a header-only `PAYLOAD_TOO_LARGE` error instead.
   */
  openReply(timeoutMs: number): ReplyInbox {
    const subject = createInbox();
    const { promise, resolve } = Promise.withResolvers<Result>();
    const sub = this.nc.subscribe(subject, {
      max: 1,
      // The reply is the raw body; only a reply the sender could not deliver carries `x-error`.
      callback: (err, m) =>
        resolve(
          err ? fail(new NatsSendError(subject, err)) : m.headers?.get(H_ERROR) ? decodeReply(m.headers, m.data) : m.data.byteLength === 0 ? empty : ok(m.data),
        ),
    });
    const close = () => {
      timer.cancel();
      sub.unsubscribe();
      resolve(fail(new RunReplyTimeoutError(subject, timeoutMs)));
    };
    const timer = startTimer(timeoutMs, close);
    void promise.then(() => {
      timer.cancel();
      if (!sub.isClosed()) sub.unsubscribe();
    });
    return { subject, reply: promise, close };
  }

  async #sendDurable(msg: Msg): Promise<Result> {
    let data: Uint8Array;
    try {
      data = encodePayload(msg.data);
    } catch (err) {
      return fail(err);
    }
    if (msg.replySubject && msg.replyTarget && msg.to === msg.replyTarget) {
      // Reply hop: raw body to the waiting caller, no headers; dropped if nobody listens (§4.4).
      // Over max_payload the caller gets a header-only coded error instead of waiting out its deadline.
      const tooLarge = checkPayloadSize(this.nc, msg.replySubject, data, undefined);
      try {
        if (tooLarge) this.#reply(msg.replySubject, encodeErrorReply(coded("PAYLOAD_TOO_LARGE", tooLarge)));
        else this.nc.publish(msg.replySubject, data);
      } catch (err) {
        return fail(new NatsSendError(msg.replySubject, err));
      }
      return tooLarge ? fail(tooLarge) : empty;
    }
    let subject: string;
    try {
      subject = subjectFor(msg.to);
    } catch (err) {
      return fail(err);
    }
    const stepKey = msg.stepKey || `${msg.runId}${ROOT_STEP_SUFFIX}`;
    const headers = encodeHop(msg, { durable: true, trace: injectTrace() });
    const tooLarge = checkPayloadSize(this.nc, subject, data, headers);
    if (tooLarge) return fail(tooLarge);
    try {
      const ack = await this.js.publish(subject, data, { headers, msgID: stepKey });
      if (ack.duplicate) this.#log.debug({ subject, stepKey }, "durable hop already in the stream (duplicate step key)");
    } catch (err) {
      // Retryable: the hop may be stored though its PubAck was lost (a stream leader change), so the
      // sending step must stay unrecorded and run again; the same step key drops the copy.
      return fail(retryable(new NatsSendError(subject, err)));
    }
    return empty;
  }

  async #sendClassic(msg: Msg, signal?: AbortSignal): Promise<Result> {
    let subject: string;
    let data: Uint8Array;
    try {
      subject = subjectFor(msg.to);
      data = encodePayload(msg.data);
    } catch (err) {
      return fail(err);
    }
    const timeoutMs = this.#o.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
    if (signal?.aborted) return fail(new RequestCancelledError(subject, signal.reason));
    const inbox = createInbox();
    // No Nats-Msg-Id: de-duplication would drop legitimate repeats (runtime-spec §16 item 17).
    const headers = encodeHop(msg, { replyInbox: inbox, trace: injectTrace() });
    const tooLarge = checkPayloadSize(this.nc, subject, data, headers);
    if (tooLarge) return fail(tooLarge);
    const done = Promise.withResolvers<Result>();
    const sub = this.nc.subscribe(inbox, {
      max: 1,
      callback: (err, m) => done.resolve(err ? fail(new NatsSendError(subject, err)) : decodeReply(m.headers, m.data)),
    });
    const timer = startTimer(timeoutMs, () => done.resolve(fail(new RequestTimeoutError(subject, timeoutMs))));
    const onAbort = () => done.resolve(fail(new RequestCancelledError(subject, signal?.reason)));
    signal?.addEventListener("abort", onAbort, { once: true });
    this.js.publish(subject, data, { headers }).catch((err: unknown) => done.resolve(fail(new NatsSendError(subject, err))));
    const r = await done.promise;
    timer.cancel();
    signal?.removeEventListener("abort", onAbort);
    sub.unsubscribe();
    return r;
  }

  /**
   * Starts the supervised consumers: business `<module>` always, system `<module>-sys-<pod>` when a
   * pod name was given. Resolves once both consume.
   */
  async serve(opts: ServeOptions): Promise<void> {
    const isLeader = opts.isLeader ?? (() => false);
    const system: SystemMsgHandler = opts.system ?? ((msg, signal) => opts.handler(msg, signal));
    const signal = this.#stop.signal;
    const ackWait = this.#o.ackWaitMs;
    const withAck = <T extends { ack_wait?: number }>(c: T): T => (ackWait ? { ...c, ack_wait: ackWait * 1_000_000 } : c);
    const business = this.#supervise(
      EDGE_STREAM,
      this.module,
      async () => {
        await ensureStream(this.jsm, edgeStreamConfig(this.#o.replicas));
        // Normally made by pre-install / provision before the first pod (verified here); a module
        // run without them (a plain `run`, a Go-style install) creates it as the Go SDK does.
        const outcome = await ensureConsumer(this.jsm, EDGE_STREAM, withAck(businessConsumerConfig(this.module)));
        if (outcome !== "verified") this.#log.info({ consumer: this.module, outcome }, `business consumer ${outcome} by the module`);
      },
      (msg) => opts.handler(msg, signal),
      this.slots,
      true,
    );
    const started = [business.start()];
    if (this.#o.pod) {
      const pod = this.#o.pod;
      const sys = this.#supervise(
        SYSMSG_STREAM,
        sysConsumerName(this.module, pod),
        async () => {
          await ensureStream(this.jsm, sysmsgStreamConfig(this.#o.replicas));
          await ensureConsumer(this.jsm, SYSMSG_STREAM, withAck(systemConsumerConfig(this.module, pod)));
        },
        (msg) => system(msg, signal, isLeader()),
        new HopSlots({ limit: SYSTEM_SLOTS }),
      );
      started.push(sys.start());
    }
    await Promise.all(started);
  }

  /** The business consumer's backlog as this process last saw it (zeros before {@link serve}). */
  get backlog(): { readonly pending: number; readonly ackPending: number } {
    return this.#supervisors[0]?.backlog ?? { pending: 0, ackPending: 0 };
  }

  /** The supervisors started by {@link serve} (business first). */
  get supervisors(): readonly ConsumerSupervisor[] {
    return this.#supervisors;
  }

  #supervise(
    stream: string,
    consumer: string,
    ensure: () => Promise<void>,
    handle: (msg: Msg) => Promise<Result>,
    slots: HopSlots,
    business = false,
  ): ConsumerSupervisor {
    this.#reconnects ??= new ReconnectFanout(this.nc);
    const s: ConsumerSupervisor = new ConsumerSupervisor({
      reconnects: this.#reconnects.events,
      js: this.js,
      jsm: this.jsm,
      stream,
      consumer,
      ensure,
      log: this.#log,
      slots,
      onMessage: (m, release) => {
        const p = this.#onMessage(m, handle, business ? s : undefined).finally(release);
        this.#inflight.add(p);
        void p.finally(() => this.#inflight.delete(p));
      },
      // Pulled but not started (the receivers stop): back to the stream for another replica. Our
      // last pull request stays open on the server until it expires, and a plain nak would be
      // redelivered into it at once — nak'd again, until MaxDeliver (3) drops the message. The
      // delay outlasts that pull, so the redelivery goes to a replica that still pulls.
      onLate: (m) => void settle(this.nc, m, "nak", this.#log, undefined, LATE_NAK_DELAY_MS),
      ...(this.#o.healthCheckMs ? { healthCheckMs: this.#o.healthCheckMs } : {}),
      ...(this.#o.rebuildPauseMs ? { pauseMs: this.#o.rebuildPauseMs } : {}),
    });
    this.#supervisors.push(s);
    return s;
  }

  async #onMessage(m: JsMsg, handle: (msg: Msg) => Promise<Result>, supervisor?: ConsumerSupervisor): Promise<void> {
    if (supervisor) {
      if (m.info.redelivered) this.redeliveries++;
      supervisor.backlog.pending = m.info.pending;
    }
    const decoded = decodeIncoming(m.headers, m.data);
    if (!decoded.ok) {
      this.#log.warn({ subject: m.subject, err: decoded.error.message }, "malformed message terminated");
      const inbox = m.headers?.get(H_REPLY_INBOX);
      if (inbox) this.#reply(inbox, decoded.reply);
      settle(this.nc, m, "term", this.#log, decoded.error.message);
      return;
    }
    const hop = decoded.hop;
    const heartbeat = startInterval(this.#heartbeatMs, () => settle(this.nc, m, "working", this.#log));
    let result: Result;
    try {
      result = await runHop(hop, handle);
    } finally {
      heartbeat.cancel();
    }
    if (hop.replyInbox) this.#reply(hop.replyInbox, replyFor(result));
    if (result.kind === "fail") {
      if (!hop.replyInbox && shouldRetry(result.error)) settle(this.nc, m, "nak", this.#log);
      else {
        // Without an inbox nobody else hears of this failure: say it once here.
        if (!hop.replyInbox) this.#log.info({ to: hop.msg.to, runId: hop.msg.runId, err: result.error.message }, "hop failed; message terminated");
        settle(this.nc, m, "term", this.#log, result.error.message);
      }
    } else settle(this.nc, m, "ack", this.#log);
  }

  #reply(inbox: string, reply: EncodedReply): void {
    try {
      const sent = replyWithinLimit(this.nc, inbox, reply);
      this.nc.publish(inbox, sent.data, sent.headers ? { headers: sent.headers } : undefined);
    } catch (err) {
      this.#log.warn({ inbox, err: String(err) }, "reply not sent");
    }
  }

  /**
   * Stops taking new work: no new pull; messages the last pulls still deliver are `nak`'d (another
   * replica gets them at once). Resolves within {@link PULL_EXPIRES_MS} plus a round trip;
   * in-flight handlers keep running. Idempotent.
   */
  stopReceiving(): Promise<void> {
    return (this.#stopping ??= Promise.allSettled(this.#supervisors.map((s) => s.stop())).then(() => this.#reconnects?.close()));
  }

  /** Hops running now (handed to a handler, not yet settled). */
  get inFlight(): number {
    return this.#inflight.size;
  }

  /** {@link stopReceiving}, waits up to `graceMs` for in-flight handlers, then aborts their signal. */
  async close(graceMs = 10_000): Promise<void> {
    await this.stopReceiving();
    if (this.#inflight.size > 0) {
      await bounded(Promise.allSettled([...this.#inflight]), graceMs);
    }
    this.#stop.abort(new Error("jetstream transport closed"));
  }
}
