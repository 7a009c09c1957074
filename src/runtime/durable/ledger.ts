/**
 * The step ledger of durable runs (runtime-spec §1.7, §2.7): one record per completed step, keyed
 * by run id and step key. Two stores, as in Go:
 * - JetStream KV `TINY_EXEC` (src/runtime/durable/run-ledger.ts), shared by every replica and module —
 *   the store of the JetStream transport;
 * - node metadata ({@link MetadataLedger}): without JetStream, each record lives in the status
 *   metadata of the node that ran the step, as `_state/step/<stepKey>` (runtime-spec §4.6).
 */
import type { State } from "../../core/state.ts";
import { MetadataState } from "../runner/metadata-state.ts";
import type { StepRecord } from "../../core/durable/run.ts";
import type { StepLedger } from "../../core/durable/step-ledger.ts";

/** State key prefix of step records inside a node's (or a run's) state (Go `StepLedgerPrefix`). */
export const STEP_STATE_PREFIX = "step/";
/** Step records kept per node by the metadata ledger; the oldest go first (Go keeps all, §4.6). */
export const METADATA_LEDGER_MAX_STEPS = 100;
/** Age after which the metadata ledger drops a node's step record, ms (the KV reconciler's 24 h GC). */
export const METADATA_LEDGER_MAX_AGE_MS = 24 * 60 * 60_000;

/** The node-scope states the metadata ledger reads and writes. */
export interface LedgerNodes {
  /** The state of node `name`, or undefined when this process runs no such node. */
  state(name: string): State | undefined;
  /** The states of every node this process runs. */
  all(): Iterable<State>;
}

const dec = new TextDecoder();

/** Parses a stored record; undefined for an unreadable one (skipped, as Go's reconciler does). */
export function parseStepRecord(bytes: Uint8Array | undefined): StepRecord | undefined {
  if (!bytes || bytes.byteLength === 0) return undefined;
  try {
    const r = JSON.parse(dec.decode(bytes)) as StepRecord;
    return r && typeof r === "object" && typeof r.status === "string" ? r : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The ledger in node status metadata, bounded where Go's is not (runtime-spec §4.6 "no GC"): each
 * write drops the node's records older than {@link METADATA_LEDGER_MAX_AGE_MS} and keeps at most
 * {@link METADATA_LEDGER_MAX_STEPS} (newest by `completedAt`). A record that does not fit the
 * node's 900 KiB state cap rejects with `STATE_TOO_LARGE`.
 */
export class MetadataLedger implements StepLedger {
  readonly kind = "metadata" as const;

  constructor(
    readonly nodes: LedgerNodes,
    readonly now: () => number = Date.now,
  ) {}

  async hasStep(_runId: string, stepKey: string, node: string): Promise<boolean> {
    const state = this.nodes.state(node);
    return state !== undefined && (await state.get(STEP_STATE_PREFIX + stepKey)) !== undefined;
  }

  /** @throws Error naming the node when this process runs no such node. */
  async putStep(_runId: string, stepKey: string, record: StepRecord): Promise<void> {
    const state = this.nodes.state(record.node);
    if (!state) throw new Error(`step ledger: node ${record.node} has no runner here to keep step ${stepKey}`);
    await this.#prune(state, stepKey);
    await stage(state, STEP_STATE_PREFIX + stepKey, JSON.stringify(record));
  }

  async readRun(runId: string): Promise<Map<string, StepRecord>> {
    const out = new Map<string, StepRecord>();
    const prefix = `${STEP_STATE_PREFIX}${runId}.`;
    for (const state of this.nodes.all()) {
      for (const key of await state.list(prefix)) {
        const rec = parseStepRecord(await state.get(key));
        if (rec) out.set(key.slice(STEP_STATE_PREFIX.length), rec);
      }
    }
    return out;
  }

  /** Drops expired records and the oldest beyond the cap, leaving room for one more. */
  async #prune(state: State, adding: string): Promise<void> {
    const keys = (await state.list(STEP_STATE_PREFIX)).filter((k) => k !== STEP_STATE_PREFIX + adding);
    const cutoff = this.now() - METADATA_LEDGER_MAX_AGE_MS;
    const dated: { key: string; at: number }[] = [];
    for (const key of keys) {
      const at = Date.parse(parseStepRecord(await state.get(key))?.completedAt ?? "") || 0;
      if (at < cutoff) await stage(state, key, null);
      else dated.push({ key, at });
    }
    const over = dated.length - (METADATA_LEDGER_MAX_STEPS - 1);
    if (over <= 0) return;
    dated.sort((a, b) => a.at - b.at);
    for (const { key } of dated.slice(0, over)) await stage(state, key, null);
  }
}

/**
 * Writes `key` (`null` = deletes it) without waiting for the node's status write: Go's ledger write
 * returns once staged, and a step would otherwise wait up to the 1 s status window. Staged metadata
 * state is readable at once, persisted by the next status write (retried when it fails, flushed
 * when the node stops; runner/metadata-state.ts); a refusal (the 900 KiB cap) is thrown now. Any
 * other State (a test's) is awaited.
 */
async function stage(state: State, key: string, value: string | null): Promise<void> {
  if (state instanceof MetadataState) {
    if (value === null) void state.remove(key);
    else void state.write(key, value);
    return;
  }
  await (value === null ? state.delete(key) : state.set(key, value));
}
