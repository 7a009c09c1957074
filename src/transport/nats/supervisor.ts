/**
 * Keeps one durable pull consumer consuming (runtime-spec §4.4 `superviseConsumer`): ensure the
 * stream and consumer → pull → rebuild when a pull fails or a periodic health check finds the
 * consumer or its stream gone, pausing between attempts. The process never restarts for it.
 *
 * Pulls are bounded by the module's hop slots: each pull asks for as many
 * messages as slots it could reserve, so nothing waits in this process's memory — what exceeds the
 * limit stays in the stream for any replica. Go's `Consume` prefetches instead (nats.go default 500
 * messages); the messages are the same, only fewer sit unstarted here.
 * Stopping (shutdown) sends no new pull and `nak`s whatever the last pull still delivers, so another
 * replica gets it at once instead of after AckWait.
 * A reconnect of the connection ends the current pull (a restarted broker no longer holds it) or
 * the attempt in progress (an API request sent while disconnected would wait out its timeout) and
 * starts again at once, retrying quickly while the broker's JetStream recovers.
 */
import type { Consumer, ConsumerMessages, FetchMessages, JetStreamClient, JetStreamManager, JsMsg } from "@nats-io/jetstream";
import type { Logger } from "../../telemetry/log.ts";
import type { HopSlots } from "../slots.ts";
import { isMissingResource } from "./streams.ts";
import { sleepUnlessAborted } from "../../core/abortable-sleep.ts";
import type { ReconnectEvents } from "./reconnects.ts";
import { messageOf } from "../../core/errors.ts";

/** Health-check interval, ms (runtime-spec §13.1: 20 s). */
export const HEALTH_CHECK_MS = 20_000;
/** Pause between rebuild attempts, ms (runtime-spec §13.1: 2 s). */
export const REBUILD_PAUSE_MS = 2_000;
/**
 * How long one pull request waits on the server for messages, ms. It also bounds how long a
 * stopping receiver waits for its last pull to end (nats.js accepts ≥ 1000).
 */
export const PULL_EXPIRES_MS = 2_000;
/** Longest a pull waits to batch more free slots once one is free, ms. */
export const PULL_BATCH_WAIT_MS = 5;
/**
 * Pauses before the attempts that follow a reconnect, ms: at once, then quickly while JetStream on
 * a restarted broker is still recovering its streams; after these, {@link REBUILD_PAUSE_MS}.
 */
export const RECONNECT_RETRY_MS: readonly number[] = [0, 100, 200, 400, 800, 1600];

/** What a {@link ConsumerSupervisor} keeps alive. */
export interface SupervisorOptions {
  js: JetStreamClient;
  jsm: JetStreamManager;
  stream: string;
  /** Durable consumer name. */
  consumer: string;
  /** Creates or updates the stream(s) and the consumer (idempotent). */
  ensure: () => Promise<void>;
  /**
   * Called for every message with one hop slot taken for it; must not block (the handler runs
   * concurrently) and must call `release` once the message is settled.
   */
  onMessage: (m: JsMsg, release: () => void) => void;
  /** Called for a message delivered after stop began, with no slot: typically `nak` it. */
  onLate: (m: JsMsg) => void;
  /** The module's hop slots; pulls never ask for more messages than slots are free. */
  slots: HopSlots;
  /** Health-check interval, ms; default {@link HEALTH_CHECK_MS}. */
  healthCheckMs?: number;
  /** Pause between rebuilds, ms; default {@link REBUILD_PAUSE_MS}. */
  pauseMs?: number;
  /**
   * The connection's reconnects: each one ends the current pull or attempt and starts a new one at
   * once (then {@link RECONNECT_RETRY_MS}), rather than waiting for the old pull to notice.
   */
  reconnects?: ReconnectEvents;
  log: Logger;
}

/** Runs the ensure → consume → watch loop of one consumer until {@link ConsumerSupervisor.stop}. */
export class ConsumerSupervisor {
  /** How many times a consume was started (1 after the first start; more after rebuilds). */
  starts = 0;
  /**
   * The consumer's backlog as this process last saw it: `num_pending` (not yet delivered) and
   * `num_ack_pending` (delivered, not yet acknowledged) from the health check's consumer info, the
   * pending count also from each delivered message. The numbers KEDA scales on (/metrics).
   */
  readonly backlog = { pending: 0, ackPending: 0 };
  readonly #o: SupervisorOptions;
  readonly #stop = new AbortController();
  #current: ConsumerMessages | undefined;
  #loop: Promise<void> | undefined;
  #ready = Promise.withResolvers<void>();
  /** Aborted at each reconnect (then replaced): ends what the loop was waiting on. */
  #epoch = new AbortController();
  /** Index into {@link RECONNECT_RETRY_MS} of the next pause; past its end the normal pause applies. */
  #fast = RECONNECT_RETRY_MS.length;
  #unsubscribe: (() => void) | undefined;

  constructor(opts: SupervisorOptions) {
    this.#o = opts;
  }

  /** Starts the loop; resolves once the first consume is running. */
  start(): Promise<void> {
    this.#unsubscribe ??= this.#o.reconnects?.(() => {
      this.#fast = 0;
      const ended = this.#epoch;
      this.#epoch = new AbortController();
      ended.abort();
    });
    this.#loop ??= this.#run();
    return this.#ready.promise;
  }

  async #run(): Promise<void> {
    const o = this.#o;
    const signal = this.#stop.signal;
    while (!signal.aborted) {
      const cycle = new AbortController();
      const stopCycle = () => cycle.abort();
      signal.addEventListener("abort", stopCycle, { once: true });
      const reconnected = this.#epoch.signal;
      try {
        await untilAborted(o.ensure(), reconnected);
        const c = await untilAborted(o.js.consumers.get(o.stream, o.consumer), reconnected);
        this.starts++;
        this.#fast = RECONNECT_RETRY_MS.length;
        this.#ready.resolve();
        const pulling = this.#pull(c, cycle.signal);
        const why = await Promise.race([pulling.then(() => "stopped"), this.#watch(cycle.signal), aborted(reconnected).then(() => "reconnected")]);
        if (!signal.aborted) o.log[why === "reconnected" ? "info" : "warn"]({ stream: o.stream, consumer: o.consumer, why }, "rebuilding consumer");
        cycle.abort();
        // The consumer is gone, or the broker that held the pull restarted: its last pull cannot
        // deliver; on stop the pull runs out by itself.
        if (!signal.aborted) await this.#current?.close().catch(() => undefined);
        await pulling.catch(() => undefined);
      } catch (err) {
        if (signal.aborted) break;
        if (!(err instanceof Reconnected)) {
          o.log.warn({ stream: o.stream, consumer: o.consumer, err: messageOf(err) }, "consumer pull failed; rebuilding");
        }
      } finally {
        cycle.abort();
        signal.removeEventListener("abort", stopCycle);
      }
      if (signal.aborted) break;
      const fast = this.#fast < RECONNECT_RETRY_MS.length ? RECONNECT_RETRY_MS[this.#fast++]! : undefined;
      // A reconnect during the pause ends it: the next attempt starts at once.
      const epoch = this.#epoch.signal;
      if (fast !== 0) await sleepUnlessAborted(fast ?? o.pauseMs ?? REBUILD_PAUSE_MS, AbortSignal.any([signal, epoch]));
    }
  }

  /**
   * Pulls while `signal` is live: waits for free slots, reserves them, asks for that many messages,
   * hands each to `onMessage` with its slot and gives back what the pull did not fill.
   * @throws the pull's error other than missed heartbeats (consumer deleted, no responders): the caller rebuilds.
   */
  async #pull(c: Consumer, signal: AbortSignal): Promise<void> {
    const unregister = this.#o.slots.addPuller();
    try {
      await this.#pullShared(c, signal);
    } finally {
      unregister();
    }
  }

  async #pullShared(c: Consumer, signal: AbortSignal): Promise<void> {
    const o = this.#o;
    const slots = o.slots;
    while (!signal.aborted) {
      // Several served names' consumers share the slots: each pull takes only its share.
      const share = slots.pullShare;
      await slots.whenFree(Math.min(share, Math.max(1, Math.ceil(slots.limit / 4))), PULL_BATCH_WAIT_MS, signal);
      if (signal.aborted) return;
      const reserved = slots.reserve(share);
      if (reserved === 0) continue;
      let used = 0;
      try {
        const onMessage = (m: JsMsg) => {
          if (signal.aborted) return o.onLate(m);
          used++;
          let released = false;
          o.onMessage(m, () => {
            if (released) return;
            released = true;
            slots.release();
          });
        };
        // The callback form (nats.js takes it for fetch as for consume, though FetchOptions does not
        // declare it): no promise per message, as the consume() it replaces (bench/durable.ts).
        const msgs = await c.fetch({ max_messages: reserved, expires: PULL_EXPIRES_MS, callback: onMessage } as FetchMessages);
        this.#current = msgs;
        const ended = await msgs.closed();
        if (ended instanceof Error) throw ended;
      } catch (err) {
        // Missed idle heartbeats (a busy event loop, a broker hiccup) end only this pull: pull
        // again at once, as nats.js `consume()` does; anything else rebuilds the consumer.
        if (!isMissedHeartbeats(err)) throw err;
        o.log.debug({ stream: o.stream, consumer: o.consumer }, "pull heartbeats missed; pulling again");
      } finally {
        this.#current = undefined;
        if (reserved > used) slots.release(reserved - used);
      }
    }
  }

  /** Resolves when the consumer or its stream is found missing, or when stopped. */
  async #watch(signal: AbortSignal): Promise<string> {
    const o = this.#o;
    for (;;) {
      if (!(await sleepUnlessAborted(o.healthCheckMs ?? HEALTH_CHECK_MS, signal))) return "stopped";
      try {
        const info = await o.jsm.consumers.info(o.stream, o.consumer);
        this.backlog.pending = info.num_pending;
        this.backlog.ackPending = info.num_ack_pending;
      } catch (err) {
        if (isMissingResource(err)) return "consumer or stream missing";
        // disconnected or slow: the client resumes by itself; check again later
      }
    }
  }

  /**
   * Stops pulling: no new pull request; the last one runs out (≤ {@link PULL_EXPIRES_MS}) and what
   * it still delivers goes to `onLate`. Messages already handed to `onMessage` keep running.
   */
  async stop(): Promise<void> {
    this.#unsubscribe?.();
    this.#stop.abort();
    this.#ready.resolve();
    await this.#loop;
  }
}

/** True for the error nats.js ends a fetch with when two idle heartbeats did not arrive. */
function isMissedHeartbeats(err: unknown): boolean {
  return err instanceof Error && /heartbeats missed/i.test(err.message);
}

/** An attempt abandoned because the connection reconnected meanwhile. */
class Reconnected extends Error {
  constructor() {
    super("connection reconnected during the attempt");
  }
}

/** Resolves when `signal` aborts (never rejects). */
function aborted(signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise((resolve) => signal.addEventListener("abort", () => resolve(), { once: true }));
}

/**
 * `p`, unless `signal` aborts first: then rejects with {@link Reconnected} (`p` is left to settle
 * by itself — an API request sent while disconnected would only wait out its timeout).
 */
function untilAborted<T>(p: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) {
    p.catch(() => undefined);
    return Promise.reject(new Reconnected());
  }
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(new Reconnected());
    signal.addEventListener("abort", onAbort, { once: true });
    p.then(resolve, reject).finally(() => signal.removeEventListener("abort", onAbort));
  });
}
