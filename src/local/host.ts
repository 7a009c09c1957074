/**
 * Local mode: the TinyNodes of a directory of manifests, run in this process without a cluster or
 * NATS — by the same TinyNode controller and reconciler a cluster runs (src/k8s/controllers), under
 * the same manager of runnables (src/manager). Only what a cluster would provide is local:
 * - the API server → {@link LocalNodes} (./node-api.ts), filled from the manifests by the
 *   {@link DirectorySource}, persisted to the state file under a lock (one process per state file);
 *   TinyComponents → the cluster's reconciler over an in-memory API (./tiny-components.ts);
 * - the other modules of a flow → every module of the directory runs here (./modules.ts), hops
 *   between them through ./local-transport.ts;
 * - the Lease → this process is always the leader;
 * - the resource manager → {@link LocalModuleClient} (`http://localhost:<port>`);
 * - `send_signal` → the `tinyhost.io/start-signal` annotation, and {@link LocalHost.send};
 * - the dashboard and the log pipeline → the terminal: node status lines and problems
 *   (./terminal.ts), hop failures where they happened, rate-limited, runtime warnings as human
 *   lines and every debug node's messages (./flow-events.ts), each printed once (./report.ts),
 *   nodes named by their labels (./node-names.ts); and the console (src/console), a runnable the
 *   caller adds ({@link LocalHostOptions.runnables}) over {@link LocalHost.nodes},
 *   {@link LocalHost.onHop} and {@link LocalHost.send}.
 * Runnables by group: servers (the optional health server) → stores (state file and lock) →
 * runners (components, then the scheduler's runners) → controllers (manifests, the TinyNode
 * controller, the file watches) → receivers (start signals, once every node was reconciled).
 */
import type { ComponentLogger } from "../core/context.ts";
import { existsSync, readdirSync, statSync } from "node:fs";
import { join, resolve } from "node:path";
import { nameMatches, parseFullName, sanitizeResourceName } from "../core/api/naming.ts";
import { DEFAULT_NODE_WORKERS, kubeStatusSink, LEADER_REQUEUE_MS, tinyNodeController, type TinyNodeController } from "../k8s/controllers/index.ts";
import type { KubeObject } from "../k8s/client/types.ts";
import type { Controller } from "../k8s/runtime/controller.ts";
import type { Watcher } from "../k8s/runtime/watcher.ts";
import { httpDrain, Manager, ManagerStartError, onStop, task, type Runnable, type RunnableGroup } from "../manager/index.ts";
import { healthServer, type HealthServer } from "../operator/health.ts";
import { moduleMetrics } from "../operator/metrics.ts";
import { isComponentFile } from "../runtime/registry/files.ts";
import type { ComponentDefinition } from "../core/component.ts";
import type { TinyNodeStatus } from "../core/node.ts";
import type { TinyComponentStatus } from "../core/api/v1alpha1.ts";
import { SystemPort } from "../core/ports.ts";
import { toError, type Result } from "../core/result.ts";
import { logger, type Logger } from "../telemetry/log.ts";
import { SDK_VERSION } from "../core/version.ts";
import { FROM_SIGNAL } from "../core/hop.ts";
import { LocalModuleClient } from "./client.ts";
import { ComponentFiles } from "./component-files.ts";
import { DEFAULT_LOCAL_MODULE, DEFAULT_LOCAL_NAMESPACE, HTTP_PORT_METADATA_KEY, HTTP_SERVER_COMPONENT } from "./constants.ts";
import { collectDesired, type DesiredSet } from "./desired.ts";
import { DirectorySource, REMOVE_GRACE_MS, type NodeDiff } from "./directory-source.ts";
import { LocalStartError, type ManifestError } from "./errors.ts";
import { DebugLines } from "./debug-lines.ts";
import { FailureLog } from "./failure-log.ts";
import { FlowEvents, type HopListener } from "./flow-events.ts";
import { hopWatching, type HopRecord } from "./hop-watch.ts";
import { HumanLogger } from "./human-log.ts";
import type { ListenFailure } from "./listen-watch.ts";
import { LocalScheduler } from "./local-scheduler.ts";
import { LocalTransport } from "./local-transport.ts";
import { LocalModules, platformModule } from "./modules.ts";
import { SpanTap, type SpanListener } from "./span-tap.ts";
import { LocalTinyComponents } from "./tiny-components.ts";
import { withoutStartFailures } from "./manager-log.ts";
import { readManifestDir, type NodeManifest } from "./manifests.ts";
import { LocalNodes, type NodeSeed } from "./node-api.ts";
import { shownPath } from "../telemetry/shown-path.ts";
import { displayNames } from "./node-names.ts";
import { LocalReport } from "./report.ts";
import { migrateLegacyStateFile, readStateFile, stateFilePath, type StateEntry } from "./state-file.ts";
import { KEEP_REMOVED_STATE_MS } from "./saved-states.ts";
import { acquireStateLock, type StateLock } from "./state-lock.ts";
import { LocalHostEvents } from "./host-events.ts";
import { LOCK_CHECK_MS, StateKeeper } from "./state-keeper.ts";
import { StartSignals } from "./start-signals.ts";
import { LocalTerminal } from "./terminal.ts";
import { watchDirectory } from "./watch.ts";
import { localSecretSource } from "../runtime/secrets/index.ts";

export { LOCK_CHECK_MS };

/** Options of {@link LocalHost.start}. */
export interface LocalHostOptions {
  /** Directory of manifests (`*.yaml`, `*.yml`). */
  dir: string;
  /** Components directory (default `./components`, unless {@link components} is given; with it, its files add to them). */
  componentsDir?: string;
  /** Preloaded components (compiled binary, tests); without {@link componentsDir} there is no component hot reload. */
  components?: readonly ComponentDefinition[];
  /**
   * `--name`: run only this module and the platform's common, http and encoding modules
   * (./modules.ts). Without it every module of the directory runs, and the primary module (status,
   * the start line) is the first node's `spec.module`, else {@link DEFAULT_LOCAL_MODULE}.
   */
  moduleName?: string;
  /** Module version reported in `status.module` (default `"local"`). */
  moduleVersion?: string;
  /** Namespace of nodes whose manifest names none, and reported to components (default {@link DEFAULT_LOCAL_NAMESPACE}). */
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
  /** Requeue of every reconciled node (the cluster leader's 5-min requeue), ms; 0 = off. Default {@link LEADER_REQUEUE_MS}. */
  resyncMs?: number;
  /**
   * A node missing from the manifests keeps running this long before it is removed, ms (default
   * {@link REMOVE_GRACE_MS}: a truncate-then-write save or a `git checkout` is no removal).
   */
  removeGraceMs?: number;
  /** A removed node's state is kept this long for a node that comes back with its name, ms (default {@link KEEP_REMOVED_STATE_MS}). */
  keepRemovedStateMs?: number;
  /** How often the state lock is checked (and re-created when deleted), ms (default {@link LOCK_CHECK_MS}); it is also checked before each state write. */
  lockCheckMs?: number;
  /** A repeated hop failure or warning is summarised at most once per this window, ms (default 5000). */
  repeatWindowMs?: number;
  /** `/healthz`, `/readyz` (200 once every node of the first read was reconciled and signalled) and `/metrics` here (Go syntax); absent → none. */
  healthProbeBindAddress?: string;
  /**
   * More runnables for the host's manager (the console, src/console), called once while the host
   * is built; each starts and stops with the host in its group's order.
   */
  runnables?: (host: LocalHost) => readonly (readonly [RunnableGroup, Runnable])[];
  /** Where a debug node's messages that were not printed (rate limit) can be seen, e.g. `every one is on the console`. */
  debugHint?: () => string | undefined;
}

/**
 * The primary module local mode runs as: `--name`; else the `spec.module` of the first node whose
 * name carries it (so one node with a mismatched `spec.module` does not decide for all,
 * runtime-spec §8), a module of the user's before one of the platform's bundled ones
 * (./modules.ts) — and of the user's, one with a node whose component `known` says tinyhost has,
 * so a Go module of an export (kubernetes-module-v0) whose file sorts first is not taken for the
 * user's and is named as a module that cannot run; else the first node's `spec.module`; else "tinyhost".
 */
export function chooseModuleName(explicit: string | undefined, nodes: Iterable<NodeManifest>, known?: (component: string) => boolean): string {
  if (explicit) return explicit;
  let first: string | undefined;
  let platform: string | undefined;
  let user: string | undefined;
  for (const n of nodes) {
    const module = n.node.spec.module;
    if (!module) continue;
    first ??= module;
    if (parseFullName(n.node.metadata.name).module !== sanitizeResourceName(module)) continue;
    if (platformModule(module)) {
      platform ??= module;
      continue;
    }
    if (!known || known(n.node.spec.component)) return module;
    user ??= module;
  }
  return user ?? platform ?? first ?? DEFAULT_LOCAL_MODULE;
}

/**
 * The component names local mode will have before it loads them: the preloaded set, the stems of
 * the components directory's files (`tinyhost new component x` writes `x.ts`) and the manifests'
 * TinyComponents — enough to tell the user's module from a Go module none of whose components exist.
 */
function componentsAtHand(options: LocalHostOptions, first: DesiredSet): (component: string) => boolean {
  const names = new Set((options.components ?? []).map((d) => d.info.name));
  for (const c of first.components.values()) names.add(c.object.spec.component);
  if (!options.components || options.componentsDir !== undefined) {
    try {
      for (const f of readdirSync(resolve(options.componentsDir ?? "components"))) names.add(f.replace(/\.[^.]*$/, ""));
    } catch {
      // a missing directory is reported when the components load
    }
  }
  return (c) => names.has(c);
}

/** What {@link LocalHost.start} prepared before the host exists (so a lock or state error stops nothing half-way). */
interface Prepared {
  module: string;
  first: DesiredSet;
  statePath: string | null;
  lock: StateLock | undefined;
  restored: ReadonlyMap<string, StateEntry>;
  migrated: string | undefined;
}

/** A running local mode. */
export class LocalHost {
  /** The scheduler running the nodes (isLeader = true). */
  readonly scheduler: LocalScheduler;
  /** The in-memory TinyNode API: list, get and watch the nodes (the seam for a console). */
  readonly nodes: LocalNodes;
  /** Module name (unsanitized, as given or chosen). */
  readonly module: string;
  /** The local platform client handed to `onClient`. */
  readonly client: LocalModuleClient;
  /** Which modules of the directory run here, and why a node cannot (./modules.ts). */
  readonly modules: LocalModules;
  /** Absolute manifests directory. */
  readonly dir: string;
  /** Absolute state file path, or null. */
  readonly statePath: string | null;
  /** The human log. */
  readonly report: LocalReport;

  readonly #o: LocalHostOptions;
  readonly #p: Prepared;
  /**
   * The host's logger: warnings and errors become human terminal lines (src/local/human-log.ts).
   * `run --local` hands it to the process-level last resort once the host exists.
   */
  readonly log: ComponentLogger;
  readonly #manager: Manager;
  readonly #source: DirectorySource;
  readonly #controller: TinyNodeController;
  readonly #components: ComponentFiles;
  readonly #tinyComponents: LocalTinyComponents;
  readonly #failures: FailureLog;
  readonly #debugLines: DebugLines;
  readonly #events: FlowEvents;
  /** Reads, node changes and reconciles, for the parts that subscribe themselves (./host-events.ts). */
  readonly #hostEvents = new LocalHostEvents();
  /** The state file, its lock and the saved states of nodes not in the API now (./state-keeper.ts). */
  readonly #state: StateKeeper;
  /** Start signals (./start-signals.ts). */
  readonly #signals: StartSignals;
  readonly #health: HealthServer | undefined;
  readonly #terminal: LocalTerminal;
  /** Spans for readers of a whole run (`tinyhost eval`). */
  readonly #tap = new SpanTap();
  #removalTimer: ReturnType<typeof setTimeout> | undefined;
  #httpSeededNode: string | undefined;
  #httpSeeded = false;
  #settlePending = false;
  #stopped = false;
  readonly #stop = Promise.withResolvers<void>();

  private constructor(options: LocalHostOptions, prepared: Prepared) {
    this.#o = options;
    this.#p = prepared;
    this.dir = resolve(options.dir);
    this.module = prepared.module;
    this.statePath = prepared.statePath;
    this.report = new LocalReport(options.report);
    const events = this.#hostEvents;
    // In this order: the terminal hears of a reconcile before the node's start signal is sent.
    events.on("reconciled", (name) => this.#terminal.reconciled(name));
    this.#state = this.#stateKeeper(options, prepared);
    this.#signals = this.#startSignals();
    events.on("reconciled", () => this.#settleSoon());
    events.on("nodeChanged", (c) => this.#terminal.changed(c));
    events.on("read", (current) => this.#terminal.read(current));
    this.#failures = new FailureLog((line) => this.report.line(line), options.repeatWindowMs !== undefined ? { windowMs: options.repeatWindowMs } : {});
    const namespace = options.namespace ?? DEFAULT_LOCAL_NAMESPACE;
    this.client = new LocalModuleClient(namespace, (port, url) => {
      this.report.line(`listening on ${url}`);
      this.#terminal.listening(port);
    });
    this.nodes = new LocalNodes({
      namespace,
      onChange: (c) => events.emit("nodeChanged", c),
      admitStatus: (name, status) => this.#terminal.admitStatus(name, status),
    });
    this.#source = new DirectorySource({
      dir: this.dir,
      shownDir: shownPath(this.dir),
      nodes: this.nodes,
      seed: (name, entry) => this.#seed(name, entry),
      ...(options.removeGraceMs !== undefined ? { removeGraceMs: options.removeGraceMs } : {}),
    });
    this.#debugLines = new DebugLines(
      (line) => this.report.line(line),
      (node) => this.report.names.name(node),
      options.debugHint ? { hint: options.debugHint } : {},
    );
    const flowEvents = new FlowEvents(
      {
        stopped: () => this.#stopped,
        componentOf: (name) => this.#source.desired.get(name)?.node.spec.component,
        runner: (name) => this.scheduler.runner(name),
        listenFailed: (f) => this.#stopped || this.#terminal.listenFailed(f),
      },
      this.#failures,
      this.#debugLines,
    );
    this.#events = flowEvents;
    // Warnings and errors of the runtime and components become human lines, or are dropped as repeats.
    const log = new HumanLogger(logger.child({ component: "local" }), (e) => flowEvents.log(e));
    this.log = log;
    this.modules = new LocalModules({
      primary: this.module,
      explicit: options.moduleName !== undefined && options.moduleName !== "",
      nodes: () => this.#source.desired.values(),
      installed: (c) => this.scheduler.installed(c) !== undefined,
      known: () => this.#components.known((options.components ?? []).map((d) => d.info.name)),
    });
    this.scheduler = this.#localScheduler(options, flowEvents, log);
    this.scheduler.isLeader = true; // one process: it holds the "lease" (runtime-spec §6)
    this.#components = new ComponentFiles({ scheduler: this.scheduler, line: (l) => this.report.line(l), recreate: (c) => this.#recreate(c) });
    this.#tinyComponents = new LocalTinyComponents({
      namespace,
      module: this.module,
      installed: (c) => this.scheduler.installed(c),
      install: (d) => this.scheduler.install(d),
      uninstall: (n) => this.scheduler.uninstall(n),
      changed: (c) => void this.#recreate(c),
      line: (l) => this.report.line(l),
    });
    this.#controller = this.#nodeController(options, log);
    if (options.healthProbeBindAddress !== undefined) this.#health = this.#healthServer(options.healthProbeBindAddress);
    this.#terminal = new LocalTerminal({
      module: this.module,
      dir: this.dir,
      report: this.report,
      scheduler: this.scheduler,
      nodes: this.nodes,
      source: this.#source,
      components: this.#components,
      owns: (name) => this.#controller.reconciler.owns(name),
      notRun: (segment) => this.modules.notRun(segment),
      httpSeededNode: () => this.#httpSeededNode,
    });
    const managerLog = process.env.TINYHOST_LOG_LEVEL
      ? logger.child({ component: "local" })
      : withoutStartFailures(logger.child({ component: "local" }, { level: "warn" }));
    this.#manager = new Manager({ log: managerLog });
    for (const [group, runnable] of this.#runnables(managerLog)) this.#manager.add(group, runnable);
  }

  /**
   * Reads the manifests, takes the state file's lock, starts every runnable (components, the
   * TinyNode controller, file watches) and resolves once every node of the first read was
   * reconciled and the start signals were sent.
   * @throws LocalStartError when `dir` is missing or not a directory, or the components directory is missing;
   *   StateLockedError when another live process runs on the same state file; StateFileError when
   *   the state file is unreadable.
   */
  static async start(options: LocalHostOptions): Promise<LocalHost> {
    const dir = resolve(options.dir);
    if (!existsSync(dir)) throw new LocalStartError(`manifests directory not found: ${shownPath(dir)}`);
    if (!statSync(dir).isDirectory())
      throw new LocalStartError(
        `${shownPath(dir)} is a file, not a directory: --local takes the directory that holds the manifests (e.g. examples/tick-count)`,
      );
    const first = collectDesired(readManifestDir(dir, shownPath(dir)), new Map());
    const module = chooseModuleName(options.moduleName, first.nodes.values(), componentsAtHand(options, first));
    const statePath = options.statePath === null ? null : stateFilePath(dir, options.statePath);
    const lock = statePath ? acquireStateLock(statePath) : undefined;
    let host: LocalHost;
    try {
      let migrated: string | undefined;
      if (statePath && options.statePath === undefined) {
        try {
          migrated = migrateLegacyStateFile(dir);
        } catch (err) {
          throw new LocalStartError(`cannot move the old state file to ${statePath}: ${toError(err).message}`, { cause: err });
        }
      }
      const restored = statePath ? readStateFile(statePath) : new Map<string, StateEntry>();
      host = new LocalHost(options, { module, first, statePath, lock, restored, migrated });
      await host.#manager.start();
    } catch (err) {
      lock?.release();
      throw err instanceof ManagerStartError ? err.cause : err; // local mode's own errors name the problem
    }
    if (host.#health) host.report.line(`health: ${host.#health.url}/healthz, /readyz, /metrics`);
    return host;
  }

  /** Declared nodes by name (the last good version of each). */
  desired(): ReadonlyMap<string, NodeManifest> {
    return this.#source.desired;
  }

  /** The current status of node `name` (its `TinyNode.status`), if known. */
  status(name: string): TinyNodeStatus | undefined {
    return this.nodes.find(name)?.status;
  }

  /**
   * Sends `data` to `<node>:<port>` the way the platform's `send_signal` does (From `signal`) and
   * resolves to the hop's Result — what a console calls to poke a running flow.
   */
  send(node: string, port: string, data: unknown): Promise<Result> {
    return this.scheduler.handle({ edgeId: "", from: FROM_SIGNAL, to: `${node}:${port}`, data, depth: 0 });
  }

  /**
   * Hands every hop that ends from now on to `listener` — node, port, sender, redacted payload and
   * result, error, duration ({@link HopRecord}) — until the returned function is called.
   */
  onHop(listener: HopListener): () => void {
    return this.#events.onHop(listener);
  }

  /**
   * Hands every span of the runners from now on to `listener` (./span-tap.ts): what a run's trace
   * holds, for `tinyhost eval`. Returns the function that stops it.
   */
  tapSpans(listener: SpanListener): () => void {
    return this.#tap.listen(listener);
  }

  /**
   * http_server nodes that could not bind their port (seen on a failed `start` hop) and have not
   * listened since; `port` is the port they tried (their `port` metadata; 0 when unknown).
   */
  listenFailures(): ReadonlyMap<string, ListenFailure & { port: number }> {
    return this.#terminal.listenFailures;
  }

  /** The status of TinyComponent `name` as the local controller wrote it (installed, reason), if declared. */
  componentStatus(name: string): TinyComponentStatus | undefined {
    return this.#tinyComponents.status(name);
  }

  /** Current manifest problems (from the last read of the directory). */
  manifestErrors(): readonly ManifestError[] {
    return this.#source.errors;
  }

  /**
   * Resolves when the TinyNode controller saw every write and no reconcile is queued or running;
   * problems fixed by then are announced.
   */
  async idle(): Promise<void> {
    await this.#quiet();
    if (!this.#stopped) this.#terminal.settled();
  }

  /** Queues a reconcile of every declared node (what the leader's periodic requeue does). */
  reconcileAll(): void {
    for (const name of this.#source.desired.keys()) this.#enqueue(name);
  }

  /**
   * Re-reads the manifests directory and applies the difference (what the watch calls).
   * @returns what changed.
   */
  async reloadManifests(): Promise<NodeDiff> {
    if (this.#stopped) return { added: [], changed: [], removed: [] };
    let set: DesiredSet;
    try {
      set = this.#source.read();
    } catch (err) {
      this.report.line(`error: cannot read ${shownPath(this.dir)}: ${(err as Error).message}`);
      return { added: [], changed: [], removed: [] };
    }
    await this.#tinyComponents.apply(set.components); // before the nodes: a new node of a new TinyComponent finds it
    if (this.#stopped) return { added: [], changed: [], removed: [] };
    const diff = this.#applyRead(set);
    await this.idle();
    return diff;
  }

  /**
   * Re-imports one component file and recreates the nodes of its component (hot reload; see
   * {@link ComponentFiles.reload}).
   * @returns names of the nodes recreated.
   */
  async reloadComponent(file: string): Promise<string[]> {
    const nodes = await this.#components.reload(file);
    this.#terminal.problems();
    await this.idle();
    return nodes;
  }

  /**
   * Stops every runnable in reverse group order: watches and the controller, then every runner
   * without onDestroy (a restart resumes them), then the state file is written and its lock
   * released. Safe to call twice.
   */
  async stop(): Promise<void> {
    this.#stopped = true;
    this.#stop.resolve();
    await this.#manager.stop("stop");
  }

  // ----- parts --------------------------------------------------------------------------------

  /** The scheduler running the nodes, its hop middleware (span tap, hop watch) and the in-process transport between modules. */
  #localScheduler(options: LocalHostOptions, flowEvents: FlowEvents, log: ComponentLogger): LocalScheduler {
    const transport = new LocalTransport(
      (msg, signal) => this.scheduler.handle(msg, signal),
      (segment) => this.modules.notRun(segment),
    );
    return new LocalScheduler(
      {
        module: sanitizeResourceName(this.module),
        remote: transport,
        statusSink: kubeStatusSink((name, updater) => this.nodes.patch(name, updater)),
        client: this.client,
        middleware: [this.#tap, hopWatching(flowEvents.watcher())], // the tap outermost: it sees the watch's spans
        debounceMs: options.debounceMs ?? 1000,
        log,
        warnUnknownEdgePorts: false, // local mode checks edges itself, naming the file and line (#checkEdges)
        // `[[secret:…]]` placeholders: TINY_SECRET_<NAME>__<KEY> variables, then <dir>/.tinyhost/secrets.yaml (docs/operations.md).
        secrets: localSecretSource(join(this.dir, ".tinyhost", "secrets.yaml"), process.env, `${shownPath(this.dir)}/.tinyhost/secrets.yaml`),
      },
      (name) => this.#source.desired.has(name),
      () => this.#settledNow(),
      () => this.#components.known((options.components ?? []).map((d) => d.info.name)),
      (name, component) => this.modules.refusal(name, component),
    );
  }

  /** The cluster's TinyNode controller over the in-memory API; a reconcile of an owned node becomes a `reconciled` event. */
  #nodeController(options: LocalHostOptions, log: ComponentLogger): TinyNodeController {
    const resyncMs = options.resyncMs ?? LEADER_REQUEUE_MS;
    const primary = { name: this.module, version: options.moduleVersion ?? "local", sdkVersion: SDK_VERSION };
    return tinyNodeController({
      module: primary,
      // Every module this process runs, each under its own name (a common-module node's status says common-module).
      moduleOf: (segment) => (nameMatches(segment, this.module) ? primary : this.modules.runs(segment) ? { ...primary, name: segment } : undefined),
      scheduler: this.scheduler,
      api: this.nodes,
      source: this.nodes,
      isLeader: () => true,
      leaderRequeueMs: resyncMs,
      heartbeatMs: Math.floor((resyncMs || LEADER_REQUEUE_MS) * 0.9),
      workers: DEFAULT_NODE_WORKERS,
      log,
      watcher: { watchdogMs: 0 },
      onReconciled: (name) => {
        if (!this.#stopped && this.#controller.reconciler.owns(name)) this.#hostEvents.emit("reconciled", name);
      },
    });
  }

  /** The state file, its lock and the saved states; subscribes itself to node changes. */
  #stateKeeper(options: LocalHostOptions, prepared: Prepared): StateKeeper {
    const { keepRemovedStateMs, stateDebounceMs, lockCheckMs } = options;
    return new StateKeeper({
      events: this.#hostEvents,
      statePath: prepared.statePath,
      lock: prepared.lock,
      restored: prepared.restored,
      declared: new Set(prepared.first.nodes.keys()),
      nodes: () => this.nodes.items(),
      line: (l) => this.report.line(l),
      stopped: () => this.#stopped,
      keepRemovedStateMs,
      stateDebounceMs,
      lockCheckMs,
    });
  }

  /** The start signals; subscribe themselves to reads, node changes and reconciles. */
  #startSignals(): StartSignals {
    return new StartSignals({
      events: this.#hostEvents,
      desired: () => this.#source.desired,
      runs: (name) => this.scheduler.runner(name) !== undefined,
      send: (node, port, data) => this.send(node, port, data),
      failed: (node, error) => this.#failures.hop(node, SystemPort.control, FROM_SIGNAL, error),
      line: (l) => this.report.line(l),
      quiet: () => this.#quiet(),
      stopped: () => this.#stopped,
    });
  }

  /** `/healthz`, `/readyz` (ready once the first start signals were sent) and `/metrics` on `probeAddress`. */
  #healthServer(probeAddress: string): HealthServer {
    const c = this.#controller;
    return healthServer({
      probeAddress,
      readiness: { nodes: () => (this.#signals.ready ? true : "the first reconcile of every node has not finished") },
      metrics: moduleMetrics({
        controllers: [
          {
            name: "tinynode",
            controller: c.controller as unknown as Controller<KubeObject>,
            watcher: c.watcher as unknown as Watcher<KubeObject>,
            writes: c.reconciler.stats,
          },
        ],
        isLeader: () => true,
        runners: () => this.scheduler.nodes().length,
      }),
    });
  }

  // ----- runnables --------------------------------------------------------------------------

  #runnables(log: Logger): [RunnableGroup, Runnable][] {
    const out: [RunnableGroup, Runnable][] = [];
    if (this.#health) out.push(["servers", this.#health]);
    out.push([
      "stores",
      onStop("state file", () => {
        clearTimeout(this.#removalTimer);
        this.#state.stop();
        this.#failures.flush();
        this.#debugLines.flush();
      }),
    ]);
    out.push(["runners", task("components", () => this.#loadComponents())]);
    out.push(["runners", onStop("runners", (ctx) => this.scheduler.stopAll(ctx.signal))]);
    out.push(["controllers", task("manifests", () => this.#firstRead())]);
    out.push(["controllers", this.#controller.runnable]);
    if (this.#o.watch !== false) out.push(["controllers", this.#watches()]);
    for (const [group, runnable] of this.#o.runnables?.(this) ?? []) out.push([group, runnable]);
    out.push(["listeners", httpDrain(this.scheduler, log)]); // in-flight HTTP requests finish before the runners stop
    out.push(["receivers", this.#signals.runnable(() => this.idle())]);
    return out;
  }

  async #loadComponents(): Promise<void> {
    if (this.#o.components) for (const def of this.#o.components) this.scheduler.install(def);
    // With both, the directory's files add to (and may replace) the preloaded set.
    if (!this.#o.components || this.#o.componentsDir !== undefined) await this.#components.load(resolve(this.#o.componentsDir ?? "components"));
  }

  async #firstRead(): Promise<void> {
    const { lock, migrated, statePath } = this.#p;
    this.report.line(
      `tinyhost local: ${this.#moduleSummary()} (in-process, leader)${this.#notServedSummary()} · manifests ${shownPath(this.dir)} · ` +
        `${statePath ? `state ${shownPath(statePath)}` : "state in memory"} · components ${this.#componentSummary()}`,
    );
    if (lock?.tookOverFrom !== undefined)
      this.report.line(`state: took over ${shownPath(lock.file)} from pid ${lock.tookOverFrom}, which is no longer running`);
    if (migrated) this.report.line(`state: moved ${shownPath(migrated)} to ${shownPath(statePath!)} (kubectl apply -f <dir> skips sub-directories)`);
    await this.#tinyComponents.apply(this.#p.first.components);
    this.#applyRead(this.#p.first);
    this.#state.start();
  }

  /** Watches the manifests and (unless components were preloaded) the components directory. */
  #watches(): Runnable {
    const stoppers: (() => void)[] = [];
    const debounceMs = this.#o.watchDebounceMs ?? 150;
    const watch = (dir: string, start: () => () => void) => {
      try {
        stoppers.push(start());
      } catch (err) {
        this.report.line(`error: cannot watch ${shownPath(dir)}: ${toError(err).message}`);
      }
    };
    const stopped = (dir: string) => (err: Error) => this.report.line(`error: watching ${shownPath(dir)} stopped: ${err.message}`);
    return {
      name: "file watches",
      start: () => {
        const ignore = [this.statePath, this.#p.lock?.file].filter((f): f is string => !!f);
        watch(this.dir, () => this.#source.watch({ debounceMs, ignore, onChange: () => void this.reloadManifests(), onError: stopped(this.dir) }));
        // Edits made between the first read and this watch would otherwise wait for the next one.
        void this.reloadManifests();
        // Preloaded components alone (the compiled binary, tests) have no files to watch; a
        // components directory given beside them (`--components`) is watched like one from source.
        if (this.#o.components && this.#o.componentsDir === undefined) return;
        const cdir = resolve(this.#o.componentsDir ?? "components");
        const onChange = (paths: Set<string>) =>
          void (async () => {
            for (const p of [...paths].sort()) if (p !== "" && isComponentFile(p)) await this.reloadComponent(resolve(cdir, p));
          })();
        watch(cdir, () => watchDirectory(cdir, { recursive: true, debounceMs, onChange, onError: stopped(cdir) }));
      },
      stop: () => {
        for (const s of stoppers.splice(0)) s();
      },
    };
  }

  // ----- manifests and nodes ----------------------------------------------------------------

  #applyRead(set: DesiredSet): NodeDiff {
    // Names first, so the lines printed while applying (a node that is back) use the labels.
    this.report.names.set(displayNames([...set.nodes.values(), ...this.#source.desired.values()].map((e) => e.node)));
    const diff = this.#source.apply(set);
    // Nodes missing from this read but still in their grace period are part of what runs.
    const current: DesiredSet = { ...set, nodes: new Map(this.#source.desired) };
    this.report.names.set(displayNames([...current.nodes.values()].map((e) => e.node)));
    for (const name of [...diff.changed, ...diff.removed]) this.#failures.forget(name);
    this.#hostEvents.emit("read", current, diff);
    this.#scheduleRemoval();
    return diff;
  }

  /** Re-reads the manifests when the first node held in its removal grace is due (the watch may see nothing more). */
  #scheduleRemoval(): void {
    clearTimeout(this.#removalTimer);
    this.#removalTimer = undefined;
    const due = this.#source.removalDue();
    if (due === undefined || this.#stopped) return;
    this.#removalTimer = setTimeout(() => void this.reloadManifests(), Math.max(0, due - Date.now()) + 5);
  }

  /**
   * What a node starts with: its saved state (restored at start, or kept since it was removed);
   * the first http_server (by name) also gets `--port` in its `port` metadata.
   */
  #seed(name: string, entry: NodeManifest): NodeSeed | undefined {
    const seed = this.#state.take(name);
    const port = this.#o.httpPort;
    if (port === undefined || this.#httpSeeded || entry.node.spec.component !== HTTP_SERVER_COMPONENT) return seed;
    const firstHttp = [...this.#source.desired.values()]
      .filter((e) => e.node.spec.component === HTTP_SERVER_COMPONENT && this.#controller.reconciler.owns(e.node.metadata.name))
      .map((e) => e.node.metadata.name)
      .sort()[0];
    if (firstHttp !== name) return seed;
    this.#httpSeeded = true;
    this.#httpSeededNode = name;
    return { ...seed, status: { ...seed?.status, metadata: { ...seed?.status?.metadata, [HTTP_PORT_METADATA_KEY]: String(port) } } };
  }

  #enqueue(name: string): void {
    const node = this.nodes.find(name);
    if (node) this.#controller.controller.enqueue(`${node.metadata.namespace}/${name}`);
  }

  /** Reconciles the declared nodes of component `component` again (hot reload); returns their names. */
  #recreate(component: string): string[] {
    const names = [...this.#source.desired.values()].filter((e) => e.node.spec.component === component).map((e) => e.node.metadata.name);
    for (const n of names) this.#enqueue(n);
    return names;
  }

  /** `module a` or `modules a, tinysystems-common-module-v0`: what runs, the primary first (not the modules of {@link #notServedSummary}). */
  #moduleSummary(): string {
    const run = this.modules.segments(this.#p.first.nodes.values()).filter((m) => this.modules.runs(m) && !nameMatches(m, this.module) && !this.#unservable(m));
    if (run.length === 0) return `module ${this.module}`;
    return `modules ${[this.module, ...run].join(", ")}`;
  }

  /** `; not served: m (…why)`: modules of the directory none of whose components tinyhost has (each node's error line says what to do). */
  #notServedSummary(): string {
    const not = this.modules.segments(this.#p.first.nodes.values()).filter((m) => this.#unservable(m));
    if (not.length === 0) return "";
    return `; not served: ${not.join(", ")} (no component of ${not.length === 1 ? "it" : "them"} is bundled or in the components directory; a hop to ${not.length === 1 ? "its" : "their"} nodes fails)`;
  }

  /** {@link LocalModules.unservable}, counting the directory's TinyComponents (installed after the start line). */
  #unservable(segment: string): boolean {
    return this.modules.unservable(segment, new Set([...this.#p.first.components.values()].map((c) => c.object.spec?.component)));
  }

  #componentSummary(): string {
    const files = () => `${new Set(this.#components.files.values()).size} from ${shownPath(resolve(this.#o.componentsDir ?? "components"))}`;
    if (this.#o.components) return `${this.#o.components.length} bundled${this.#o.componentsDir !== undefined ? ` + ${files()}` : ""}`;
    return files();
  }

  // ----- after reconciles: terminal, signals ----------------------------------------------

  /** Once the reconciles so far are done, the terminal announces what settled (one wait at a time). */
  #settleSoon(): void {
    if (this.#settlePending) return;
    this.#settlePending = true;
    void this.#quiet().then(() => {
      this.#settlePending = false;
      if (!this.#stopped) this.#terminal.settled();
    });
  }

  /** The controller saw every write and nothing is queued or running (or the host stopped). */
  async #quiet(): Promise<void> {
    const queue = this.#controller.controller.queue;
    while (!this.#stopped) {
      await Promise.race([this.nodes.whenCaughtUp(), this.#stop.promise]);
      if (this.#settledNow() || this.#stopped) return;
      await Promise.race([queue.whenIdle(), this.#stop.promise]);
      await new Promise((r) => setImmediate(r));
    }
  }

  #settledNow(): boolean {
    const queue = this.#controller.controller.queue;
    return this.nodes.caughtUp() && queue.depth === 0 && queue.processing === 0;
  }
}
