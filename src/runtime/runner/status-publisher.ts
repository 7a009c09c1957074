/**
 * A runner's status publishing (runtime-spec §2.4, §2.9): what a node's debounced status write
 * sends — the `_reconcile` updaters emitted, the node-state keys set, the runtime-owned status
 * fields — through one {@link StatusWriter}, keeping what failed writes changed for the next one,
 * and the last write when the node stops.
 */
import type { ComponentLogger } from "../../core/context.ts";
import type { NodeUpdater, TinyNode, TinyNodeStatus } from "../../core/node.ts";
import { toError } from "../../core/result.ts";
import { StatusWriteError } from "./errors.ts";
import type { NodeGuard } from "./guard.ts";
import { STATE_PREFIX, type MetadataState } from "./metadata-state.ts";
import { applyStatusPatch, statusPatch } from "./status-patch.ts";
import { StatusWriter, type FlushOutcome, type WriteOutcome, type WriteRetry } from "./status-writer.ts";

/** Persists a node's status: applies `mutate` to the live object and writes its status subresource. */
export interface StatusSink {
  /**
   * Applies `mutate` (metadata updaters, then the runner's status) to the live TinyNode named
   * `nodeName` and persists its status (runtime-spec §2.4: read live object, apply, patch status).
   * Resolves once written (nothing), or `"gone"` when the node no longer exists (nothing to write,
   * never retried); rejects when the write failed (the runner retries it with backoff).
   */
  patchStatus(nodeName: string, mutate: (node: TinyNode) => void): Promise<void | "gone">;
}

/** How long a stopping runner keeps retrying its last status write when its caller gives no deadline, ms (a reload, a deleted node). */
export const DEFAULT_STOP_FLUSH_MS = 5000;

/** What a {@link StatusPublisher} reads from and writes to its runner. */
export interface PublishedNode {
  /** Node name. */
  readonly name: string;
  /** The node's logger. */
  readonly log: ComponentLogger;
  /** Runs each `_reconcile` updater (a throw faults the node, the updater is dropped). */
  readonly guard: NodeGuard;
  /** Node-scope state: its unwritten keys go with each write. */
  readonly state: MetadataState;
  /** The runner's node copy now. */
  node(): TinyNode;
  /** Replaces the runner's node copy with the written one. */
  adopt(node: TinyNode): void;
  /** The runtime-owned status fields now (runner.ts `readStatus(false)`). */
  ownedStatus(): TinyNodeStatus;
}

/** Status writes waiting or running for a node; `failures` = failed writes in a row, `carried` = metadata keys of failed `_reconcile` updaters. */
export interface PendingWrites {
  dirty: boolean;
  inFlight: boolean;
  writes: number;
  failures: number;
  updaters: number;
  carried: number;
  stateKeys: number;
}

/** One node's status publishing (see the file comment). */
export class StatusPublisher {
  /** One status write in flight at most, coalesced requests (status-writer.ts says why). */
  readonly #writer: StatusWriter;
  /** `_reconcile` updaters emitted since the last write started (state writes coalesce in the node's state). */
  #updaters: NodeUpdater[] = [];
  /**
   * What failed writes' `_reconcile` updaters did to `status.metadata` (key → value, `null` =
   * removed), sent again first by the next write: bounded by the metadata keys however long the
   * writes fail, where keeping the updater functions would grow with every emit.
   */
  #carried: Map<string, string | null> | undefined;

  /**
   * @param n - the runner this publishes for.
   * @param sink - where writes go; absent = only the runner's node copy changes.
   * @param debounceMs - write window, ms (runtime-spec §2.9).
   * @param retry - backoff of failed writes; default status-writer.ts `DEFAULT_WRITE_RETRY`.
   */
  constructor(
    readonly n: PublishedNode,
    readonly sink: StatusSink | undefined,
    debounceMs: number,
    retry?: WriteRetry,
  ) {
    this.#writer = new StatusWriter(debounceMs, () => this.#patch(), retry);
  }

  /** Asks for a write (debounced). */
  request(): void {
    this.#writer.request();
  }

  /** Adds a `_reconcile` updater to the next write. */
  addUpdater(u: NodeUpdater): void {
    this.#updaters.push(u);
  }

  /** Status writes waiting or running (tests, diagnostics). */
  get pending(): PendingWrites {
    const w = this.#writer;
    return {
      dirty: w.dirty,
      inFlight: w.inFlight,
      writes: w.writes,
      failures: w.failures,
      updaters: this.#updaters.length,
      carried: this.#carried?.size ?? 0,
      stateKeys: this.n.state.unwrittenKeys,
    };
  }

  /** The failing status writes as an error (node, failures in a row, cause, unwritten state keys), or undefined while they succeed. */
  get writeFailure(): StatusWriteError | undefined {
    const w = this.#writer;
    if (w.failures === 0) return undefined;
    return new StatusWriteError(this.n.name, w.failures, w.retryDelayMs(w.failures), this.n.state.unwritten(), w.lastError);
  }

  /**
   * One status write (runtime-spec §2.4, §2.9), its content read now: what failed writes' updaters
   * changed ({@link #carried}), the `_reconcile` updaters emitted so far, the state keys set since
   * the last write (latest values), then the runtime-owned status fields. A failure rejects (the
   * writer retries with backoff, status-writer.ts): the state entries go back for the next write
   * (later sets win; their sets keep waiting) and the updaters' metadata changes are carried;
   * nothing is dropped unless the node is gone (`"gone"`: state sets rejected, nothing retried).
   */
  async #patch(): Promise<WriteOutcome> {
    const n = this.n;
    const updaters = this.#updaters;
    this.#updaters = [];
    const carried = this.#carried;
    this.#carried = undefined;
    const stateWrites = n.state.takeWrites();
    const { error, ...owned } = n.ownedStatus();
    // `error` last, where this write has always put it; omitted when false (status-patch.ts).
    const patch = statusPatch({ ...owned, error });
    let live = updaters; // a throwing updater faults the node and is dropped; the rest still apply
    const apply = (node: TinyNode) => {
      if (carried) applyMetadata(node, carried);
      live = live.filter((u) => n.guard.call("_reconcile updater", () => (u(node), true), false));
      stateWrites?.apply(node);
      node.status = applyStatusPatch(node.status, patch);
    };
    // On a copy: the runner's node may be the TinyNode informer's own object (the reconciler hands
    // it over), and the sink starts its write from that object — changed in place, the write would
    // find nothing to send.
    const local = structuredClone(n.node());
    const before = { ...local.status?.metadata };
    let outcome: WriteOutcome;
    try {
      apply(local); // inside the try: whatever throws here, what this write took is put back
      n.adopt(local);
      if (!this.sink) {
        stateWrites?.done();
        return;
      }
      outcome = await this.sink.patchStatus(n.name, apply);
    } catch (err) {
      stateWrites?.failed();
      // What this write's updaters changed, after what earlier failed writes carried (already in `before`).
      const changed = new Map([...(carried ?? []), ...metadataChanges(before, local.status?.metadata ?? {}, stateWrites?.keys)]);
      if (changed.size) this.#carried = changed;
      const failures = this.#writer.failures + 1;
      n.log.warn(
        { node: n.name, err: toError(err).message, failures, retryInMs: this.#writer.retryDelayMs(failures), stateKeys: n.state.unwritten() },
        "status write failed; retrying with backoff",
      );
      throw err;
    }
    if (outcome === "gone") {
      stateWrites?.dropped("the node was deleted");
      n.state.close("the node was deleted");
      n.log.debug({ node: n.name }, "status write: node gone");
      return "gone";
    }
    stateWrites?.done();
  }

  /**
   * The stopping node's last write: the pending one, a failure retried with backoff until
   * `deadline` aborts (default {@link DEFAULT_STOP_FLUSH_MS}); then no more writes, and the node
   * state refuses further sets (what could not be written is rejected to its waiters and logged as
   * an error naming the keys). Never rejects.
   */
  async close(deadline: AbortSignal | undefined): Promise<void> {
    const n = this.n;
    let flushed: FlushOutcome;
    try {
      flushed = await this.#writer.flush(deadline ?? AbortSignal.timeout(DEFAULT_STOP_FLUSH_MS));
    } catch (err) {
      n.log.warn({ node: n.name, err: toError(err).message }, "last status write failed");
      flushed = "failed";
    }
    const failure = this.#writer.lastError;
    this.#writer.stop();
    const dropped = n.state.close(flushed === "gone" ? "the node was deleted" : `node ${n.name} stopped before its status write succeeded`);
    if (flushed === "failed") {
      const lost = { stateKeys: dropped, metadataKeys: [...(this.#carried?.keys() ?? [])], updaters: this.#updaters.length };
      n.log.error(
        { node: n.name, ...lost, err: toError(failure).message },
        `node ${n.name} stopped with its status not persisted: state keys ${dropped.join(", ") || "none"} and ${lost.metadataKeys.length + lost.updaters} _reconcile change(s) lost`,
      );
    }
  }
}

/** Sets (or, for `null`, removes) each entry in `node.status.metadata`. */
function applyMetadata(node: TinyNode, entries: ReadonlyMap<string, string | null>): void {
  const status = (node.status ??= {});
  for (const [k, v] of entries) {
    if (v !== null) (status.metadata ??= {})[k] = v;
    else if (status.metadata) delete status.metadata[k];
  }
}

/** The metadata keys whose value differs between `before` and `after` (`null` = removed), except the given state keys (their entries are restored on their own). */
function metadataChanges(
  before: Readonly<Record<string, string>>,
  after: Readonly<Record<string, string>>,
  stateKeys: readonly string[] = [],
): Map<string, string | null> {
  const skip = new Set(stateKeys.map((k) => STATE_PREFIX + k));
  const out = new Map<string, string | null>();
  for (const [k, v] of Object.entries(after)) if (before[k] !== v && !skip.has(k)) out.set(k, v);
  for (const k of Object.keys(before)) if (!(k in after) && !skip.has(k)) out.set(k, null);
  return out;
}
