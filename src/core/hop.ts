/**
 * The hop message and the transport contract. A transport hides which wire runs (in-process, NATS
 * core, JetStream, gRPC): it delivers a {@link Msg} to the module that serves `msg.to` and resolves
 * to that module's {@link Result}.
 */
import type { TSchema } from "typebox";
import type { Result } from "./result.ts";
import type { ReplyInbox } from "./durable/replies.ts";

/** `From` value marking a raw external payload (dashboard, MCP `send_signal`); runtime-spec §2.1, §13.3. */
export const FROM_SIGNAL = "signal";

/**
 * Deadline of a remote hop whose edge sets no `retryPolicy.timeoutMs`, ms: Go's request timeout
 * when the context has no deadline (runtime-spec §4.3, §13.1: 5 min). The gRPC sender puts it on the
 * call (docs/compatibility.md `## gRPC`: Go's gRPC client sends none).
 */
export const DEFAULT_REMOTE_HOP_TIMEOUT_MS = 5 * 60_000;

/**
 * One hop (runtime-spec §2.1 `Msg`). Never serialized as a whole: wire transports map the fields to
 * headers/proto fields.
 */
export interface Msg {
  /** Edge id the hop travels on (`""` for direct `node:port` sends and system messages). */
  edgeId: string;
  /** `"<node>:<port>"` of the sender, `"signal"` for raw external payloads, or `""`. */
  from: string;
  /** `"<node>:<port>"` of the receiver (a bare component name in RPC mode). */
  to: string;
  /**
   * The payload: a live JS value for in-process hops; a `Uint8Array` (or string) of JSON when the hop
   * arrived over a wire. The runner decodes bytes lazily, only when the target needs them.
   */
  data: unknown;
  /** Hop count from the chain's origin; guarded at 256 (runtime-spec §3.2). */
  depth: number;
  /** `""` (classic) or `"rpc"` (MCP agent tools, runtime-spec §3.4). */
  mode?: "" | "rpc";
  /** Durable run id (runtime-spec §1.7); absent for classic hops. */
  runId?: string;
  /** Durable step key (runtime-spec §1.7). */
  stepKey?: string;
  /** Durable reply subject (runtime-spec §1.7). */
  replySubject?: string;
  /** Durable reply target `"node:port"` (runtime-spec §1.7). */
  replyTarget?: string;
  /** Durable reply deadline, unix ms. */
  replyDeadlineUnixMs?: number;
  /**
   * When the sending edge's `retryPolicy.timeoutMs` runs out, unix ms (set by the runner; absent =
   * no edge deadline). Wire transports send it as the call deadline (gRPC `grpc-timeout`); a hop
   * without one gets {@link DEFAULT_REMOTE_HOP_TIMEOUT_MS} on the wire.
   */
  deadlineUnixMs?: number;
  /** Shape of the reply the sender expects (source port `ResponseConfiguration`); in-process only. */
  responseSchema?: TSchema;
}

/**
 * Delivers a hop and resolves to the receiver's result. Implementations never reject for a failed
 * hop: failures resolve as `fail(...)` results; `signal` aborting cancels the in-flight hop.
 */
export interface Transport {
  /** Sends `msg`; resolves to the downstream Result (runtime-spec §2.4, §3.5). */
  send(msg: Msg, signal?: AbortSignal): Promise<Result>;
}

/**
 * A transport that carries durable runs across its wire (JetStream, runtime-spec §4.4): hops with a
 * run id travel as durable, fire-and-forget publishes that any replica may pick up, so the scheduler
 * sends even same-module durable hops through it (runtime-spec §3.5), and a run's reply hop goes
 * to the origin's reply subject. Transports without this (core NATS, gRPC, in-process) drop or
 * ignore the run fields, as Go's do.
 */
export interface RunCarrier {
  readonly carriesRuns: true;
  /** Opens a reply subject on this process for a run begun with a reply (Go `BeginRunWithReply`). */
  openReply(timeoutMs: number): ReplyInbox;
}

/** True when `t` carries durable runs ({@link RunCarrier}). */
export function carriesRuns(t: Transport | undefined): t is Transport & RunCarrier {
  return (t as Partial<RunCarrier> | undefined)?.carriesRuns === true;
}

/** A receiver of hops (what a transport calls on the serving side): typically `Scheduler.handle`. */
export type MsgHandler = (msg: Msg, signal?: AbortSignal) => Promise<Result>;

/** Parsed addresses by address string: a flow uses a small, fixed set of them (its edges). */
const parsedAddresses = new Map<string, readonly [node: string, port: string]>();
const modules = new Map<string, string | undefined>();
/** Bound on each memo table; it is cleared when full (addresses are cheap to parse again). */
const MEMO_MAX = 4096;

/**
 * Splits `"node:port"` (runtime-spec §2.1): >2 parts → `["",""]`; 1 part → `["", whole]`.
 * Memoized: every hop parses its address, and the array is shared, so it is read-only.
 */
export function parsePortAddress(address: string): readonly [node: string, port: string] {
  let parsed = parsedAddresses.get(address);
  if (parsed !== undefined) return parsed;
  const i = address.indexOf(":");
  parsed = i < 0 ? ["", address] : address.indexOf(":", i + 1) >= 0 ? ["", ""] : [address.slice(0, i), address.slice(i + 1)];
  if (parsedAddresses.size >= MEMO_MAX) parsedAddresses.clear();
  parsedAddresses.set(address, parsed);
  return parsed;
}

/** Joins a node and a port into `"node:port"` (`""` when both are empty); runtime-spec §2.1. */
export function fullPortName(node: string, port: string): string {
  if (node === "" && port === "") return "";
  return `${node}:${port}`;
}

/**
 * The module part of a node name `<hash>.<module>.<component>-<sfx>` (runtime-spec §1.9
 * `ParseFullName`, §16 item 1): the second dot segment; `undefined` when there are fewer than 3.
 */
export function moduleOfNode(nodeName: string): string | undefined {
  const hit = modules.get(nodeName);
  if (hit !== undefined || modules.has(nodeName)) return hit;
  const parts = nodeName.split(".");
  const module = parts.length < 3 ? undefined : parts[1];
  if (modules.size >= MEMO_MAX) modules.clear();
  modules.set(nodeName, module);
  return module;
}

const utf8 = new TextEncoder();

/**
 * The JSON bytes of a hop payload, as every wire sends it: a `Uint8Array` is already JSON and goes
 * raw (it came off a wire); any other value is JSON-encoded (`undefined` → `null`, as Go marshals a
 * nil interface).
 * @throws TypeError when the value cannot be JSON-encoded (cycles, BigInt).
 */
export function payloadBytes(data: unknown): Uint8Array {
  if (data instanceof Uint8Array) return data;
  return utf8.encode(JSON.stringify(data) ?? "null");
}
