/**
 * The gRPC server of the fallback transport (runtime-spec §4.7): serves
 * `/module.ModuleService/Message` by handing each request to the module's {@link MsgHandler}, plus
 * the standard health service. Started only when NATS is not configured (runtime-spec §4.1).
 * Every Message call takes one of the module's hop slots first (src/transport/grpc/admission.ts):
 * beyond the limit it waits in the bounded queue, else it is answered with the retryable `BUSY`
 * (status UNKNOWN + trailers `x-error-code: BUSY`, `x-refused: 1`; docs/operations.md §10).
 */
import { Metadata, Server, ServerCredentials, status as grpcStatus, type sendUnaryData, type ServerUnaryCall, type ServerErrorResponse } from "@grpc/grpc-js";
import { context } from "@opentelemetry/api";
import { fail, type Result } from "../../core/result.ts";
import { logger, type Logger } from "../../telemetry/log.ts";
import type { MsgHandler } from "../../core/hop.ts";
import { DEFAULT_MAX_CONCURRENT_HOPS, HopSlots } from "../slots.ts";
import { CallAdmission } from "./admission.ts";
import { depthFromMetadata, ERROR_CODE_METADATA, errorStatus, msgFromRequest, REFUSED_FLAG, REFUSED_METADATA, replyFromResult } from "./codec.ts";
import { GrpcBindError, GrpcCallError, GrpcDeadlineError } from "./errors.ts";
import { healthImplementation, healthServiceDefinition } from "./health.ts";
import { extractTrace } from "./metadata.ts";
import { moduleServiceDefinition, type MessageRequestWire, type MessageResponseWire } from "./proto.ts";
import { startTimer } from "../../core/timer.ts";

/** Keepalive of both ends: ping every 10 s, drop after 3 s without an ack (runtime-spec §13.1). */
export const KEEPALIVE_TIME_MS = 10_000;
/** Ping ack timeout (runtime-spec §13.1). */
export const KEEPALIVE_TIMEOUT_MS = 3_000;
/** How early a cancel may come and still be the caller's deadline (timers fire on whole ms), ms. */
const DEADLINE_SLACK_MS = 2;
/** Default grace for in-flight calls on {@link GrpcServer.stop}, ms. */
export const DEFAULT_STOP_GRACE_MS = 5_000;

/** Options of {@link GrpcServer}. */
export interface GrpcServerOptions {
  /** Receives every hop; typically `Scheduler.handle`. */
  handler: MsgHandler;
  /**
   * Listen address `host:port`, `:port` (all interfaces) or `[v6]:port`; port `0` picks a free one.
   * Default `":0"` (the CLI default of `--grpc-server-bind-address`; the chart uses `:8483`).
   */
  address?: string;
  /** Environment read for `SELF_SERVICE_HOST`. Default `process.env`. */
  env?: Record<string, string | undefined>;
  /** Logger; default the root logger's `grpc` child. */
  log?: Logger;
  /** The module's bound on concurrently running calls; default {@link DEFAULT_MAX_CONCURRENT_HOPS} slots (queue as long). */
  slots?: HopSlots;
  /** Longest a call waits for a slot before `BUSY`, ms; default `DEFAULT_HOP_QUEUE_WAIT_MS` (2000); 0 = refuse at once. */
  queueWaitMs?: number;
}

/**
 * Converts a Go-style listen address into a grpc-js bind target: `":8483"` → `"[::]:8483"` (all
 * interfaces, dual-stack like Go's `net.Listen`), `"host:port"` kept.
 * @throws GrpcBindError naming the value when it is not `[host]:port` with a port 0–65535.
 */
export function bindTarget(address: string): string {
  const m = /^(\[[0-9a-fA-F:.]+\]|[^:\s[\]]*):(\d{1,5})$/.exec(address);
  const port = m ? Number(m[2]) : NaN;
  if (!m || port > 65535) {
    throw new GrpcBindError(`grpc server bind address ${JSON.stringify(address)} is not "[host]:port" with a port 0-65535`);
  }
  return `${m[1] === "" ? "[::]" : m[1]}:${port}`;
}

/**
 * The address other modules dial, published as `TinyModule.status.addr` (runtime-spec §4.7):
 * env `SELF_SERVICE_HOST` when set and non-empty, else `127.0.0.1:<port>`.
 */
export function advertisedAddress(port: number, env: Record<string, string | undefined> = process.env): string {
  const host = env.SELF_SERVICE_HOST;
  return host ? host : `127.0.0.1:${port}`;
}

/** The gRPC server of one module process. Lifecycle: `start()` once, `stop()` once. */
export class GrpcServer {
  readonly #handler: MsgHandler;
  readonly #address: string;
  readonly #env: Record<string, string | undefined>;
  readonly #log: Logger;
  /** Aborted on stop: cancels every in-flight handler (Go merges the server ctx into each call). */
  readonly #stopping = new AbortController();
  readonly #admission: CallAdmission;
  #server: Server | undefined;
  #port = 0;

  /** @throws RangeError naming `queueWaitMs` when it is not an integer ≥ 0. */
  constructor(options: GrpcServerOptions) {
    this.#admission = new CallAdmission({
      slots: options.slots ?? new HopSlots({ limit: DEFAULT_MAX_CONCURRENT_HOPS }),
      ...(options.queueWaitMs !== undefined ? { queueWaitMs: options.queueWaitMs } : {}),
    });
    this.#handler = options.handler;
    this.#address = options.address ?? ":0";
    this.#env = options.env ?? process.env;
    this.#log = options.log ?? logger.child({ component: "grpc-server" });
  }

  /** The bound on concurrently running calls (/metrics `tinyhost_hop_slots_*`). */
  get slots(): HopSlots {
    return this.#admission.slots;
  }

  /** Calls refused with `SHUTTING_DOWN` since {@link stopReceiving}. */
  get refusedWhileStopping(): number {
    return this.#admission.refusedClosed;
  }

  /** The bound port (0 before {@link start}). */
  get port(): number {
    return this.#port;
  }

  /**
   * The address to publish in `TinyModule.status.addr` (see {@link advertisedAddress}); `""` until
   * {@link start} bound the port, so the status is never written with port 0 (the TinyModule
   * reconciler writes nothing for `""` and is requeued once the port is bound).
   */
  get advertisedAddress(): string {
    return this.#port === 0 ? "" : advertisedAddress(this.#port, this.#env);
  }

  /**
   * Binds and starts serving; resolves to the bound port.
   * @throws GrpcBindError on a malformed address or when the bind fails (port in use).
   */
  async start(): Promise<number> {
    if (this.#server) throw new GrpcBindError("grpc server already started");
    const target = bindTarget(this.#address);
    const server = new Server({
      "grpc.keepalive_time_ms": KEEPALIVE_TIME_MS,
      "grpc.keepalive_timeout_ms": KEEPALIVE_TIMEOUT_MS,
      "grpc.keepalive_permit_without_calls": 1,
    });
    server.addService(moduleServiceDefinition(), { Message: this.#onMessage });
    server.addService(healthServiceDefinition(), healthImplementation());
    this.#server = server;
    this.#port = await new Promise<number>((resolve, reject) => {
      server.bindAsync(target, ServerCredentials.createInsecure(), (err, port) => {
        if (err) reject(new GrpcBindError(`grpc server cannot listen on ${JSON.stringify(this.#address)}: ${err.message}`, { cause: err }));
        else resolve(port);
      });
    });
    this.#log.info({ address: target, port: this.#port, advertised: this.advertisedAddress }, "grpc server listening");
    return this.#port;
  }

  /**
   * Stops taking work, first thing on shutdown (as core NATS leaves its queue group): calls queued
   * for a slot and every later call are answered with the retryable `SHUTTING_DOWN` refusal, so the
   * caller's edge re-sends them (to another replica once this one's address is gone). Running calls
   * go on. The listener stays open: a refusal is an answer, a closed port is a connection error.
   * Idempotent.
   */
  stopReceiving(): void {
    this.#admission.close();
  }

  /**
   * Graceful stop (runtime-spec §4.7): {@link stopReceiving}, cancels in-flight handlers, refuses
   * new calls, waits up to `graceMs` (default 5000 ms) for calls to finish, then closes every
   * connection.
   */
  async stop(graceMs: number = DEFAULT_STOP_GRACE_MS): Promise<void> {
    const server = this.#server;
    this.stopReceiving();
    if (!server || this.#stopping.signal.aborted) return;
    this.#stopping.abort(new GrpcCallError(grpcStatus.CANCELLED, "CANCELLED", "grpc server shutting down"));
    await new Promise<void>((resolve) => {
      const t = startTimer(graceMs, () => {
        server.forceShutdown();
        resolve();
      });
      server.tryShutdown(() => {
        t.cancel();
        resolve();
      });
    });
    this.#log.info({ port: this.#port }, "grpc server stopped");
  }

  readonly #onMessage = (call: ServerUnaryCall<MessageRequestWire, MessageResponseWire>, callback: sendUnaryData<Partial<MessageResponseWire>>): void => {
    const hop = new AbortController();
    // The caller's deadline (`grpc-timeout`) bounds the handler, as Go's handler context carries it:
    // at the deadline grpc-js answers DEADLINE_EXCEEDED and reports the call cancelled, so a cancel
    // at (or within a timer tick of) the deadline is the deadline.
    const deadline = Number(call.getDeadline());
    const receivedAt = Date.now();
    const onCancelled = () =>
      hop.abort(
        Date.now() >= deadline - DEADLINE_SLACK_MS
          ? new GrpcDeadlineError(`handler of ${call.request.To ?? "?"}`, Math.round(deadline - receivedAt), deadline)
          : new GrpcCallError(grpcStatus.CANCELLED, "CANCELLED", "hop cancelled by the caller"),
      );
    const onStopping = () => hop.abort(this.#stopping.signal.reason);
    call.once("cancelled", onCancelled);
    if (this.#stopping.signal.aborted) onStopping();
    else this.#stopping.signal.addEventListener("abort", onStopping, { once: true });

    const msg = msgFromRequest(call.request, depthFromMetadata(call.metadata));
    this.#log.debug({ to: msg.to, from: msg.from, edgeId: msg.edgeId, bytes: (msg.data as Uint8Array).byteLength, depth: msg.depth }, "grpc hop received");
    const settle = () => {
      call.removeListener("cancelled", onCancelled);
      this.#stopping.signal.removeEventListener("abort", onStopping);
    };
    void this.#admission.admit(msg.to, hop.signal).then((admission) => {
      if (!admission.admitted) {
        settle();
        if (admission.refusal) this.#log.debug({ to: msg.to, err: admission.refusal.message }, "grpc hop refused");
        return this.#fail(callback, admission.refusal ?? abortError(hop.signal), !admission.refusal);
      }
      let pending: Promise<Result>;
      try {
        pending = context.with(extractTrace(call.metadata), () => this.#handler(msg, hop.signal));
      } catch (err) {
        pending = Promise.resolve(fail(err));
      }
      return pending
        .catch((err: unknown) => fail(err))
        .then((result) => {
          admission.release();
          settle();
          // As Go: a hop whose context ended (caller gone, server stopping) answers with that error.
          if (hop.signal.aborted) return this.#fail(callback, abortError(hop.signal), true);
          const reply = replyFromResult(result);
          if ("data" in reply) {
            // An empty Data is left out, so the response bytes equal Go's (proto3 omits defaults).
            callback(null, reply.data.byteLength === 0 ? {} : { Data: reply.data });
            return;
          }
          this.#fail(callback, reply.error, false);
        });
    });
  };

  /**
   * Answers the call with `err`: status CANCELLED when the hop's context ended (`cancelled`), else
   * the handler-error status with its `x-error-code` and, for a refusal of this server, `x-refused`.
   */
  #fail(callback: sendUnaryData<Partial<MessageResponseWire>>, err: Error, cancelled: boolean): void {
    const s = cancelled ? { code: grpcStatus.CANCELLED, details: err.message, errorCode: undefined, refused: false } : errorStatus(err);
    const trailer = new Metadata();
    if (s.errorCode !== undefined) trailer.set(ERROR_CODE_METADATA, s.errorCode);
    if (s.refused) trailer.set(REFUSED_METADATA, REFUSED_FLAG);
    this.#log.debug({ err: s.details, code: s.errorCode, refused: s.refused }, "grpc hop failed");
    callback(Object.assign(new Error(s.details), { code: s.code, details: s.details, metadata: trailer }) as ServerErrorResponse);
  }
}

function abortError(signal: AbortSignal): Error {
  return signal.reason instanceof Error ? signal.reason : new GrpcCallError(grpcStatus.CANCELLED, "CANCELLED", "hop cancelled");
}
