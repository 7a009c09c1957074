/**
 * Opens the wire the module runs on (runtime-spec §4.1, §16 item 16), from `selectTransport`:
 * - no `TINY_NATS_URL` → gRPC server on `--grpc-server-bind-address` + gRPC client pool;
 * - `TINY_NATS_URL` → core NATS (queue group = module); a failed first connect falls back to gRPC,
 *   as Go does — after retrying for `TINYHOST_NATS_CONNECT_WAIT_MS` when set (nats-connect-wait.ts);
 * - plus `TINY_NATS_TRANSPORT=jetstream` → JetStream (streams and the `TINY_EXEC` ledger must be
 *   created, else start-up fails) and the leader-only run reconciler (runtime-spec §3.6); the
 *   ledger is handed to the scheduler, which records durable steps in it. The business consumer's
 *   AckWait is Go's 30 s unless `TINYHOST_JETSTREAM_ACK_WAIT_MS` says otherwise (tests/ops: it
 *   bounds how long a hop held by a dead replica waits before another replica gets it).
 * Opening gives the sender (the scheduler needs it first); `serve` then starts receiving.
 * Incoming hops run at most `TINYHOST_MAX_CONCURRENT_HOPS` at once on every wire (the hop slots,
 * src/transport/slots.ts; a core NATS hop or gRPC call beyond them waits ≤
 * `TINYHOST_HOP_QUEUE_WAIT_MS` in a queue of as many, else gets the retryable `BUSY`;
 * docs/operations.md §10).
 *
 * Each wire's code loads only when that wire is opened: a NATS module never evaluates grpc-js and
 * protobufjs (~0.8 MB of bundled code), a core NATS or gRPC module never evaluates the JetStream and
 * KV clients — start-up time (bench/vs-go.ts `vs_go_start_ready_same_rule`).
 */
import type { NatsConnection } from "@nats-io/transport-node";
import type { Logger } from "../telemetry/log.ts";
import type { GrpcServer } from "../transport/grpc/index.ts";
import { connectNats } from "../transport/nats/connect.ts";
import { CoreNatsTransport } from "../transport/nats/core.ts";
import { selectTransport, type TransportSelection } from "../transport/select.ts";
import type { MsgHandler, Transport } from "../core/hop.ts";
import type { ModuleAddressBook } from "../k8s/controllers/index.ts";
import type { StepLedger } from "../core/durable/step-ledger.ts";
import { envInteger } from "./env-integer.ts";
import { connectWithWait, natsConnectWaitFromEnv } from "./nats-connect-wait.ts";
import { MAX_STREAM_REPLICAS } from "../transport/nats/names.ts";
import { DEFAULT_HOP_QUEUE_WAIT_MS, DEFAULT_MAX_CONCURRENT_HOPS, HopSlots } from "../transport/slots.ts";
import { messageOf } from "../core/errors.ts";

/** Env variable overriding the JetStream business consumer's AckWait, ms (default Go's 30 000). */
export const ENV_JETSTREAM_ACK_WAIT_MS = "TINYHOST_JETSTREAM_ACK_WAIT_MS";
/** Env variable: replicas of the JetStream streams and the `TINY_EXEC` bucket on a clustered broker (1–5; unset: as they are). */
export const ENV_NATS_REPLICAS = "TINYHOST_NATS_REPLICAS";
/** Env variable: incoming hops (NATS messages, gRPC calls) running at once per process (default {@link DEFAULT_MAX_CONCURRENT_HOPS}). */
export const ENV_MAX_CONCURRENT_HOPS = "TINYHOST_MAX_CONCURRENT_HOPS";
/** Env variable: longest wait of a core NATS hop or gRPC call for a slot, ms (default {@link DEFAULT_HOP_QUEUE_WAIT_MS}; 0 = refuse at once). */
export const ENV_HOP_QUEUE_WAIT_MS = "TINYHOST_HOP_QUEUE_WAIT_MS";

/** Options of {@link openTransport}. */
export interface OpenTransportOptions {
  /** Sanitized module name (subjects, queue group, consumer names). */
  module: string;
  /**
   * Further sanitized module names served (`run --also`, src/operator/served.ts): on NATS each gets
   * its own subscriptions / JetStream consumers on the one connection, sharing the hop slots; the
   * gRPC server serves every name at one address.
   */
  also?: readonly string[];
  /** Pod name (`HOSTNAME`): JetStream's per-pod system consumer. */
  pod: string;
  /** gRPC listen address (`--grpc-server-bind-address`), Go syntax. */
  grpcAddress: string;
  /** Environment (`TINY_NATS_URL`, `TINY_NATS_TRANSPORT`, `SELF_SERVICE_HOST`). */
  env: Record<string, string | undefined>;
  /** Live leader flag (system messages, run reconciler). */
  isLeader: () => boolean;
  log: Logger;
}

/** An opened wire. */
export interface ModuleTransport {
  /** Which wire runs (after any fallback). */
  readonly kind: TransportSelection["kind"];
  /** Sender for hops to other modules. */
  readonly remote: Transport;
  /** Other modules' gRPC addresses (gRPC only). */
  readonly addresses: ModuleAddressBook | undefined;
  /** The durable step ledger the wire shares (JetStream KV `TINY_EXEC`); undefined → node metadata. */
  readonly ledger?: StepLedger;
  /** Starts receiving hops. Call once. @throws when the gRPC bind or a JetStream consumer fails. */
  serve(handler: MsgHandler): Promise<void>;
  /**
   * Stops taking new work, first thing on shutdown: core NATS leaves the queue group (peers get the
   * next requests), JetStream sends no new pull and `nak`s what its last pull still delivers.
   * gRPC answers calls still queued for a slot, and every later call, with the retryable
   * `SHUTTING_DOWN` (the listener stays open until `stopServing`). In-flight hops keep running.
   * Idempotent.
   */
  stopReceiving(): Promise<void>;
  /** The bound on concurrent incoming hops (/metrics `tinyhost_hop_slots_*`); set by every wire {@link openTransport} opens. */
  readonly slots?: HopSlots;
  /** JetStream only: each served name's business consumer backlog and the redeliveries so far (/metrics). */
  readonly jetstream?: () => { consumers: { module: string; pending: number; ackPending: number }[]; redeliveries: number };
  /**
   * `TinyModule.status.addr` of served module `module` (default the `--name` one): the advertised
   * gRPC address, or `nats://tinymodule.<module>.msg`.
   */
  address(module?: string): string;
  /** True when connected (NATS) or listening (gRPC); else the reason. */
  ready(): true | string;
  /**
   * Ends the serving half after {@link stopReceiving}: NATS stops its subscriptions/consumers (and
   * the run reconciler), in-flight hops get up to `graceMs`, then their signal aborts; gRPC stops its
   * server. Sending still works — a flow still running at shutdown (an HTTP request) can
   * reach other modules until {@link close}. Idempotent: later calls join the first.
   */
  stopServing(graceMs: number): Promise<void>;
  /** {@link stopServing}, then closes the connections (the sending half too). Idempotent: later calls join the first. */
  close(graceMs: number): Promise<void>;
  /** Rejects when the wire dies for good (a closed NATS connection); never resolves otherwise. */
  readonly failed: Promise<never>;
}

/**
 * Opens the selected wire.
 * @throws the JetStream error when streams or the ledger cannot be set up (fatal as in Go).
 */
export async function openTransport(o: OpenTransportOptions): Promise<ModuleTransport> {
  const t = await openSelected(o);
  let serving: Promise<void> | undefined;
  let closing: Promise<void> | undefined;
  const stopServing = (graceMs: number) => (serving ??= t.stopServing(graceMs));
  return { ...t, stopServing, close: (graceMs) => (closing ??= stopServing(graceMs).then(() => t.close(graceMs))) };
}

async function openSelected(o: OpenTransportOptions): Promise<ModuleTransport> {
  const selection = selectTransport(o.env);
  if (selection.kind === "grpc") return await openGrpc(o);
  const waitMs = natsConnectWaitFromEnv(o.env);
  let nc: NatsConnection;
  try {
    nc = await connectWithWait({ connect: () => connectNats(selection.natsUrl), waitMs, log: o.log });
  } catch (err) {
    o.log.error({ err: messageOf(err), url: redactUrl(selection.natsUrl) }, "nats connect failed; falling back to gRPC");
    return await openGrpc(o);
  }
  return selection.kind === "jetstream" ? openJetStream(o, nc) : openCore(o, nc);
}

async function openGrpc(o: OpenTransportOptions): Promise<ModuleTransport> {
  const { GrpcServer, GrpcTransport } = await import("../transport/grpc/index.ts");
  const client = new GrpcTransport({ log: o.log.child({ component: "grpc-client" }) });
  const slots = slotsFromEnv(o.env);
  const queueWaitMs = queueWaitFromEnv(o.env);
  let server: GrpcServer | undefined;
  let stopped = false;
  return {
    kind: "grpc",
    remote: client,
    addresses: client,
    slots,
    async serve(handler) {
      server = new GrpcServer({ handler, address: o.grpcAddress, env: o.env, slots, queueWaitMs, log: o.log.child({ component: "grpc-server" }) });
      await server.start();
    },
    stopReceiving: async () => server?.stopReceiving(),
    address: () => server?.advertisedAddress ?? "",
    ready: () => (stopped ? "grpc server stopped" : server && server.port > 0 ? true : "grpc server not listening yet"),
    async stopServing(graceMs) {
      stopped = true;
      await server?.stop(graceMs);
    },
    async close() {
      client.close();
    },
    failed: new Promise<never>(() => {}),
  };
}

/** Follows the connection's status events so readiness can say "disconnected". */
class NatsHealth {
  #connected = true;
  #closing = false;
  readonly failed: Promise<never>;

  constructor(
    readonly nc: NatsConnection,
    log: Logger,
  ) {
    void (async () => {
      for await (const s of nc.status()) {
        if (s.type === "disconnect") this.#connected = false;
        else if (s.type === "reconnect") this.#connected = true;
        else continue;
        log.warn({ status: s.type }, "nats connection status");
      }
    })().catch(() => {});
    // A connection that closes while we did not ask for it is a dead module (runtime-spec §9).
    this.failed = nc.closed().then((err) => {
      if (this.#closing) return new Promise<never>(() => {});
      throw new Error(`nats connection closed${err ? `: ${err.message}` : ""}`);
    });
    this.failed.catch(() => {});
  }

  ready = (): true | string => (this.nc.isClosed() ? "nats connection closed" : this.#connected ? true : "nats disconnected (reconnecting)");

  /** Drains the connection; its close is then expected. */
  async close(): Promise<void> {
    this.#closing = true;
    await this.nc.drain().catch(() => this.nc.close());
  }
}

function openCore(o: OpenTransportOptions, nc: NatsConnection): ModuleTransport {
  const slots = slotsFromEnv(o.env);
  const queueWaitMs = queueWaitFromEnv(o.env);
  // One transport per served name on the one connection; the first sends for all of them.
  const served = [o.module, ...(o.also ?? [])].map(
    (module) => new CoreNatsTransport({ nc, module, slots, queueWaitMs, log: o.log.child({ component: "nats-core", ...(o.also?.length ? { module } : {}) }) }),
  );
  const transport = served[0]!;
  const health = new NatsHealth(nc, o.log);
  return {
    kind: "core",
    remote: transport,
    addresses: undefined,
    slots,
    async serve(handler) {
      for (const t of served) t.serve({ handler, isLeader: o.isLeader });
    },
    stopReceiving: async () => void (await Promise.all(served.map((t) => t.stopReceiving()))),
    address: (module = o.module) => `nats://tinymodule.${module}.msg`,
    ready: health.ready,
    stopServing: async (graceMs) => void (await Promise.all(served.map((t) => t.close(graceMs)))), // the subscriptions; the connection stays for sends
    close: () => health.close(),
    failed: health.failed,
  };
}

async function openJetStream(o: OpenTransportOptions, nc: NatsConnection): Promise<ModuleTransport> {
  const [{ JetStreamTransport }, { RunLedger }, { RunReconciler }] = await Promise.all([
    import("../transport/nats/jetstream.ts"),
    import("../runtime/durable/run-ledger.ts"),
    import("../runtime/durable/reconciler.ts"),
  ]);
  const health = new NatsHealth(nc, o.log);
  const replicas = natsReplicasFromEnv(o.env);
  const ledger = await RunLedger.open(nc, undefined, replicas);
  const ackWaitMs = ackWaitFromEnv(o.env);
  const slots = slotsFromEnv(o.env);
  // One transport (business and system consumers) per served name on the one connection; the first sends for all of them.
  const served = await Promise.all(
    [o.module, ...(o.also ?? [])].map((module) =>
      JetStreamTransport.create({
        nc,
        module,
        pod: o.pod,
        slots,
        ...(ackWaitMs ? { ackWaitMs } : {}),
        ...(replicas ? { replicas } : {}),
        log: o.log.child({ component: "nats-jetstream", ...(o.also?.length ? { module } : {}) }),
      }),
    ),
  );
  const transport = served[0]!;
  const reconciler = new RunReconciler({
    ledger,
    republish: (msg) => transport.send(msg),
    isLeader: o.isLeader,
    log: o.log.child({ component: "run-reconciler" }),
  });
  return {
    kind: "jetstream",
    remote: transport,
    addresses: undefined,
    ledger,
    slots,
    async serve(handler) {
      for (const t of served) await t.serve({ handler, isLeader: o.isLeader });
      reconciler.start();
    },
    stopReceiving: async () => void (await Promise.all(served.map((t) => t.stopReceiving()))),
    address: (module = o.module) => `nats://tinymodule.${module}.msg`,
    jetstream: () => ({
      consumers: served.map((t) => ({ module: t.module, ...t.backlog })),
      redeliveries: served.reduce((n, t) => n + t.redeliveries, 0),
    }),
    ready: health.ready,
    async stopServing(graceMs) {
      await reconciler.stop();
      await Promise.all(served.map((t) => t.close(graceMs))); // the consumers; the connection stays for sends
    },
    close: () => health.close(),
    failed: health.failed,
  };
}

/**
 * `TINYHOST_JETSTREAM_ACK_WAIT_MS`, or undefined when unset.
 * @throws Error naming the variable and value when it is not an integer ≥ 1000.
 */
function ackWaitFromEnv(env: Record<string, string | undefined>): number | undefined {
  return envInteger(env, ENV_JETSTREAM_ACK_WAIT_MS, 1000, "number of ms ");
}

/**
 * Replicas of `TINYHOST_NATS_REPLICAS` (docs/operations.md "A clustered broker"), or undefined when unset.
 * @throws Error naming the variable and value when it is not a decimal integer from 1 to 5 (nats-server's limit).
 */
export function natsReplicasFromEnv(env: Record<string, string | undefined>): number | undefined {
  const n = envInteger(env, ENV_NATS_REPLICAS, 1);
  if (n !== undefined && n > MAX_STREAM_REPLICAS)
    throw new Error(`${ENV_NATS_REPLICAS} = ${JSON.stringify(env[ENV_NATS_REPLICAS])} must be at most ${MAX_STREAM_REPLICAS} (nats-server's limit)`);
  return n;
}

/**
 * The hop slots of `TINYHOST_MAX_CONCURRENT_HOPS` (queue as long as the limit).
 * @throws Error naming the variable and value when it is not a decimal integer ≥ 1 (docs/operations.md §10).
 */
export function slotsFromEnv(env: Record<string, string | undefined>): HopSlots {
  const limit = envInteger(env, ENV_MAX_CONCURRENT_HOPS, 1) ?? DEFAULT_MAX_CONCURRENT_HOPS;
  return new HopSlots({ limit });
}

/**
 * `TINYHOST_HOP_QUEUE_WAIT_MS`, else {@link DEFAULT_HOP_QUEUE_WAIT_MS}.
 * @throws Error naming the variable and value when it is not an integer ≥ 0.
 */
function queueWaitFromEnv(env: Record<string, string | undefined>): number {
  return envInteger(env, ENV_HOP_QUEUE_WAIT_MS, 0) ?? DEFAULT_HOP_QUEUE_WAIT_MS;
}

/** The URL without credentials, for logs. */
function redactUrl(url: string): string {
  return url.replace(/\/\/[^@/]*@/g, "//***@");
}
