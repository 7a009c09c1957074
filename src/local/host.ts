/**
 * Local mode: runs the TinyNodes of a directory of manifests in this process, without a cluster or
 * NATS. It plays the parts a cluster plays around the scheduler:
 * - API server + TinyNode watch → {@link readManifestDir} + {@link diffNodes} on every file change;
 * - the TinyNode controller (runtime-spec §5.1) → a serial reconcile queue: added/changed →
 *   `scheduler.update`, removed → `scheduler.destroy` (onDestroy), a `status.metadata` change →
 *   reconcile again, a resync every 5 min;
 * - the status subresource → {@link NodeStore} persisted to a state file, so a restart resumes;
 * - the Lease → this process is always the leader;
 * - the resource manager → {@link LocalModuleClient} (`http://localhost:<port>`);
 * - `send_signal` → the `tinyhost.io/start-signal` annotation (sent to the node's `_control` port
 *   once it is running);
 * - the dashboard's view of failed hops and the log pipeline → one human line per event on the
 *   terminal: hop failures where they happened (rate-limited), static problems (expressions, edges,
 *   names) at load, runtime warnings instead of JSON lines.
 * Ownership follows the node NAME's module segment, as in a cluster (runtime-spec §16 item 1).
 * One process per state file: a lock next to it refuses a second one (src/local/state-lock.ts).
 */
import { existsSync, statSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import { nameMatches, parseFullName, sanitizeResourceName } from "../k8s/api/naming.ts";
import type { Scheduler } from "../runtime/scheduler/scheduler.ts";
import type { ComponentDefinition } from "../sdk/component.ts";
import type { TinyNodeLike, TinyNodeStatusLike } from "../sdk/node.ts";
import { SystemPort } from "../sdk/ports.ts";
import { toError } from "../sdk/result.ts";
import { InProcessTransport } from "../transport/inprocess.ts";
import { FROM_SIGNAL } from "../transport/types.ts";
import { logger } from "../telemetry/log.ts";
import { LocalModuleClient } from "./client.ts";
import { importComponentFile, isReloadable, loadComponentDir } from "./components.ts";
import { collectDesired, diffNodes, type NodeDiff } from "./desired.ts";
import { edgeProblems } from "./edge-check.ts";
import { LocalStartError, ManifestError } from "./errors.ts";
import { FailureLog } from "./failure-log.ts";
import { FlowEvents } from "./flow-events.ts";
import { hopWatchingTracer } from "./hop-watch.ts";
import { HumanLogger } from "./human-log.ts";
import { readManifestDir, isManifestFile, type NodeManifest } from "./manifests.ts";
import { NodeStore, type StatusChange } from "./node-store.ts";
import { LocalReport, type Problem } from "./report.ts";
import type { ListenFailure } from "./listen-watch.ts";
import { LocalScheduler } from "./local-scheduler.ts";
import { shownPath } from "./paths.ts";
import { otelTracer } from "../runtime/runner/tracer.ts";
import { migrateLegacyStateFile, readStateFile, stateFilePath, StateFileWriter } from "./state-file.ts";
import { acquireStateLock, type StateLock } from "./state-lock.ts";
import { watchDirectory } from "./watch.ts";
import {
  DEFAULT_LOCAL_MODULE,
  DEFAULT_LOCAL_NAMESPACE,
  DEFAULT_RESYNC_MS,
  HTTP_PORT_METADATA_KEY,
  HTTP_SERVER_COMPONENT,
  START_SIGNAL_ANNOTATION,
} from "./constants.ts";

/** Options of {@link LocalHost.start}. */
export interface LocalHostOptions {
  /** Directory of manifests (`*.yaml`, `*.yml`). */
  dir: string;
  /** Components directory (default `./components`); ignored when {@link components} is given. */
  componentsDir?: string;
  /** Preloaded components (compiled binary, tests); disables component hot reload. */
  components?: readonly ComponentDefinition[];
  /** Module name (`--name`); default the first node's `spec.module`, else {@link DEFAULT_LOCAL_MODULE}. */
  moduleName?: string;
  /** Module version reported in `status.module` (default `"local"`). */
  moduleVersion?: string;
  /** Namespace reported to components (default {@link DEFAULT_LOCAL_NAMESPACE}). */
  namespace?: string;
  /**
   * State file; default `<dir>/.tinyhost/state.json` (a legacy `<dir>/.tinyhost-state.json` is
   * moved there once); `null` keeps state in memory only.
   */
  statePath?: string | null;
  /** Listen port for the first http_server node (by name), written to its `port` metadata; undefined = leave it. */
  httpPort?: number;
  /** Apply manifest and component edits live (default true). */
  watch?: boolean;
  /** Where the human log goes (default `console.log`). */
  report?: (line: string) => void;
  /** Status-patch debounce of the runners, ms (default 1000, runtime-spec §2.9). */
  debounceMs?: number;
  /** Quiet time before a file change is applied, ms (default 150). */
  watchDebounceMs?: number;
  /** State file write debounce, ms (default 200). */
  stateDebounceMs?: number;
  /** Periodic re-reconcile, ms (default {@link DEFAULT_RESYNC_MS}; 0 = off). */
  resyncMs?: number;
  /** A repeated hop failure or warning is summarised at most once per this window, ms (default 5000). */
  repeatWindowMs?: number;
}

/**
 * The module name local mode runs as: `--name`; else the `spec.module` of the first node whose name
 * carries it (so one node with a mismatched `spec.module` does not decide for all, runtime-spec §8);
 * else the first node's `spec.module`; else "tinyhost".
 */
export function chooseModuleName(explicit: string | undefined, nodes: Iterable<NodeManifest>): string {
  if (explicit) return explicit;
  let first: string | undefined;
  for (const n of nodes) {
    const module = n.node.spec.module;
    if (!module) continue;
    first ??= module;
    if (parseFullName(n.node.metadata.name!).module === sanitizeResourceName(module)) return module;
  }
  return first ?? DEFAULT_LOCAL_MODULE;
}

/** A running local mode. */
export class LocalHost {
  /** The scheduler running the nodes (isLeader = true). */
  readonly scheduler: Scheduler;
  /** Module name (unsanitized, as given or chosen). */
  readonly module: string;
  /** The local platform client handed to `onClient`. */
  readonly client: LocalModuleClient;
  /** Absolute manifests directory. */
  readonly dir: string;
  /** Absolute state file path, or null. */
  readonly statePath: string | null;
  /** The human log. */
  readonly report: LocalReport;

  readonly #options: LocalHostOptions;
  readonly #store: NodeStore;
  readonly #writer: StateFileWriter | undefined;
  readonly #lock: StateLock | undefined;
  /** The manifests directory as shown in messages (src/local/paths.ts). */
  readonly #shownDir: string;
  readonly #failures: FailureLog;
  #desired = new Map<string, NodeManifest>();
  #manifestErrors: ManifestError[] = [];
  /** Broken edges found by the last check (after reconciles). */
  #edgeErrors: ManifestError[] = [];
  #settleQueued = false;
  /** Notes of the last manifest read (skipped documents), so a reload does not repeat them. */
  #notesShown = new Set<string>();
  #componentErrors = new Map<string, string>();
  /** Which file provides which component name (hot reload). */
  readonly #componentFiles = new Map<string, string>();
  readonly #queue = new Set<string>();
  #draining: Promise<void> | undefined;
  #idle = Promise.withResolvers<void>();
  /** Nodes reconciled at least once in this process (for port seeding and signals). */
  readonly #seen = new Set<string>();
  /** Last start-signal value sent per node. */
  readonly #signalled = new Map<string, string>();
  readonly #notOurs = new Set<string>();
  #httpSeeded = false;
  /** The http_server the HTTP port was seeded into (by name), once seeded. */
  #httpSeededNode: string | undefined;
  /** Nodes whose http_server could not bind, with the port it tried (0 when unknown). */
  readonly #listenFailures = new Map<string, ListenFailure & { port: number }>();
  #lastHint: string | undefined;
  #signalsOpen = false;
  #stopped = false;
  readonly #stoppers: Array<() => void> = [];

  private constructor(options: LocalHostOptions, module: string, initialState: ReadonlyMap<string, TinyNodeStatusLike>, lock: StateLock | undefined) {
    this.#options = options;
    this.dir = resolve(options.dir);
    this.#shownDir = shownPath(this.dir);
    this.module = module;
    this.#lock = lock;
    this.report = new LocalReport(options.report);
    this.#failures = new FailureLog((line) => this.report.line(line), options.repeatWindowMs !== undefined ? { windowMs: options.repeatWindowMs } : {});
    this.statePath = options.statePath === null ? null : stateFilePath(this.dir, options.statePath);
    this.client = new LocalModuleClient(options.namespace ?? DEFAULT_LOCAL_NAMESPACE, (port, url) => {
      this.report.line(`listening on ${url}`);
      this.#clearListenFailures(port);
    });
    this.#store = new NodeStore((name) => this.#liveNode(name), (c) => this.#onStatus(c), initialState);
    if (this.statePath) {
      const path = this.statePath;
      this.#writer = new StateFileWriter(path, () => this.#store.all(), options.stateDebounceMs ?? 200, (err) => this.report.line(`error: cannot write state file ${shownPath(path)}: ${err.message}`));
    }
    const transport = new InProcessTransport();
    const events = new FlowEvents(
      {
        stopped: () => this.#stopped,
        componentOf: (name) => this.#desired.get(name)?.node.spec.component,
        runner: (name) => this.scheduler.runner(name),
        listenFailed: (f) => this.#onListenFailure(f),
      },
      this.#failures,
    );
    this.scheduler = new LocalScheduler(
      {
        module: sanitizeResourceName(module),
        remote: transport,
        statusSink: this.#store,
        client: this.client,
        tracer: hopWatchingTracer(otelTracer, events.watcher()),
        debounceMs: options.debounceMs ?? 1000,
        // Warnings and errors become human lines, or are dropped as repeats (src/local/flow-events.ts).
        log: new HumanLogger(logger.child({ component: "local" }), (e) => events.log(e)),
        // Local mode checks edges itself, naming the file and line (#checkEdges).
        warnUnknownEdgePorts: false,
      },
      (name) => this.#desired.has(name),
      () => this.#draining === undefined && this.#queue.size === 0,
    );
    transport.register(sanitizeResourceName(module), (msg, signal) => this.scheduler.handle(msg, signal));
    this.scheduler.isLeader = true; // one process: it holds the "lease" (runtime-spec §6)
    this.#idle.resolve();
  }

  /**
   * Loads components and manifests, reconciles every node, sends start signals, and (unless
   * `watch: false`) watches both directories.
   * @throws LocalStartError when `dir` is not a directory or the components directory is missing;
   *   StateLockedError when another live process runs on the same state file; StateFileError when
   *   the state file is unreadable.
   */
  static async start(options: LocalHostOptions): Promise<LocalHost> {
    const dir = resolve(options.dir);
    if (!existsSync(dir) || !statSync(dir).isDirectory()) throw new LocalStartError(`manifests directory not found: ${shownPath(dir)}`);
    const files = readManifestDir(dir, shownPath(dir));
    const first = collectDesired(files, new Map());
    const module = chooseModuleName(options.moduleName, first.nodes.values());
    const statePath = options.statePath === null ? null : stateFilePath(dir, options.statePath);
    const lock = statePath ? acquireStateLock(statePath) : undefined;
    let host: LocalHost;
    let migrated: string | undefined;
    try {
      if (statePath && options.statePath === undefined) {
        try {
          migrated = migrateLegacyStateFile(dir);
        } catch (err) {
          throw new LocalStartError(`cannot move the old state file to ${statePath}: ${toError(err).message}`, { cause: err });
        }
      }
      const initial = statePath ? readStateFile(statePath) : new Map<string, TinyNodeStatusLike>();
      host = new LocalHost(options, module, initial, lock);
      await host.#loadComponents();
    } catch (err) {
      lock?.release();
      throw err;
    }
    host.report.line(
      `tinyhost local: module ${module} (in-process, leader) · manifests ${displayDir(dir)} · ` +
        `${host.statePath ? `state ${displayDir(host.statePath)}` : "state in memory"} · components ${host.#componentSummary()}`,
    );
    if (lock?.tookOverFrom !== undefined) host.report.line(`state: took over ${displayDir(lock.file)} from pid ${lock.tookOverFrom}, which is no longer running`);
    if (migrated) host.report.line(`state: moved ${displayDir(migrated)} to ${displayDir(statePath!)} (kubectl apply -f <dir> skips sub-directories)`);
    host.#applyDesired(first.nodes, first.errors.concat(), first.notes);
    host.#store.retain((name) => first.nodes.has(name));
    await host.idle();
    host.#hintIfNothingRuns();
    host.#signalsOpen = true;
    for (const name of host.#desired.keys()) host.#maybeSignal(name);
    if (options.watch !== false) host.#watch();
    const resync = options.resyncMs ?? DEFAULT_RESYNC_MS;
    if (resync > 0) {
      const t = setInterval(() => {
        for (const name of host.#desired.keys()) host.#enqueue(name);
      }, resync);
      t.unref?.();
      host.#stoppers.push(() => clearInterval(t));
    }
    return host;
  }

  /** Declared nodes by name (the last good version of each). */
  desired(): ReadonlyMap<string, NodeManifest> {
    return this.#desired;
  }

  /** The current status of node `name` (as it would appear in `TinyNode.status`), if known. */
  status(name: string): TinyNodeStatusLike | undefined {
    return this.#store.has(name) ? this.#store.get(name) : undefined;
  }

  /**
   * http_server nodes that could not bind their port (seen on a failed `start` hop) and have not
   * listened since; `port` is the port they tried (their `port` metadata; 0 when unknown).
   */
  listenFailures(): ReadonlyMap<string, ListenFailure & { port: number }> {
    return this.#listenFailures;
  }

  /** Current manifest problems (from the last read of the directory). */
  manifestErrors(): readonly ManifestError[] {
    return this.#manifestErrors;
  }

  /** Resolves when no reconcile is queued or running. */
  idle(): Promise<void> {
    return this.#idle.promise;
  }

  /**
   * Re-reads the manifests directory and applies the difference (what the watch calls).
   * @returns what changed.
   */
  async reloadManifests(): Promise<NodeDiff> {
    if (this.#stopped) return { added: [], changed: [], removed: [] };
    let files;
    try {
      files = readManifestDir(this.dir, this.#shownDir);
    } catch (err) {
      this.report.line(`error: cannot read ${displayDir(this.dir)}: ${(err as Error).message}`);
      return { added: [], changed: [], removed: [] };
    }
    const next = collectDesired(files, this.#desired);
    const diff = this.#applyDesired(next.nodes, next.errors, next.notes);
    await this.idle();
    this.#hintIfNothingRuns();
    return diff;
  }

  /**
   * Re-imports one component file and recreates the nodes of its component (hot reload). The
   * result is what a fresh start would run: a name the file no longer provides (renamed, file
   * deleted, now invalid or a duplicate) is uninstalled and its nodes show the unknown-component
   * error. One exception for the edit loop: a file that fails to evaluate (a syntax error while
   * typing) is reported and its previous version keeps running.
   * @param file path of the component file.
   * @returns names of the nodes recreated.
   */
  async reloadComponent(file: string): Promise<string[]> {
    const abs = resolve(file);
    const previous = this.#componentFiles.get(abs);
    if (!existsSync(abs)) {
      this.#componentErrors.delete(abs);
      this.#componentFiles.delete(abs);
      if (previous !== undefined) await this.#retireComponent(previous, `${displayDir(abs)} was removed`, abs);
      this.#reportProblems();
      return [];
    }
    let loaded;
    try {
      loaded = await importComponentFile(abs);
    } catch (err) {
      this.#componentErrors.set(abs, toError(err).message);
      // INVALID_COMPONENT: the file evaluated but exports no valid component (e.g. an invalid name).
      if (previous !== undefined && (err as { code?: unknown }).code === "INVALID_COMPONENT") {
        this.#componentFiles.delete(abs);
        await this.#retireComponent(previous, `${displayDir(abs)} no longer defines a valid component`, abs);
      }
      this.#reportProblems();
      return [];
    }
    this.#componentErrors.delete(abs);
    const name = loaded.definition.info.name;
    const owner = [...this.#componentFiles].find(([f, n]) => n === name && f !== abs);
    if (owner) {
      this.#componentErrors.set(abs, `${loaded.source}: component "${name}" is already defined in ${displayDir(owner[0])}; ignored`);
      this.#componentFiles.delete(abs);
      if (previous !== undefined) await this.#retireComponent(previous, `${loaded.source} now defines "${name}"`, abs);
      this.#reportProblems();
      return [];
    }
    this.#componentFiles.set(abs, name);
    this.scheduler.install(loaded.definition);
    const nodes = [...this.#desired.values()].filter((e) => e.node.spec.component === name).map((e) => e.node.metadata.name!);
    this.report.line(`reloaded ${loaded.source} (${name})${nodes.length ? `: recreating ${nodes.length} node${nodes.length === 1 ? "" : "s"}` : ""}`);
    if (previous !== undefined && previous !== name) await this.#retireComponent(previous, `${loaded.source} now defines "${name}"`, abs);
    this.#reportProblems();
    for (const n of nodes) this.#enqueue(n);
    await this.idle();
    return nodes;
  }

  /**
   * Stops watching, stops every runner without onDestroy (a restart resumes them), and writes the
   * state file. Safe to call twice.
   */
  async stop(): Promise<void> {
    if (this.#stopped) return;
    this.#stopped = true;
    for (const s of this.#stoppers.splice(0)) s();
    this.#queue.clear();
    await this.#draining;
    await this.scheduler.stopAll();
    this.#writer?.close();
    this.#failures.flush();
    this.#lock?.release();
  }

  // ----- components -------------------------------------------------------------------------

  /**
   * Component `name` lost its file: unless another file still provides it, uninstall it (its
   * runners stop without onDestroy — the nodes still exist) and reconcile its nodes, which then
   * report the unknown component as on a fresh start. Files refused earlier (e.g. as a duplicate
   * of `name`) are retried, since one of them may provide it now.
   * @param why the cause, for the log line.
   * @param except the file being reloaded (not retried).
   */
  async #retireComponent(name: string, why: string, except: string): Promise<void> {
    if ([...this.#componentFiles.values()].includes(name)) return;
    const stopped = await this.scheduler.uninstall(name);
    this.report.line(`component ${name} is gone: ${why}${stopped.length ? `; stopped ${stopped.length} node${stopped.length === 1 ? "" : "s"}` : ""}`);
    for (const entry of this.#desired.values()) if (entry.node.spec.component === name) this.#enqueue(entry.node.metadata.name!);
    for (const f of [...this.#componentErrors.keys()]) {
      if (f !== except && !this.#componentFiles.has(f) && existsSync(f)) await this.reloadComponent(f);
    }
  }

  async #loadComponents(): Promise<void> {
    if (this.#options.components) {
      for (const def of this.#options.components) this.scheduler.install(def);
      if (this.#options.componentsDir === undefined) return; // else the directory's files add to (and may replace) the bundled set
    }
    const dir = resolve(this.#options.componentsDir ?? "components");
    let result;
    try {
      result = await loadComponentDir(dir);
    } catch (err) {
      throw new LocalStartError(toError(err).message, { cause: err });
    }
    for (const c of result.components) {
      this.scheduler.install(c.definition);
      this.#componentFiles.set(c.file, c.definition.info.name);
    }
    // Keyed by the refused file: the last one named (a duplicate names the kept file first).
    for (const e of result.errors) this.#componentErrors.set(e.files.length ? resolve(e.files.at(-1)!) : e.message, e.message);
  }

  #componentSummary(): string {
    const names = [...new Set(this.#componentFiles.values())].sort();
    if (this.#options.components) return `${this.#options.components.length} bundled`;
    return `${names.length} from ${displayDir(resolve(this.#options.componentsDir ?? "components"))}`;
  }

  // ----- desired state ----------------------------------------------------------------------

  #applyDesired(next: Map<string, NodeManifest>, errors: ManifestError[], notes: string[]): NodeDiff {
    const diff = diffNodes(this.#desired, next);
    this.#desired = next;
    this.#manifestErrors = errors;
    for (const name of [...diff.changed, ...diff.removed]) this.#failures.forget(name);
    // A skipped document is noted when it first appears, not again on every reload.
    for (const n of notes) if (!this.#notesShown.has(n)) this.report.line(`note: ${n}`);
    this.#notesShown = new Set(notes);
    for (const name of [...diff.added, ...diff.changed, ...diff.removed]) this.#enqueue(name);
    this.#reportProblems();
    return diff;
  }

  /**
   * One line when no node would run — an empty directory or a `--name` that matches no node's
   * module segment — so a silent run with zero nodes is never the only outcome. Printed again only
   * when the situation changes.
   */
  #hintIfNothingRuns(): void {
    const hint = nothingRunsHint(this.module, displayDir(this.dir), [...this.#desired.keys()], this.#manifestErrors.length);
    if (hint !== undefined && hint !== this.#lastHint) this.report.line(`note: ${hint}`);
    this.#lastHint = hint;
  }

  #owned(entry: NodeManifest): boolean {
    const name = entry.node.metadata.name!;
    const segment = parseFullName(name).module;
    if (nameMatches(segment, this.module)) return true;
    if (!this.#notOurs.has(name)) {
      this.#notOurs.add(name);
      this.report.line(`note: ${entry.file}:${entry.line}: node ${name} belongs to module ${segment}, not ${this.module}; not run here`);
    }
    return false;
  }

  /** The live node for status patches: declared spec + stored status; undefined once deleted. */
  #liveNode(name: string): TinyNodeLike | undefined {
    const entry = this.#desired.get(name);
    if (!entry && !this.scheduler.runner(name)) return undefined;
    const node = entry?.node ?? this.scheduler.runner(name)!.node;
    return { metadata: node.metadata as TinyNodeLike["metadata"], spec: node.spec };
  }

  // ----- reconcile queue --------------------------------------------------------------------

  #enqueue(name: string): void {
    if (this.#stopped) return;
    this.#queue.add(name);
    if (this.#draining) return;
    this.#idle = Promise.withResolvers<void>();
    this.#draining = this.#drain().finally(() => {
      this.#draining = undefined;
      this.#idle.resolve();
    });
  }

  async #drain(): Promise<void> {
    while (this.#queue.size > 0 && !this.#stopped) {
      const name = this.#queue.values().next().value!;
      this.#queue.delete(name);
      try {
        await this.#reconcile(name);
      } catch (err) {
        this.report.line(`error: ${this.#where(name)}node ${name}: ${toError(err).message}`);
      }
    }
    if (this.#stopped) return;
    // Every reconcile of this batch is done: ports are known, so edges can be checked, and fixes
    // can be announced without a new error right behind them.
    this.#checkEdges();
    this.#reportProblems();
    this.#settle(true);
  }

  /** `<file>:<line>: ` of node `name`'s manifest, or `""` when it has none. */
  #where(name: string): string {
    const entry = this.#desired.get(name);
    return entry ? `${entry.file}:${entry.line}: ` : "";
  }

  async #reconcile(name: string): Promise<void> {
    const entry = this.#desired.get(name);
    if (!entry || !this.#owned(entry)) {
      const runner = this.scheduler.runner(name);
      if (runner) {
        const component = runner.instance.definition.info.name;
        await this.scheduler.destroy(name); // deleted node: onDestroy (runtime-spec §14.7)
        this.report.nodeRemoved(name, component);
      }
      this.#store.delete(name);
      this.#listenFailures.delete(name);
      this.#seen.delete(name);
      this.#signalled.delete(name);
      this.#writer?.schedule();
      return;
    }
    const component = entry.node.spec.component;
    if (!this.scheduler.installed(component)) {
      // A reconcile that raced the component's removal may have left a runner: stop it too.
      if (this.scheduler.runner(name)) await this.scheduler.uninstall(component);
      const status = { status: this.#unknownComponent(entry).detail, error: true };
      this.report.statusShown(name, component, status); // the problem list prints it, with file and line
      this.#store.merge(name, status);
      this.#reportProblems();
      return;
    }
    this.#seedHttpPort(entry);
    const status = this.#store.get(name);
    const node: TinyNodeLike = {
      metadata: structuredClone(entry.node.metadata) as TinyNodeLike["metadata"],
      spec: structuredClone(entry.node.spec),
      status: structuredClone(status),
    };
    let result: TinyNodeStatusLike;
    try {
      result = await this.scheduler.update(node);
    } catch (err) {
      result = { status: toError(err).message, error: true };
    }
    this.#store.merge(name, {
      ...result,
      module: { name: this.module, version: this.#options.moduleVersion ?? "local" },
      observedGeneration: entry.node.metadata.generation ?? 1,
      lastUpdateTime: new Date().toISOString(),
    });
    this.#reportProblems();
    const first = !this.#seen.has(name);
    this.#seen.add(name);
    if (first || this.#signalsOpen) this.#maybeSignal(name);
  }

  #unknownComponent(entry: NodeManifest): ManifestError {
    const c = entry.node.spec.component;
    return new ManifestError("UNKNOWN_COMPONENT", entry.file, entry.line, entry.node.metadata.name!, `component ${JSON.stringify(c)} is not registered (known: ${this.#knownComponents()})`);
  }

  #knownComponents(): string {
    const names = new Set([...this.#componentFiles.values(), ...(this.#options.components ?? []).map((d) => d.info.name)]);
    return names.size ? [...names].sort().join(", ") : "none";
  }

  /** The first http_server node (by name) listens on `httpPort`: seed its persisted `port` metadata once per process. */
  #seedHttpPort(entry: NodeManifest): void {
    const port = this.#options.httpPort;
    if (port === undefined || this.#httpSeeded || entry.node.spec.component !== HTTP_SERVER_COMPONENT) return;
    const firstHttp = [...this.#desired.values()]
      .filter((e) => e.node.spec.component === HTTP_SERVER_COMPONENT && this.#owned(e))
      .map((e) => e.node.metadata.name!)
      .sort()[0];
    if (firstHttp === undefined || firstHttp !== entry.node.metadata.name) return;
    this.#httpSeeded = true;
    this.#httpSeededNode = firstHttp;
    const status = this.#store.get(firstHttp);
    status.metadata = { ...status.metadata, [HTTP_PORT_METADATA_KEY]: String(port) };
  }

  /** Sends the node's start signal (annotation) when the node runs and the value was not sent yet. */
  #maybeSignal(name: string): void {
    if (!this.#signalsOpen || this.#stopped) return;
    const entry = this.#desired.get(name);
    const raw = entry?.node.metadata.annotations?.[START_SIGNAL_ANNOTATION];
    if (!entry || raw === undefined || !this.scheduler.runner(name)) return;
    if (this.#signalled.get(name) === raw) return;
    this.#signalled.set(name, raw);
    let data: unknown;
    try {
      data = JSON.parse(raw);
    } catch (err) {
      this.report.line(`error: ${entry.file}:${entry.line}: node ${name}: annotation ${START_SIGNAL_ANNOTATION} is not JSON (${(err as Error).message})`);
      return;
    }
    void this.scheduler.handle({ edgeId: "", from: FROM_SIGNAL, to: `${name}:_control`, data, depth: 0 }).then((r) => {
      // Printed unless the hop's own span already did (the usual case); a hop that never reached
      // the node (no `_control` port) is only known here.
      if (r.kind === "fail" && !this.#stopped) this.#failures.hop(name, SystemPort.control, FROM_SIGNAL, r.error);
    });
  }

  // ----- status -----------------------------------------------------------------------------

  /**
   * An http_server could not bind: pin the error on its status and say what to do — one line, the
   * node's status line, once per failure (a restore on reconcile and the start hop that follows
   * are the same event).
   */
  #onListenFailure(f: ListenFailure): void {
    if (this.#stopped) return;
    const port = Number(this.#store.get(f.node).metadata?.[HTTP_PORT_METADATA_KEY] ?? 0) || 0;
    const known = this.#listenFailures.get(f.node);
    this.#listenFailures.set(f.node, { ...f, port });
    if (known?.error.message !== f.error.message) {
      const advice = f.inUse && port > 0 ? `port ${port} is in use${f.node === this.#httpSeededNode ? ": set PORT or --port" : ""}` : f.error.message;
      // Printed here, with advice; the status write below then finds the line already shown.
      this.report.nodeError(f.node, HTTP_SERVER_COMPONENT, { status: f.error.message, error: true }, `${this.#where(f.node)}${advice} (the other nodes keep running)`);
    }
    this.#store.setProblem(f.node, f.error.message);
  }

  /** The http_server on `port` listens now: its earlier bind failure is over. */
  #clearListenFailures(port: number): void {
    for (const [name, f] of this.#listenFailures) {
      if (f.port !== port) continue;
      this.#listenFailures.delete(name);
      this.#store.setProblem(name, undefined);
      const status = this.scheduler.readStatus(name);
      if (status) this.#store.merge(name, { status: status.status, error: status.error });
    }
  }

  #onStatus(change: StatusChange): void {
    this.#writer?.schedule();
    const entry = this.#desired.get(change.name);
    const component = entry?.node.spec.component ?? "";
    if (entry) this.report.nodeStatus(change.name, component, change.after, `${entry.file}:${entry.line}`);
    if (component === "debug") this.report.debugValue(change.name, change.after);
    // runtime-spec §5.1 predicate: a status.metadata change reconciles the node again.
    if (change.fromRunner && change.metadataChanged && entry && !this.#stopped) this.#enqueue(change.name);
  }

  #reportProblems(): void {
    const problems: Problem[] = this.#manifestErrors.map(asProblem);
    for (const entry of this.#desired.values()) {
      if (!this.scheduler.installed(entry.node.spec.component) && this.#owned(entry)) problems.push(asProblem(this.#unknownComponent(entry)));
    }
    problems.push(...this.#edgeErrors.map(asProblem));
    for (const text of this.#componentErrors.values()) problems.push({ level: "error", text });
    this.report.problems(problems);
    // Fixes are announced once no reconcile is pending (a reconcile may uncover a new error).
    if (!this.#settleQueued) {
      this.#settleQueued = true;
      queueMicrotask(() => {
        this.#settleQueued = false;
        this.#settle(false);
      });
    }
  }

  /**
   * Announces fixed problems ({@link LocalReport.settle}) — only when no reconcile is queued or
   * running, unless `force` (the drain's own end, whose promise has not settled yet).
   */
  #settle(force: boolean): void {
    if (this.#stopped || (!force && (this.#draining !== undefined || this.#queue.size > 0))) return;
    const inError = [...this.#desired.keys()].filter((n) => this.#store.has(n) && this.#store.get(n).error === true);
    this.report.settle(inError);
  }

  /** Re-checks every edge of the nodes run here against the declared nodes and running ports. */
  #checkEdges(): void {
    this.#edgeErrors = edgeProblems({
      nodes: this.#desired,
      module: this.module,
      runsHere: (entry) => this.#owned(entry),
      portsOf: (name) => {
        const r = this.scheduler.runner(name);
        if (!r || r.lastError) return undefined;
        try {
          return { component: r.instance.definition.info.name, ports: r.ports() };
        } catch {
          return undefined; // a throwing ports(): its hops report it
        }
      },
    });
  }

  // ----- watching ---------------------------------------------------------------------------

  #watch(): void {
    const debounceMs = this.#options.watchDebounceMs ?? 150;
    const stateName = this.statePath ? relative(this.dir, this.statePath) : "";
    const lockName = this.#lock ? relative(this.dir, this.#lock.file) : "";
    try {
      this.#stoppers.push(
        watchDirectory(this.dir, {
          debounceMs,
          onChange: (paths) => {
            const relevant = [...paths].some((p) => p === "" || (p !== stateName && p !== lockName && isManifestFile(p.split("/").pop()!)));
            if (relevant) void this.reloadManifests();
          },
          onError: (err) => this.report.line(`error: watching ${displayDir(this.dir)} stopped: ${err.message}`),
        }),
      );
    } catch (err) {
      this.report.line(`error: cannot watch ${displayDir(this.dir)}: ${toError(err).message}`);
    }
    // Edits made between the first read and this watch would otherwise wait for the next one.
    void this.reloadManifests();
    if (this.#options.components) return;
    const cdir = resolve(this.#options.componentsDir ?? "components");
    try {
      this.#stoppers.push(
        watchDirectory(cdir, {
          recursive: true,
          debounceMs,
          onChange: (paths) => {
            void (async () => {
              for (const p of [...paths].sort()) if (p !== "" && isReloadable(p)) await this.reloadComponent(join(cdir, p));
            })();
          },
          onError: (err) => this.report.line(`error: watching ${displayDir(cdir)} stopped: ${err.message}`),
        }),
      );
    } catch (err) {
      this.report.line(`error: cannot watch ${displayDir(cdir)}: ${toError(err).message}`);
    }
  }
}

/**
 * Why nothing runs, or undefined when some node's name carries module `module` (ownership by the
 * name's module segment, runtime-spec §16 item 1).
 * @param module the module local mode runs as.
 * @param dir the manifests directory as shown to the user.
 * @param names the declared TinyNode names.
 * @param errors how many manifest problems were reported (mentioned when no node was read).
 * @returns e.g. `no nodes for module x in examples/a: found nodes of modules [a, b]`, or
 *   `no TinyNode manifests in examples/a`.
 */
export function nothingRunsHint(module: string, dir: string, names: readonly string[], errors = 0): string | undefined {
  if (names.length === 0) return `no TinyNode manifests in ${dir}${errors > 0 ? " (see the errors above)" : ""}`;
  const modules = new Set(names.map((n) => parseFullName(n).module));
  if ([...modules].some((m) => nameMatches(m, module))) return undefined;
  return `no nodes for module ${module} in ${dir}: found nodes of modules [${[...modules].sort().join(", ")}]`;
}

/** A path as shown in messages (src/local/paths.ts). */
function displayDir(abs: string): string {
  return shownPath(abs);
}

/** A manifest problem for the report: keyed without its line, so a problem that only moved is not news. */
function asProblem(e: ManifestError): Problem {
  return { level: e.severity, text: e.message, ...(e.node ? { node: e.node } : {}), key: `${e.code}\u0000${e.file}\u0000${e.node}\u0000${e.detail}` };
}
