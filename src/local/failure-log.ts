/**
 * Hop failures on local mode's terminal. In a cluster a failed hop is seen on the caller's edge in
 * the dashboard (runtime-spec §2.8 spans); on a laptop the developer reads the terminal, so local
 * mode prints each failure there, once, at the node and port where it happened:
 *
 * - a failure travels back up the chain as the same Error object (every caller's handler returns
 *   its downstream Result, runtime-spec §2.4), and the innermost hop ends first, so the first node
 *   to report an error is where it happened; the callers' reports of that object (or of an error
 *   whose `cause` chain holds it) are dropped;
 * - repeats are rate-limited per node and port ({@link RepeatLimiter});
 * - component log lines that only repeat a failure already printed (`signal: downstream failed:
 *   <the same text>`) are dropped: the message text was seen within the window.
 * Cancellations (a client that went away, a node stopped by a reload) are not failures.
 */
import { FROM_SIGNAL } from "../core/hop.ts";
import { DEFAULT_REPEAT_WINDOW_MS, RepeatLimiter, timerSchedule, type Schedule } from "./repeat-limiter.ts";

/** Error codes that mean "stopped on purpose", not "failed" (runner/errors.ts HopCancelledError, NodeStoppedError). */
const NOT_FAILURES: ReadonlySet<unknown> = new Set(["CANCELLED", "NODE_STOPPED"]);

/** Most remembered failure texts (for dropping log lines that repeat them); older ones are pruned. */
const RECENT_MAX = 1000;

/** True when `err` is a cancellation or a node stop rather than a failure. */
export function isCancellation(err: Error): boolean {
  return NOT_FAILURES.has((err as { code?: unknown }).code) || err.name === "AbortError";
}

/** `message` without a leading `node <node> port <port>: ` or `node <node>: ` (the line names them already). */
export function withoutNodePrefix(message: string, node: string, port: string): string {
  for (const prefix of [`node ${node} port ${port}: `, `node ${node}: `]) if (message.startsWith(prefix)) return message.slice(prefix.length);
  return message;
}

/** Options of {@link FailureLog}. */
export interface FailureLogOptions {
  /** Rate-limit window, ms (default {@link DEFAULT_REPEAT_WINDOW_MS}). */
  windowMs?: number;
  /** Timer for the window (default `setTimeout`, unref'd). */
  schedule?: Schedule;
  /** Clock, ms (default `Date.now`). */
  now?: () => number;
}

/** The terminal's record of hop failures, emit notes and component warnings. */
export class FailureLog {
  readonly #limiter: RepeatLimiter;
  readonly #claimed = new WeakSet<Error>();
  readonly #recent = new Map<string, number>();
  readonly #notes = new Set<string>();
  readonly #windowMs: number;
  readonly #now: () => number;

  /** @param out receives each line. */
  constructor(
    readonly out: (line: string) => void,
    options: FailureLogOptions = {},
  ) {
    this.#windowMs = options.windowMs ?? DEFAULT_REPEAT_WINDOW_MS;
    this.#now = options.now ?? Date.now;
    this.#limiter = new RepeatLimiter(out, this.#windowMs, options.schedule ?? timerSchedule);
  }

  /**
   * Marks `err` as reported. False when it (or an error in its `cause` chain) was reported before:
   * the caller is further up the chain of the hop that failed.
   */
  claim(err: Error): boolean {
    this.#touch(err.message);
    for (let e: unknown = err, depth = 0; e instanceof Error && depth < 8; e = e.cause, depth++) {
      if (this.#claimed.has(e)) return false;
    }
    this.#claimed.add(err);
    return true;
  }

  /**
   * A hop into `node`'s `port` failed with `err`: printed unless a node further down already
   * reported it, or it is a cancellation. `from` is the sending `node:port` (named in the line when
   * it is a node address).
   */
  hop(node: string, port: string, from: string, err: Error): void {
    if (isCancellation(err) || !this.claim(err)) return;
    const via = from !== "" && from !== FROM_SIGNAL && from.includes(":") ? ` (from ${from})` : "";
    // PORT_CONFIG (src/runtime/runner/port-config.ts) repeats node, port and from: keep its cause.
    const text =
      (err as { code?: unknown }).code === "PORT_CONFIG" && err.cause instanceof Error
        ? `its configuration does not compile: ${err.cause.message}`
        : withoutNodePrefix(err.message, node, port);
    this.#limiter.line(`${node}\u0000${port}`, `error: node ${node} port ${port}${via}`, text);
  }

  /**
   * An emit of `node` on `port` failed with `err` before reaching any node (no route, an edge
   * timeout): printed unless already reported further down.
   */
  emit(node: string, port: string, err: Error): void {
    if (isCancellation(err) || !this.claim(err)) return;
    this.#limiter.line(`${node}\u0000${port}`, `error: node ${node} port ${port}`, withoutNodePrefix(err.message, node, port));
  }

  /**
   * An `{{expression}}` of the mapping into `node`'s `port` failed on a payload (the field became
   * null, runtime-spec §2.11; the hop went on): `message` names the expression and field.
   */
  expression(node: string, port: string, from: string, message: string): void {
    this.#touch(message);
    const via = from !== "" && from !== FROM_SIGNAL && from.includes(":") ? ` (from ${from})` : "";
    this.#limiter.line(`${node}\u0000${port}`, `error: node ${node} port ${port}${via}`, message);
  }

  /**
   * A warning or error a component (or the runtime) logged for `node`: printed as
   * `<level>: node <node>[ port <port>]: <text>`, rate-limited, and dropped when `err` is the
   * text of a failure printed within the window (the same event seen from a caller).
   */
  log(level: "warn" | "error", node: string, port: string, text: string, err?: string): void {
    if (err !== undefined && this.recentlyReported(err)) return;
    const where = node ? `node ${node}${port ? ` port ${port}` : ""}` : "tinyhost";
    this.#limiter.line(`${node}\u0000${port}\u0000log`, `${level === "warn" ? "warning" : "error"}: ${where}`, text);
  }

  /** Prints `note: <text>` the first time `node` + `port` ask for it (until {@link forget}). */
  note(node: string, port: string, text: string): void {
    const key = `${node}\u0000${port}`;
    if (this.#notes.has(key)) return;
    this.#notes.add(key);
    this.out(`note: ${text}`);
  }

  /** True when a note was printed for `node` + `port`. */
  noted(node: string, port: string): boolean {
    return this.#notes.has(`${node}\u0000${port}`);
  }

  /** Forgets the notes of `node` (its spec changed: a port may have gained edges, or lost them). */
  forget(node: string): void {
    for (const key of this.#notes) if (key.startsWith(`${node}\u0000`)) this.#notes.delete(key);
  }

  /** True when a failure with exactly this message was printed or counted within the window. */
  recentlyReported(message: string): boolean {
    const at = this.#recent.get(message);
    return at !== undefined && this.#now() - at <= this.#windowMs;
  }

  /** Prints pending repeat summaries (on stop). */
  flush(): void {
    this.#limiter.flush();
  }

  #touch(message: string): void {
    const now = this.#now();
    if (this.#recent.size >= RECENT_MAX) {
      for (const [m, at] of this.#recent) if (now - at > this.#windowMs) this.#recent.delete(m);
      if (this.#recent.size >= RECENT_MAX) this.#recent.clear();
    }
    this.#recent.delete(message); // re-insert: the map stays in last-seen order
    this.#recent.set(message, now);
  }
}
