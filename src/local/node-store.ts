/**
 * Node status in local mode: the in-memory stand-in for the TinyNode status subresource. Runners
 * patch it through {@link StatusSink} (runtime-spec §2.4: apply updaters to the live object, then
 * write status), the host merges reconcile results into it, and a debounced writer persists it.
 */
import type { StatusSink } from "../runtime/runner/runner.ts";
import type { TinyNodeLike, TinyNodeStatusLike } from "../sdk/node.ts";

/** What a status write changed, for the host's reconcile predicate and the log. */
export interface StatusChange {
  /** Node name. */
  name: string;
  /** Status before the write (a copy). */
  before: TinyNodeStatusLike;
  /** Status after the write (live; do not mutate). */
  after: TinyNodeStatusLike;
  /** True when `status.metadata` differs (runtime-spec §5.1: such a change triggers a reconcile). */
  metadataChanged: boolean;
  /** True when the write came from a runner's debounced patch (not from a reconcile result). */
  fromRunner: boolean;
}

/** Statuses by node name; a {@link StatusSink} for the scheduler. */
export class NodeStore implements StatusSink {
  readonly #statuses = new Map<string, TinyNodeStatusLike>();
  readonly #problems = new Map<string, string>();

  /**
   * @param specOf the node a patch applies to (name, labels, spec), or undefined when it is gone —
   *   a patch for a gone node is dropped, as the API server refuses writes to a deleted object.
   * @param onChange called after every write.
   * @param initial statuses restored from the state file.
   */
  constructor(
    readonly specOf: (name: string) => TinyNodeLike | undefined,
    readonly onChange: (change: StatusChange) => void,
    initial: ReadonlyMap<string, TinyNodeStatusLike> = new Map(),
  ) {
    for (const [name, status] of initial) this.#statuses.set(name, structuredClone(status));
  }

  /** The stored status of `name` (live object; empty when unknown). */
  get(name: string): TinyNodeStatusLike {
    let s = this.#statuses.get(name);
    if (!s) {
      s = {};
      this.#statuses.set(name, s);
    }
    return s;
  }

  /** True when a status is stored for `name`. */
  has(name: string): boolean {
    return this.#statuses.has(name);
  }

  /** Every stored status (live map; for the state file). */
  all(): ReadonlyMap<string, TinyNodeStatusLike> {
    return this.#statuses;
  }

  /** Forgets `name` (node deleted), with its problem. */
  delete(name: string): void {
    this.#statuses.delete(name);
    this.#problems.delete(name);
  }

  /**
   * Pins a problem local mode found outside the runtime (an http_server that cannot bind) onto the
   * status of `name`: until cleared, every write keeps `status` = `message` and `error` = true, so a
   * later reconcile's "OK" does not hide it. `undefined` unpins without a write (the caller then
   * merges the runtime's own status).
   */
  setProblem(name: string, message: string | undefined): void {
    if (message === undefined) {
      this.#problems.delete(name);
      return;
    }
    this.#problems.set(name, message);
    this.#write(name, false, () => {});
  }

  /** The pinned problem of `name`, if any. */
  problem(name: string): string | undefined {
    return this.#problems.get(name);
  }

  /** Keeps only the names `keep` accepts (drops state of nodes no longer declared). */
  retain(keep: (name: string) => boolean): void {
    for (const name of [...this.#statuses.keys()]) if (!keep(name)) this.#statuses.delete(name);
  }

  /** Merges `fields` into the status of `name` (a reconcile result). */
  merge(name: string, fields: TinyNodeStatusLike): void {
    this.#write(name, false, (status) => Object.assign(status, fields));
  }

  /** {@link StatusSink}: applies `mutate` to the live node (spec + stored status) and keeps its status. */
  async patchStatus(nodeName: string, mutate: (node: TinyNodeLike) => void): Promise<void> {
    const spec = this.specOf(nodeName);
    if (!spec) return;
    this.#write(nodeName, true, (status) => {
      const live: TinyNodeLike = { metadata: spec.metadata, spec: spec.spec, status };
      mutate(live);
      return live.status ?? {};
    });
  }

  #write(name: string, fromRunner: boolean, change: (status: TinyNodeStatusLike) => TinyNodeStatusLike | void): void {
    const current = this.get(name);
    const before = structuredClone(current);
    const result = change(current);
    const after = result && result !== current ? result : current;
    const problem = this.#problems.get(name);
    if (problem !== undefined) {
      after.status = problem;
      after.error = true;
    }
    this.#statuses.set(name, after);
    const metadataChanged = !Bun.deepEquals(before.metadata ?? {}, after.metadata ?? {}, false);
    this.onChange({ name, before, after, metadataChanged, fromRunner });
  }
}
