/**
 * Local mode's state keeping: the state file (what every node's status and finalizers are, and the
 * kept states of removed nodes, ./saved-states.ts), written debounced after every node change; the
 * state lock, checked now and then and re-created when deleted; and the pruning of removed nodes'
 * states past their keep period. It subscribes itself to the host's node changes (./host-events.ts).
 */
import type { TinyNode } from "../core/node.ts";
import { toError } from "../core/result.ts";
import { shownPath } from "../telemetry/shown-path.ts";
import type { LocalHostEvents } from "./host-events.ts";
import type { NodeSeed } from "./node-api.ts";
import { KEEP_REMOVED_STATE_MS, SavedStates } from "./saved-states.ts";
import { StateFileWriter, type StateEntry } from "./state-file.ts";
import type { StateLock } from "./state-lock.ts";

/** Default of {@link StateKeeperOptions.lockCheckMs}, ms: a deleted lock is back before a second process is likely to start. */
export const LOCK_CHECK_MS = 2000;

/** Options of {@link StateKeeper}. */
export interface StateKeeperOptions {
  /** The host's events; the keeper subscribes to node changes. */
  events: LocalHostEvents;
  /** Absolute state file path, or null (state in memory only). */
  statePath: string | null;
  /** The state file's lock (taken before the host was built), if any. */
  lock: StateLock | undefined;
  /** The state file's entries read at start. */
  restored: ReadonlyMap<string, StateEntry>;
  /** Names of the nodes the manifests declared at start. */
  declared: ReadonlySet<string>;
  /** The nodes in the API now (what the state file holds). */
  nodes: () => Iterable<TinyNode>;
  /** Prints a line of the human log. */
  line: (text: string) => void;
  /** True once the host stops (the lock is no longer checked). */
  stopped: () => boolean;
  /** A removed node's state is kept this long, ms (default {@link KEEP_REMOVED_STATE_MS}). */
  keepRemovedStateMs?: number | undefined;
  /** State file write debounce, ms (default 200). */
  stateDebounceMs?: number | undefined;
  /** How often the lock is checked, ms (default {@link LOCK_CHECK_MS}). */
  lockCheckMs?: number | undefined;
}

/** The state file, its lock and the saved states (see the file comment). */
export class StateKeeper {
  /** States of nodes not in the API now: restored ones not created yet, removed ones kept. */
  readonly #saved: SavedStates;
  readonly #writer: StateFileWriter | undefined;
  #lockTimer: ReturnType<typeof setInterval> | undefined;
  /** Pid of another process last reported holding our lock (said once). */
  #lockLostTo: number | undefined;
  #pruneTimer: ReturnType<typeof setInterval> | undefined;

  constructor(readonly o: StateKeeperOptions) {
    this.#saved = new SavedStates(o.restored, o.declared, o.keepRemovedStateMs);
    if (o.statePath) {
      const path = o.statePath;
      this.#writer = new StateFileWriter(
        path,
        () => this.#snapshot(),
        o.stateDebounceMs ?? 200,
        (err) => o.line(`error: cannot write state file ${shownPath(path)}: ${err.message}`),
        () => this.#checkLock(),
      );
    }
    o.events.on("nodeChanged", (c) => {
      if (!c.after && c.before) this.#saved.park(c.name, { ...(c.before.status ? { status: c.before.status } : {}) });
      this.#writer?.schedule();
    });
  }

  /** The saved state node `name` starts with (restored, or kept since it was removed: said so), taken. */
  take(name: string): NodeSeed | undefined {
    const saved = this.#saved.take(name);
    if (saved?.removedAt !== undefined)
      this.o.line(`state: node ${name} is back: it resumes the state it had when it was removed at ${new Date(saved.removedAt).toISOString()}`);
    return saved?.seed;
  }

  /** After the first read: drops what is past its keep period and starts the prune and lock checks (unref'd timers). */
  start(): void {
    this.#prune();
    // Checked a few times per keep period; unref'd, so it never keeps the process alive.
    const keepMs = this.o.keepRemovedStateMs ?? KEEP_REMOVED_STATE_MS;
    this.#pruneTimer = setInterval(() => this.#prune(), Math.max(10, Math.min(60_000, keepMs / 4)));
    this.#pruneTimer.unref?.();
    if (this.o.lock) {
      this.#lockTimer = setInterval(() => this.#checkLock(), this.o.lockCheckMs ?? LOCK_CHECK_MS);
      this.#lockTimer.unref?.();
    }
  }

  /** Stops the checks, writes the state file a last time and releases the lock. */
  stop(): void {
    clearInterval(this.#pruneTimer);
    clearInterval(this.#lockTimer);
    this.#writer?.close();
    this.o.lock?.release();
  }

  /** Re-creates the state lock when it was deleted (e.g. with `<dir>/.tinyhost`); says so, and says once when another process holds it. */
  #checkLock(): void {
    const lock = this.o.lock;
    if (!lock || this.o.stopped()) return;
    let r: ReturnType<StateLock["ensure"]>;
    try {
      r = lock.ensure();
    } catch (err) {
      this.o.line(`error: cannot re-create the state lock ${shownPath(lock.file)}: ${toError(err).message}`);
      return;
    }
    if (r === "recreated") {
      this.#lockLostTo = undefined;
      this.o.line(
        `state: ${shownPath(lock.file)} was deleted while this process runs; re-created it, so no second tinyhost starts on ${shownPath(this.o.statePath!)}`,
      );
    } else if (typeof r === "number" && r !== this.#lockLostTo) {
      this.#lockLostTo = r;
      this.o.line(
        `error: ${shownPath(lock.file)} now names pid ${r}: another tinyhost runs on ${shownPath(this.o.statePath!)} too, and both write it; stop one of them`,
      );
    }
  }

  /** Drops the kept states of nodes removed longer ago than the keep period, saying so. */
  #prune(): void {
    const dropped = this.#saved.prune();
    for (const [name, removedAt] of dropped) {
      this.o.line(
        `state: dropped the saved state of node ${name}: its manifest has been gone since ${new Date(removedAt).toISOString()} (a removed node's state is kept ${formatKeep(this.#saved.keepMs)})`,
      );
    }
    if (dropped.length) this.#writer?.schedule();
  }

  /** The state file's contents: status and finalizers of every node that has either, and the kept states of removed nodes. */
  #snapshot(): Map<string, StateEntry> {
    const out: Map<string, StateEntry> = this.#saved.removed();
    for (const n of this.o.nodes()) {
      if (!n.status && !n.metadata.finalizers?.length) continue;
      out.set(n.metadata.name, { status: n.status ?? {}, ...(n.metadata.finalizers?.length ? { finalizers: n.metadata.finalizers } : {}) });
    }
    return out;
  }
}

/** `1 h`, `10 min`, `30 s` or `250 ms`: a keep period as the state lines show it. */
function formatKeep(ms: number): string {
  if (ms >= 3_600_000 && ms % 3_600_000 === 0) return `${ms / 3_600_000} h`;
  if (ms >= 60_000 && ms % 60_000 === 0) return `${ms / 60_000} min`;
  if (ms >= 1000 && ms % 1000 === 0) return `${ms / 1000} s`;
  return `${ms} ms`;
}
