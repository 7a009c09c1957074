/**
 * JetStream streams and consumers of the Go JetStream transport (runtime-spec §4.4), created or
 * updated idempotently: `module-edges` (WorkQueue) and `module-sysmsgs` (Limits), file storage,
 * duplicates window 2 min, MaxAge 1 h; durable pull consumers `<module>` and `<module>-sys-<pod>`.
 * Replicas: Go sets none (R1). With `TINYHOST_NATS_REPLICAS` (a clustered broker, `provision
 * --nats-replicas`) both streams are created or scaled up to that many; without it an existing
 * stream keeps its replica count — an update without one would scale it down to R1
 * (docs/operations.md "A clustered broker").
 */
import {
  AckPolicy,
  DeliverPolicy,
  JetStreamApiError,
  ReplayPolicy,
  RetentionPolicy,
  StorageType,
  type ConsumerConfig,
  type JetStreamManager,
  type StreamConfig,
} from "@nats-io/jetstream";
import { nanos } from "@nats-io/transport-node";
import { EDGE_STREAM, msgSubject, SUBJECT_PREFIX, sysConsumerName, sysmsgSubject, SYSMSG_STREAM } from "./names.ts";

/** Duplicate-detection window of both streams, ms (runtime-spec §13.1). */
export const DUPLICATE_WINDOW_MS = 2 * 60_000;
/** Max message age of both streams, ms. */
export const STREAM_MAX_AGE_MS = 60 * 60_000;
/** Consumer ack wait, ms. */
export const ACK_WAIT_MS = 30_000;
/** Consumer max deliveries. */
export const MAX_DELIVER = 3;
/** Idle time after which a per-pod system consumer is removed by the server, ms. */
export const SYS_INACTIVE_THRESHOLD_MS = 5 * 60_000;

/** JetStream API error codes we react to. */
const STREAM_NOT_FOUND = 10059;
const CONSUMER_NOT_FOUND = 10014;

/** True when `err` says a stream or consumer does not exist (so a supervisor rebuilds it). */
export function isMissingResource(err: unknown): boolean {
  return err instanceof JetStreamApiError && (err.code === STREAM_NOT_FOUND || err.code === CONSUMER_NOT_FOUND);
}

/** Config of stream `module-edges`; `replicas` sets `num_replicas` (absent: the server's default or the stream's current count). */
export function edgeStreamConfig(replicas?: number): Partial<StreamConfig> & { name: string } {
  return {
    name: EDGE_STREAM,
    subjects: [`${SUBJECT_PREFIX}.*.msg`],
    retention: RetentionPolicy.Workqueue,
    storage: StorageType.File,
    duplicate_window: nanos(DUPLICATE_WINDOW_MS),
    max_age: nanos(STREAM_MAX_AGE_MS),
    ...(replicas ? { num_replicas: replicas } : {}),
  };
}

/** Config of stream `module-sysmsgs`; `replicas` as in {@link edgeStreamConfig}. */
export function sysmsgStreamConfig(replicas?: number): Partial<StreamConfig> & { name: string } {
  return {
    name: SYSMSG_STREAM,
    subjects: [`${SUBJECT_PREFIX}.*.sysmsg`],
    retention: RetentionPolicy.Limits,
    storage: StorageType.File,
    duplicate_window: nanos(DUPLICATE_WINDOW_MS),
    max_age: nanos(STREAM_MAX_AGE_MS),
    ...(replicas ? { num_replicas: replicas } : {}),
  };
}

/**
 * Creates `cfg`'s stream, or updates it when it exists (Go `CreateOrUpdateStream`). A `cfg` without
 * `num_replicas` keeps the existing stream's count: the server reads a missing count as 1, so a
 * module started without `TINYHOST_NATS_REPLICAS` would otherwise scale a clustered stream down.
 */
export async function ensureStream(jsm: JetStreamManager, cfg: Partial<StreamConfig> & { name: string }): Promise<void> {
  let current: number;
  try {
    current = (await jsm.streams.info(cfg.name)).config.num_replicas;
  } catch (err) {
    if (!isMissingResource(err)) throw err;
    await jsm.streams.add(cfg);
    return;
  }
  await jsm.streams.update(cfg.name, { ...cfg, num_replicas: cfg.num_replicas ?? current });
}

/**
 * Ensures both streams, the edge stream first — it frees the `.msg` subjects an older shared
 * stream may hold (runtime-spec §4.4, v0.10.34 transition note).
 */
export async function ensureStreams(jsm: JetStreamManager, replicas?: number): Promise<void> {
  await ensureStream(jsm, edgeStreamConfig(replicas));
  await ensureStream(jsm, sysmsgStreamConfig(replicas));
}

/**
 * Config of the shared business consumer `<module>`: the one home of it — the module, the chart's
 * `pre-install` and `provision`'s broker Job all create it from here. Never an inactivity
 * threshold: the consumer must outlive the last pod, or a module scaled to zero loses its backlog's
 * consumer and KEDA's scaler reads nothing (docs/operations.md "Scaling").
 */
export function businessConsumerConfig(module: string): Partial<ConsumerConfig> & { durable_name: string } {
  return {
    durable_name: module,
    filter_subject: msgSubject(module),
    deliver_policy: DeliverPolicy.All,
    ack_policy: AckPolicy.Explicit,
    ack_wait: nanos(ACK_WAIT_MS),
    max_deliver: MAX_DELIVER,
    replay_policy: ReplayPolicy.Instant,
  };
}

/** Config of the per-pod system consumer `<module>-sys-<pod>`. */
export function systemConsumerConfig(module: string, pod: string): Partial<ConsumerConfig> & { durable_name: string } {
  return {
    durable_name: sysConsumerName(module, pod),
    filter_subject: sysmsgSubject(module),
    deliver_policy: DeliverPolicy.New,
    ack_policy: AckPolicy.Explicit,
    ack_wait: nanos(ACK_WAIT_MS),
    max_deliver: MAX_DELIVER,
    replay_policy: ReplayPolicy.Instant,
    inactive_threshold: nanos(SYS_INACTIVE_THRESHOLD_MS),
  };
}

/** What {@link ensureConsumer} found and did. */
export type ConsumerOutcome = "created" | "updated" | "verified";

/** The mutable fields of `cfg` that differ from the consumer's `current` config (an inactivity threshold counts when set at all). */
export function consumerDrift(cfg: Partial<ConsumerConfig>, current: Partial<ConsumerConfig>): string[] {
  const drift: string[] = [];
  for (const k of ["ack_wait", "max_deliver"] as const) if (cfg[k] !== undefined && cfg[k] !== current[k]) drift.push(k);
  if ((cfg.inactive_threshold ?? 0) !== (current.inactive_threshold ?? 0)) drift.push("inactive_threshold");
  return drift;
}

/**
 * Creates the durable consumer when it is missing; when it exists, verifies it and updates only the
 * mutable fields that drifted (Go `CreateOrUpdateConsumer` writes every time; the result is the same
 * config). A business consumer created by `pre-install` / `provision` is thus only verified by the
 * module. An inactivity threshold someone else set on a consumer whose config has none is cleared.
 * @returns what was done.
 * @throws the JetStream API error when the consumer cannot be read, created or updated.
 */
export async function ensureConsumer(jsm: JetStreamManager, stream: string, cfg: Partial<ConsumerConfig> & { durable_name: string }): Promise<ConsumerOutcome> {
  let current: Partial<ConsumerConfig>;
  try {
    current = (await jsm.consumers.info(stream, cfg.durable_name)).config;
  } catch (err) {
    if (!isMissingResource(err)) throw err;
    await jsm.consumers.add(stream, cfg);
    return "created";
  }
  const drift = consumerDrift(cfg, current);
  if (drift.length === 0) return "verified";
  const { durable_name: _n, deliver_policy: _d, filter_subject: _f, replay_policy: _r, ack_policy: _a, ...mutable } = cfg;
  await jsm.consumers.update(stream, cfg.durable_name, { ...mutable, inactive_threshold: cfg.inactive_threshold ?? 0 });
  return "updated";
}

/**
 * Prepares the broker for module `module` before any pod of it runs: both streams and the business
 * consumer `<module>` with the module's own config ({@link businessConsumerConfig}). Run by the chart's
 * `pre-install` hook (given a broker URL) and by `provision`'s broker Job, so the consumer exists at
 * zero replicas — KEDA's nats-jetstream scaler reads its lag, and a missing consumer is a scaler error.
 * @returns what happened to the business consumer.
 * @throws the JetStream API error when JetStream is off or a stream or the consumer cannot be written.
 */
export async function prepareModuleBroker(jsm: JetStreamManager, module: string): Promise<ConsumerOutcome> {
  await ensureStreams(jsm);
  return ensureConsumer(jsm, EDGE_STREAM, businessConsumerConfig(module));
}
