/**
 * The console's record of hops: the last {@link HOP_HISTORY} hops in a ring, numbered, so a page
 * that connects (or reconnects with `Last-Event-ID`) gets what it missed, and memory stays flat
 * however long the flow runs. Each hop's texts are already redacted and cut to
 * {@link HOP_TEXT_CHARS} characters by the hop watch (src/local/hop-watch.ts), and an error
 * message is cut the same way here, so one entry holds at most three such texts: the ring's worst
 * case is about `HOP_HISTORY × 3 × HOP_TEXT_CHARS × 2` bytes (UTF-16) ≈ 12 MiB, a few hundred KiB
 * for ordinary payloads.
 */
import { withoutNodePrefix } from "../local/failure-log.ts";
import { HOP_TEXT_CHARS, type HopRecord } from "../local/hop-watch.ts";
import { errorCode } from "../core/errors.ts";

/** Longest payload, result or error text kept per hop, characters (src/local/hop-watch.ts). */
export { HOP_TEXT_CHARS };

/** Hops kept (Node-RED's debug sidebar keeps 100 messages; a stream of every hop needs more). */
export const HOP_HISTORY = 500;

/** One hop as the console's API and page see it. */
export interface HopEvent {
  /** Sequence number, from 1, in the order hops ended (the SSE event id). */
  seq: number;
  /** When the hop was delivered, ms since the epoch. */
  at: number;
  /** Receiving node and port. */
  node: string;
  port: string;
  /** Sender: `node:port`, `"signal"` (a send from outside) or `""` (the runtime). */
  from: string;
  /** Edge id, `""` for direct sends. */
  edge: string;
  /** Redacted JSON of the port data as the node received it; absent when the hop failed before. */
  data?: string;
  /** `ok` (with {@link value}), `empty` or `fail` (with {@link error}). */
  result: "ok" | "empty" | "fail";
  /** Redacted JSON of the handler's result value. */
  value?: string;
  /** Error message of a failed hop (without a leading `node <node> port <port>: `). */
  error?: string;
  /** Error code of a failed hop, when it has one. */
  code?: string;
  /** Mapping expressions that failed on this payload. */
  expressionErrors?: string[];
  /** Duration, ms (3 decimals). */
  ms: number;
}

/** Which hops a view wants: by node (into it or sent by it) and by edge id. */
export interface HopFilter {
  node?: string;
  edge?: string;
}

/** True when `e` passes `filter`. */
export function matches(e: HopEvent, filter: HopFilter): boolean {
  if (filter.edge && e.edge !== filter.edge) return false;
  if (filter.node && e.node !== filter.node && !e.from.startsWith(`${filter.node}:`)) return false;
  return true;
}

/** The error's code: a wire code (`x-error-code`) first, else its own `code` (TinyError, Node errors). */
export function codeOf(err: Error): string | undefined {
  const own = (err as { code?: unknown }).code;
  return errorCode(err) ?? (typeof own === "string" && own !== "" ? own : undefined);
}

function cut(text: string): string {
  return text.length > HOP_TEXT_CHARS ? `${text.slice(0, HOP_TEXT_CHARS)}…` : text;
}

/** The {@link HopEvent} of hop record `r` numbered `seq`. */
export function hopEvent(r: HopRecord, seq: number): HopEvent {
  const e: HopEvent = {
    seq,
    at: r.startedAt,
    node: r.node,
    port: r.port,
    from: r.from,
    edge: r.edgeId,
    result: "empty",
    ms: Math.round(r.durationMs * 1000) / 1000,
  };
  if (r.data !== undefined) e.data = r.data;
  if (r.error) {
    e.result = "fail";
    // The event names node and port already: `node <name> port <port>: ` would only repeat them.
    e.error = cut(withoutNodePrefix(r.error.message || r.error.name || "error", r.node, r.port));
    const code = codeOf(r.error);
    if (code) e.code = code;
  } else if (r.result?.kind === "ok") {
    e.result = "ok";
    e.value = r.result.value;
  }
  if (r.expressionErrors.length) e.expressionErrors = r.expressionErrors.slice(0, 8).map(cut);
  return e;
}

/** The last error a node's hops ended with. */
export interface LastError {
  port: string;
  from: string;
  message: string;
  at: number;
}

/** The last {@link HOP_HISTORY} hops, and each node's last hop error (see the module comment). */
export class HopHistory {
  readonly #ring: (HopEvent | undefined)[];
  #next = 0;
  #seq = 0;
  readonly #listeners = new Set<(e: HopEvent) => void>();
  readonly #lastErrors = new Map<string, LastError>();

  /** @param capacity hops kept (default {@link HOP_HISTORY}). */
  constructor(readonly capacity = HOP_HISTORY) {
    this.#ring = new Array<HopEvent | undefined>(capacity);
  }

  /** Sequence number of the newest hop (0 before the first). */
  get seq(): number {
    return this.#seq;
  }

  /** Records hop `r` and tells the listeners. */
  add(r: HopRecord): HopEvent {
    const e = hopEvent(r, ++this.#seq);
    this.#ring[this.#next] = e;
    this.#next = (this.#next + 1) % this.capacity;
    if (e.result === "fail" && e.code !== "CANCELLED" && e.code !== "NODE_STOPPED")
      this.#lastErrors.set(e.node, { port: e.port, from: e.from, message: e.error!, at: e.at });
    for (const l of this.#listeners) l(e);
    return e;
  }

  /** The kept hops after sequence number `after` that pass `filter`, oldest first, at most `limit` (the newest ones). */
  list(filter: HopFilter = {}, after = 0, limit = this.capacity): HopEvent[] {
    const out: HopEvent[] = [];
    for (let i = 0; i < this.capacity; i++) {
      const e = this.#ring[(this.#next + i) % this.capacity];
      if (e && e.seq > after && matches(e, filter)) out.push(e);
    }
    return out.length > limit ? out.slice(out.length - limit) : out;
  }

  /** Sequence number of the oldest hop still kept (`seq + 1` when none). */
  oldest(): number {
    const e = this.#ring[this.#next] ?? this.#ring[0];
    return e ? e.seq : this.#seq + 1;
  }

  /** The last error of node `name`'s hops, if any (until {@link forget}). */
  lastError(name: string): LastError | undefined {
    return this.#lastErrors.get(name);
  }

  /** Forgets node `name`'s last error (the node is gone, or its spec changed). */
  forget(name: string): void {
    this.#lastErrors.delete(name);
  }

  /** Calls `listener` for every hop added from now on, until the returned function is called. */
  subscribe(listener: (e: HopEvent) => void): () => void {
    this.#listeners.add(listener);
    return () => void this.#listeners.delete(listener);
  }
}
