/**
 * Keeps one durable pull consumer consuming (runtime-spec §4.4 `superviseConsumer`): ensure the
 * stream and consumer → consume → rebuild when the consume ends or a periodic health check finds the
 * consumer or its stream gone, pausing between attempts. The process never restarts for it.
 */
import type { ConsumerMessages, JetStreamClient, JetStreamManager, JsMsg } from "@nats-io/jetstream";
import type { Logger } from "../../telemetry/log.ts";
import { isMissingResource } from "./streams.ts";
import { sleepUnlessAborted } from "../../sdk/abortable-sleep.ts";

/** Health-check interval, ms (runtime-spec §13.1: 20 s). */
export const HEALTH_CHECK_MS = 20_000;
/** Pause between rebuild attempts, ms (runtime-spec §13.1: 2 s). */
export const REBUILD_PAUSE_MS = 2_000;

/** What a {@link ConsumerSupervisor} keeps alive. */
export interface SupervisorOptions {
  js: JetStreamClient;
  jsm: JetStreamManager;
  stream: string;
  /** Durable consumer name. */
  consumer: string;
  /** Creates or updates the stream(s) and the consumer (idempotent). */
  ensure: () => Promise<void>;
  /** Called for every message; must not block (the handler runs concurrently). */
  onMessage: (m: JsMsg) => void;
  /** Health-check interval, ms; default {@link HEALTH_CHECK_MS}. */
  healthCheckMs?: number;
  /** Pause between rebuilds, ms; default {@link REBUILD_PAUSE_MS}. */
  pauseMs?: number;
  log: Logger;
}

/** Runs the ensure → consume → watch loop of one consumer until {@link ConsumerSupervisor.stop}. */
export class ConsumerSupervisor {
  /** How many times a consume was started (1 after the first start; more after rebuilds). */
  starts = 0;
  readonly #o: SupervisorOptions;
  readonly #stop = new AbortController();
  #current: ConsumerMessages | undefined;
  #loop: Promise<void> | undefined;
  #ready = Promise.withResolvers<void>();

  constructor(opts: SupervisorOptions) {
    this.#o = opts;
  }

  /** Starts the loop; resolves once the first consume is running. */
  start(): Promise<void> {
    this.#loop ??= this.#run();
    return this.#ready.promise;
  }

  async #run(): Promise<void> {
    const o = this.#o;
    const signal = this.#stop.signal;
    while (!signal.aborted) {
      try {
        await o.ensure();
        const c = await o.js.consumers.get(o.stream, o.consumer);
        const msgs = await c.consume({ callback: o.onMessage });
        this.#current = msgs;
        this.starts++;
        this.#ready.resolve();
        const why = await Promise.race([msgs.closed().then(() => "consume ended"), this.#watch(signal)]);
        if (!signal.aborted) o.log.warn({ stream: o.stream, consumer: o.consumer, why }, "rebuilding consumer");
        await msgs.close().catch(() => undefined);
        this.#current = undefined;
      } catch (err) {
        if (signal.aborted) break;
        o.log.warn({ stream: o.stream, consumer: o.consumer, err: err instanceof Error ? err.message : String(err) }, "consumer setup failed; retrying");
      }
      if (!signal.aborted) await sleepUnlessAborted(o.pauseMs ?? REBUILD_PAUSE_MS, signal);
    }
  }

  /** Resolves when the consumer or its stream is found missing, or when stopped. */
  async #watch(signal: AbortSignal): Promise<string> {
    const o = this.#o;
    for (;;) {
      if (!(await sleepUnlessAborted(o.healthCheckMs ?? HEALTH_CHECK_MS, signal))) return "stopped";
      try {
        await o.jsm.consumers.info(o.stream, o.consumer);
      } catch (err) {
        if (isMissingResource(err)) return "consumer or stream missing";
        // disconnected or slow: the client resumes by itself; check again later
      }
    }
  }

  /** Stops consuming (messages already delivered keep being handled by their callbacks). */
  async stop(): Promise<void> {
    this.#stop.abort();
    this.#ready.resolve();
    await this.#current?.close().catch(() => undefined);
    await this.#loop;
  }
}
