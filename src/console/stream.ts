/**
 * The console's live stream: one Server-Sent Events connection per open page (WHATWG HTML
 * "Server-sent events"). Events:
 * - `flow` — the whole {@link FlowView}, at connect and whenever a node changed (coalesced);
 * - `hops` — an array of {@link HopEvent}s, batched every {@link BATCH_MS} ms; the SSE `id` is the
 *   last one's sequence number, so a browser that reconnects sends `Last-Event-ID` and gets what it
 *   missed from the history;
 * - `skipped` — `{count}` hops this page did not get (it read too slowly and its queue of
 *   {@link MAX_PENDING} was full, or they left the history while it was away): never silently.
 * A comment line every {@link HEARTBEAT_MS} ms keeps the connection open and finds dead pages.
 */
import type { SSEStreamingApi } from "hono/streaming";
import type { FlowView } from "./flow-view.ts";
import { matches, type HopEvent, type HopFilter, type HopHistory } from "./history.ts";

/** Hops gathered into one `hops` event at most this often, ms. */
export const BATCH_MS = 100;
/** Hops queued for one page at most; more are counted as skipped. */
export const MAX_PENDING = 1000;
/** Keep-alive comment interval, ms. */
export const HEARTBEAT_MS = 15_000;

/** One open page. */
export class StreamClient {
  #pending: HopEvent[] = [];
  #skipped = 0;
  #flowDirty = true;
  #wake: (() => void) | undefined;
  #closed = false;

  /**
   * @param filter the page's node/edge filter.
   * @param after the `Last-Event-ID` it reconnected with (0 = new page).
   */
  constructor(
    readonly filter: HopFilter,
    readonly after: number,
  ) {}

  /** A hop ended. */
  push(e: HopEvent): void {
    if (this.#closed || !matches(e, this.filter)) return;
    if (this.#pending.length >= MAX_PENDING) this.#skipped++;
    else this.#pending.push(e);
    this.#wake?.();
  }

  /** A node changed: the page gets a new `flow` event. */
  flowChanged(): void {
    this.#flowDirty = true;
    this.#wake?.();
  }

  /** Ends the stream (console stopping). */
  close(): void {
    this.#closed = true;
    this.#wake?.();
  }

  /**
   * Writes events to `stream` until it or this client closes.
   * @param snapshot the current flow.
   * @param history replays what a reconnecting page missed.
   */
  async run(stream: SSEStreamingApi, snapshot: () => FlowView, history: HopHistory): Promise<void> {
    stream.onAbort(() => this.close());
    if (this.after > 0) {
      const missed = history.list(this.filter, this.after);
      // Hops between the last one the page saw and the oldest kept one are gone: say how many.
      const gone = Math.max(0, history.oldest() - this.after - 1);
      this.#pending = [...missed, ...this.#pending.filter((e) => e.seq > (missed.at(-1)?.seq ?? this.after))];
      this.#skipped += gone;
    }
    let lastWrite = Date.now();
    while (!this.#closed && !stream.aborted && !stream.closed) {
      let wrote = false;
      if (this.#flowDirty) {
        this.#flowDirty = false;
        await stream.writeSSE({ event: "flow", data: JSON.stringify(snapshot()) });
        wrote = true;
      }
      if (this.#pending.length) {
        const batch = this.#pending;
        this.#pending = [];
        await stream.writeSSE({ event: "hops", data: JSON.stringify(batch), id: String(batch.at(-1)!.seq) });
        wrote = true;
      }
      if (this.#skipped) {
        const count = this.#skipped;
        this.#skipped = 0;
        await stream.writeSSE({ event: "skipped", data: JSON.stringify({ count }) });
        wrote = true;
      }
      if (!wrote && Date.now() - lastWrite >= HEARTBEAT_MS) {
        await stream.write(": keep-alive\n\n");
        wrote = true;
      }
      if (wrote) lastWrite = Date.now();
      await stream.sleep(BATCH_MS); // gather a batch
      if (!this.#flowDirty && !this.#pending.length && !this.#skipped && !this.#closed && !stream.aborted && !stream.closed) {
        await new Promise<void>((resolve) => {
          const t = setTimeout(resolve, HEARTBEAT_MS);
          this.#wake = () => {
            clearTimeout(t);
            resolve();
          };
        });
        this.#wake = undefined;
      }
    }
  }
}
