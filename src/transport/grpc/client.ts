/**
 * The sending side of the gRPC fallback transport (runtime-spec §4.7 client pool): resolves the
 * target module's address in the {@link AddressPool}, calls `/module.ModuleService/Message` on the
 * connection shared per address, and turns the reply into a {@link Result}.
 */
import { Client, credentials, Metadata, status as grpcStatus, type ClientUnaryCall, type ServiceError } from "@grpc/grpc-js";
import { isTimeout } from "../../core/errors.ts";
import { fail, type Result } from "../../core/result.ts";
import { logger, type Logger } from "../../telemetry/log.ts";
import { DEFAULT_REMOTE_HOP_TIMEOUT_MS, moduleOfNode, parsePortAddress, type Msg, type Transport } from "../../core/hop.ts";
import { AddressPool, type ConnectionLease } from "./address-pool.ts";
import { decodeCallError, DEPTH_METADATA, requestFromMsg, resultFromReply } from "./codec.ts";
import { GrpcCallError, GrpcDeadlineError, GrpcRouteError } from "./errors.ts";
import { injectTrace } from "./metadata.ts";
import { MESSAGE_METHOD, moduleServiceDefinition, type MessageRequestWire, type MessageResponseWire } from "./proto.ts";
import { KEEPALIVE_TIME_MS, KEEPALIVE_TIMEOUT_MS } from "./server.ts";

/** Options of {@link GrpcTransport}. */
export interface GrpcTransportOptions {
  /** Dial a module's address as soon as it is registered (Go pre-warms). Default true. */
  prewarm?: boolean;
  /** Logger; default the root logger's `grpc-client` child. */
  log?: Logger;
}

/**
 * Sends hops to other modules over gRPC. Register addresses as TinyModules appear
 * (runtime-spec §5.2); {@link send} never rejects.
 */
export class GrpcTransport implements Transport {
  /** The module → address table; exposed so the TinyModule controller can feed it. */
  readonly pool: AddressPool<Client>;
  readonly #log: Logger;

  constructor(options: GrpcTransportOptions = {}) {
    this.#log = options.log ?? logger.child({ component: "grpc-client" });
    this.pool = new AddressPool<Client>((address) => dial(address), { prewarm: options.prewarm ?? true });
  }

  /** Points `module` at `address` (`"host:port"`, a TinyModule's `status.addr`). See {@link AddressPool.register}. */
  register(module: string, address: string): void {
    this.#log.debug({ module, address }, "address pool: register");
    this.pool.register(module, address);
  }

  /** Forgets `module` (its TinyModule is gone). See {@link AddressPool.deregister}. */
  deregister(module: string): void {
    this.#log.debug({ module }, "address pool: deregister");
    this.pool.deregister(module);
  }

  /**
   * Delivers `msg` to the module named by the second dot segment of `msg.to`'s node and resolves
   * to its reply (runtime-spec §4.7): empty `Data` → `empty`; else bytes (or the parsed JSON when
   * the sending port declared a response schema). Failures resolve as `fail(...)`:
   * {@link GrpcRouteError}, `ModuleAddressUnknownError`, `GrpcEncodeError`, the remote handler's
   * error (`RemoteHandlerError` or `CodedError`), {@link GrpcDeadlineError} when the deadline passes,
   * or {@link GrpcCallError} (`GRPC_CANCELLED` when `signal` aborts — the call is cancelled on the
   * wire too; a signal aborted by a timeout, such as the edge's, reads as the deadline error).
   *
   * Deadline: `msg.deadlineUnixMs` (the edge's `retryPolicy.timeoutMs`), else
   * {@link DEFAULT_REMOTE_HOP_TIMEOUT_MS} from now; it goes on the wire as `grpc-timeout`, so the
   * server's handler is bounded by it too (Go's gRPC client sends the caller context's deadline and
   * none without one: docs/compatibility.md `## gRPC`).
   */
  send(msg: Msg, signal?: AbortSignal): Promise<Result> {
    const module = moduleOfNode(parsePortAddress(msg.to)[0]);
    if (!module) return Promise.resolve(fail(new GrpcRouteError(msg.to)));
    const deadline = msg.deadlineUnixMs ?? Date.now() + DEFAULT_REMOTE_HOP_TIMEOUT_MS;
    const timeoutMs = msg.deadlineUnixMs === undefined ? DEFAULT_REMOTE_HOP_TIMEOUT_MS : Math.max(0, Math.round(deadline - Date.now()));
    if (signal?.aborted) return Promise.resolve(fail(aborted(module, signal, timeoutMs, deadline)));
    // A deadline already behind us: grpc-js would fail the call at once too, without dialling.
    if (deadline <= Date.now()) return Promise.resolve(fail(new GrpcDeadlineError(`module ${module}`, 0, deadline)));
    let req: Partial<MessageRequestWire>;
    let lease: ConnectionLease<Client>;
    try {
      req = requestFromMsg(msg);
      lease = this.pool.acquire(module);
    } catch (err) {
      return Promise.resolve(fail(err));
    }
    const md = new Metadata();
    if (msg.depth > 0) md.set(DEPTH_METADATA, String(msg.depth));
    injectTrace(md);
    const method = moduleServiceDefinition().Message!;
    return new Promise<Result>((resolve) => {
      let call: ClientUnaryCall | undefined;
      const onAbort = () => call?.cancel();
      const done = (r: Result) => {
        signal?.removeEventListener("abort", onAbort);
        lease.release();
        resolve(r);
      };
      try {
        call = lease.conn.makeUnaryRequest<Partial<MessageRequestWire>, Partial<MessageResponseWire>>(
          MESSAGE_METHOD,
          method.requestSerialize,
          method.responseDeserialize,
          req,
          md,
          { deadline },
          (err: ServiceError | null, res?: Partial<MessageResponseWire>) => {
            if (err) {
              if (err.code === grpcStatus.CANCELLED && signal?.aborted) return done(fail(aborted(module, signal, timeoutMs, deadline)));
              this.#log.debug({ to: msg.to, address: lease.address, code: err.code, err: err.details }, "grpc hop failed");
              if (err.code === grpcStatus.DEADLINE_EXCEEDED)
                return done(fail(new GrpcDeadlineError(`module ${module} (${lease.address})`, timeoutMs, deadline, { cause: err })));
              return done(fail(decodeCallError(err, module, lease.address)));
            }
            done(resultFromReply(res?.Data, msg));
          },
        );
      } catch (err) {
        return done(fail(err));
      }
      signal?.addEventListener("abort", onAbort, { once: true });
    });
  }

  /** Closes every connection (shutdown); later sends fail with `ModuleAddressUnknownError`. */
  close(): void {
    this.pool.close();
  }
}

/** One insecure connection with Go's client keepalive (10 s / 3 s, permit without stream). */
function dial(address: string): Client {
  const c = new Client(address, credentials.createInsecure(), {
    "grpc.keepalive_time_ms": KEEPALIVE_TIME_MS,
    "grpc.keepalive_timeout_ms": KEEPALIVE_TIMEOUT_MS,
    "grpc.keepalive_permit_without_calls": 1,
  });
  // Start connecting now (pre-warm); the first call would otherwise wait for the handshake.
  c.getChannel().getConnectivityState(true);
  return c;
}

/**
 * The error of a call its caller's signal ended: a timeout reason (the edge's `EDGE_TIMEOUT`, an
 * enclosing hop's deadline, `AbortSignal.timeout`) is a deadline, as Go's context reports
 * `DeadlineExceeded`; any other reason is a cancel.
 */
function aborted(module: string, signal: AbortSignal, timeoutMs: number, deadline: number): GrpcCallError {
  if (isTimeout(signal.reason)) return new GrpcDeadlineError(`module ${module}`, timeoutMs, deadline, { cause: signal.reason });
  const why = signal.reason instanceof Error ? signal.reason.message : "aborted";
  return new GrpcCallError(grpcStatus.CANCELLED, "CANCELLED", `grpc call to module ${module} cancelled: ${why}`, { cause: signal.reason });
}
