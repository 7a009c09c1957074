/**
 * The durable run ledger in JetStream KV bucket `TINY_EXEC` (History 1, file storage): step records
 * at `exec/<runID>/step/<stepKey>` and re-drive counters at `exec/<runID>/redrive/<stepKey>`
 * (runtime-spec §1.7, §2.7, §3.6, §4.6).
 */
import { jetstreamManager, StorageType } from "@nats-io/jetstream";
import { Kvm, type KV } from "@nats-io/kv";
import type { NatsConnection } from "@nats-io/transport-node";
import { parseStepRecord } from "./ledger.ts";
import type { StepLedger } from "../../core/durable/step-ledger.ts";
import type { StepRecord } from "../../core/durable/run.ts";
import { checkPayloadSize } from "../../transport/nats/request.ts";
import { EXEC_BUCKET, execKey, redriveKey, STEP_LEDGER_PREFIX, stepRecordKey } from "../../transport/nats/names.ts";

const enc = new TextEncoder();
const dec = new TextDecoder();

/**
 * Step records and re-drive counters of durable runs: the ledger of the JetStream transport, shared
 * by every replica and module on the broker (Go pkg/state/jetstream.go).
 */
export class RunLedger implements StepLedger {
  readonly kind = "jetstream" as const;

  private constructor(
    readonly kv: KV,
    readonly nc: NatsConnection,
    readonly bucket: string,
  ) {}

  /**
   * Opens (creating when missing, idempotently) the `TINY_EXEC` bucket. With `replicas` (a clustered
   * broker, `TINYHOST_NATS_REPLICAS`) a new bucket gets that many and an existing one with fewer is
   * scaled up (nats.js's create leaves an existing bucket's config as it is); never scaled down.
   * @throws the JetStream API error when JetStream is unavailable (Go exits 1, runtime-spec §4.1).
   */
  static async open(nc: NatsConnection, bucket = EXEC_BUCKET, replicas?: number): Promise<RunLedger> {
    const kv = await new Kvm(nc).create(bucket, { history: 1, storage: StorageType.File, ...(replicas ? { replicas } : {}) });
    if (replicas) {
      const jsm = await jetstreamManager(nc);
      const stream = `KV_${bucket}`;
      const { config } = await jsm.streams.info(stream);
      if (config.num_replicas < replicas) await jsm.streams.update(stream, { ...config, num_replicas: replicas });
    }
    return new RunLedger(kv, nc, bucket);
  }

  /** The record of step `stepKey` of run `runId`, or undefined (an unreadable record counts as absent). */
  async getStep(runId: string, stepKey: string): Promise<StepRecord | undefined> {
    const e = await this.kv.get(stepRecordKey(runId, stepKey));
    return e && e.operation === "PUT" ? parseStepRecord(e.value) : undefined;
  }

  /**
   * Every readable step record of run `runId`, by step key. Lists all keys of the bucket and keeps
   * the run's (a `/` is not a subject token separator, so the server cannot filter; Go lists the
   * same way, runtime-spec §4.6).
   */
  async readRun(runId: string): Promise<Map<string, StepRecord>> {
    const prefix = execKey(runId, STEP_LEDGER_PREFIX);
    const out = new Map<string, StepRecord>();
    for (const key of await this.keys()) {
      if (!key.startsWith(prefix)) continue;
      const rec = await this.getStep(runId, key.slice(prefix.length));
      if (rec) out.set(key.slice(prefix.length), rec);
    }
    return out;
  }

  /** True when step `stepKey` of run `runId` has a record (so its hop is not run again, runtime-spec §2.2 step 2). */
  async hasStep(runId: string, stepKey: string, _node?: string): Promise<boolean> {
    const e = await this.kv.get(stepRecordKey(runId, stepKey));
    return !!e && e.operation === "PUT" && e.value.byteLength > 0;
  }

  /**
   * Writes the record of a step (runtime-spec §2.7).
   * @throws PayloadTooLargeError (code `PAYLOAD_TOO_LARGE`, both sizes) when the record is over the server's `max_payload`.
   */
  async putStep(runId: string, stepKey: string, record: StepRecord): Promise<void> {
    await this.#put(stepRecordKey(runId, stepKey), enc.encode(JSON.stringify(record)));
  }

  /** A KV put, refused before sending when the value is over `max_payload` (nats.js throws an uncoded error there). */
  async #put(key: string, value: Uint8Array): Promise<void> {
    const tooLarge = checkPayloadSize(this.nc, `KV ${this.bucket} key ${key}`, value, undefined);
    if (tooLarge) throw tooLarge;
    await this.kv.put(key, value);
  }

  /** The re-drive counter of a frontier hop (0 when absent or unreadable). runtime-spec §3.6. */
  async redrives(runId: string, stepKey: string): Promise<number> {
    const e = await this.kv.get(redriveKey(runId, stepKey));
    if (!e || e.operation !== "PUT") return 0;
    const n = Number.parseInt(dec.decode(e.value), 10);
    return Number.isFinite(n) ? n : 0;
  }

  /** Stores a re-drive counter as a plain decimal string (runtime-spec §3.6). */
  async setRedrives(runId: string, stepKey: string, n: number): Promise<void> {
    await this.#put(redriveKey(runId, stepKey), enc.encode(String(n)));
  }

  /** Every key of the bucket (the reconciler's pass lists them all, runtime-spec §3.6). */
  async keys(): Promise<string[]> {
    const out: string[] = [];
    for await (const k of await this.kv.keys()) out.push(k);
    return out;
  }

  /** Raw value of `key`, or undefined. */
  async raw(key: string): Promise<Uint8Array | undefined> {
    const e = await this.kv.get(key);
    return e && e.operation === "PUT" ? e.value : undefined;
  }

  /** Deletes `key` (idempotent). */
  async delete(key: string): Promise<void> {
    await this.kv.delete(key);
  }
}
