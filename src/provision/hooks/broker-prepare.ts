/**
 * The broker half of the `pre-install` hook: before the first pod of a module runs, create
 * the JetStream streams and the module's durable business consumer `<module>` on `module-edges`, with
 * the config the module itself uses (src/transport/nats/streams.ts, the one home of it). The consumer
 * then exists at zero replicas, so KEDA's nats-jetstream scaler can read its lag and a hop published
 * while no pod runs waits in the stream for the first one.
 */
import { jetstreamManager } from "@nats-io/jetstream";
import type { NatsConnection } from "@nats-io/transport-node";
import { sanitizeResourceName } from "../../core/api/index.ts";
import { TinyError, messageOf } from "../../core/errors.ts";
import { sleep } from "../../core/timer.ts";
import { connectNats } from "../../transport/nats/connect.ts";
import { prepareModuleBroker, type ConsumerOutcome } from "../../transport/nats/streams.ts";
import { redactBrokerUrl } from "../broker-url.ts";

/** How long the hook keeps trying to reach the broker, ms: a broker installed in the same run may still be starting. */
export const BROKER_PREPARE_TIMEOUT_MS = 120_000;
/** Pause between connection attempts, ms. */
export const BROKER_PREPARE_RETRY_MS = 2_000;

/** The broker could not be prepared; the message names the (redacted) URL, the module and why. */
export class BrokerPrepareError extends TinyError<"BROKER_PREPARE"> {
  constructor(message: string, options?: { cause?: unknown }) {
    super("BROKER_PREPARE", message, options);
  }
}

/** Options of {@link prepareBroker}. */
export interface PrepareBrokerOptions {
  /** Overall deadline, ms; default {@link BROKER_PREPARE_TIMEOUT_MS}. */
  timeoutMs?: number;
  /** Pause between attempts, ms; default {@link BROKER_PREPARE_RETRY_MS}. */
  retryMs?: number;
  /** Told about each failed attempt (the hook logs it). */
  onRetry?: (why: string) => void;
}

/** What {@link prepareBroker} did. */
export interface PreparedBroker {
  /** The consumer's durable name (the SDK-sanitized module name, as `run` derives it). */
  consumer: string;
  /** Created, updated (a mutable field had drifted) or verified as it was. */
  outcome: ConsumerOutcome;
}

/**
 * Connects to `url`, ensures both streams and the business consumer of module `name`, and closes.
 * Retries the whole step until `timeoutMs` (a connect refusal or a JetStream not yet ready).
 * @param url - broker URL (`nats://[token@]host:port`, comma-separated list allowed).
 * @param name - the module name as given to `run --name` (sanitized here as `run` does).
 * @throws BrokerPrepareError naming the redacted URL, the consumer and the last error when the deadline passes.
 */
export async function prepareBroker(url: string, name: string, o: PrepareBrokerOptions = {}): Promise<PreparedBroker> {
  const consumer = sanitizeResourceName(name);
  if (consumer === "") throw new BrokerPrepareError(`pre-install: module name ${JSON.stringify(name)} has no letters or digits; the consumer needs one`);
  const deadline = performance.now() + (o.timeoutMs ?? BROKER_PREPARE_TIMEOUT_MS);
  let last: unknown;
  for (;;) {
    let nc: NatsConnection | undefined;
    try {
      nc = await connectNats(url);
      const outcome = await prepareModuleBroker(await jetstreamManager(nc), consumer);
      return { consumer, outcome };
    } catch (e) {
      last = e;
      o.onRetry?.(messageOf(e));
    } finally {
      await nc?.close().catch(() => {});
    }
    if (performance.now() + (o.retryMs ?? BROKER_PREPARE_RETRY_MS) > deadline) break;
    await sleep(o.retryMs ?? BROKER_PREPARE_RETRY_MS);
  }
  throw new BrokerPrepareError(
    `pre-install: could not create JetStream stream module-edges and consumer ${JSON.stringify(consumer)} on ${redactBrokerUrl(url)}: ${messageOf(last)}`,
    { cause: last },
  );
}
