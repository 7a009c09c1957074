/**
 * The scheduler (runtime-spec §3): installed components, one runner per node, and the router that
 * sends each hop in-process (same module) or over a transport (other modules). It also runs the
 * two modes beside the classic hop: durable steps (a hop of a run, or a business hop to a node
 * labelled `tinysystems.io/execution-mode: durable` — src/runtime/durable/) and RPC calls to
 * agent-tool components (`x-mode: rpc`, rpc.ts).
 */
import { isDeepStrictEqual } from "node:util";
import { isComponentDefinition, type ComponentDefinition } from "../../core/component.ts";
import type { ModuleClient } from "../../core/client.ts";
import type { ComponentLogger } from "../../core/context.ts";
import { PermanentError, retryable } from "../../core/errors.ts";
import type { TinyNode, TinyNodeStatus } from "../../core/node.ts";
import { isSystemPort, SystemPort } from "../../core/ports.ts";
import { empty, fail, toError, type Result } from "../../core/result.ts";
import { carriesRuns, moduleOfNode, parsePortAddress, payloadBytes, type Msg, type MsgHandler, type Transport } from "../../core/hop.ts";
import { MetadataLedger } from "../durable/ledger.ts";
import type { StepLedger } from "../../core/durable/step-ledger.ts";
import { LocalReplies } from "../../core/durable/replies.ts";
import { currentRun, emitRecordOf, isReplyHop, type RunContext } from "../../core/durable/run.ts";
import { DurableSteps, type DurableStepStats } from "../durable/steps.ts";
import { callAgentTool, type RpcHost } from "./rpc.ts";
import { SchedulerRuns } from "./runs.ts";
import { chainHandler, chainTracer, type HopMiddleware } from "./middleware.ts";
import { logger as rootLogger } from "../../telemetry/log.ts";
import { HopCancelledError, NodeReloadedError } from "../runner/errors.ts";
import { Runner, type RunnerHost, type StatusSink } from "../runner/runner.ts";
import { placeholderWarnings, type SecretSource } from "../secrets/index.ts";
import { recordFault } from "../runner/guard.ts";
import type { WriteRetry } from "../runner/status-writer.ts";
import { describeCycle, HopScope, rootScope } from "../runner/scope.ts";
import { otelTracer, type Tracer } from "../runner/tracer.ts";
import { EXECUTION_MODE_DURABLE, EXECUTION_MODE_LABEL } from "../../core/api/constants.ts";
import { ComponentNotRegisteredError, InstallError, NodeNotFoundError, PortNotReadyError, RouteError } from "./errors.ts";
import { startTimer, type Timer } from "../../core/timer.ts";

/** Max hop depth before a hop fails permanently (runtime-spec §3.1 `MaxMessageDepth`). */
export const MAX_MESSAGE_DEPTH = 256;

/** Default bound on waiting for a missing node or port, ms (runtime-spec §3.2 waits 30 s; §16 item 14). */
export const DEFAULT_READY_TIMEOUT_MS = 5000;

/**
 * Default grace, ms, for the hops of a node's old version to finish when its component is replaced
 * (a reload): shorter than {@link DEFAULT_READY_TIMEOUT_MS}, which hops arriving meanwhile wait.
 */
export const DEFAULT_RELOAD_GRACE_MS = 3000;

/** Scheduler construction options. */
export interface SchedulerOptions {
  /** Sanitized name of this module: hops to nodes whose name's 2nd dot segment equals it stay in-process (runtime-spec §3.5). */
  module: string;
  /**
   * Further sanitized module names this process serves (cluster `run --also`): hops to their nodes
   * stay in-process too, as hops to {@link module}'s do.
   */
  alsoServes?: readonly string[];
  /** Transport for hops to other modules; absent → such hops fail with `NO_ROUTE`. */
  remote?: Transport;
  /** Status writer for debounced patches (Kubernetes later); absent → in-memory only. */
  statusSink?: StatusSink;
  /** Span factory; default {@link otelTracer} (records once `setupTracing` installed a provider, else no-op). */
  tracer?: Tracer;
  /** Hop middleware around {@link Scheduler.handle} and {@link tracer}, the first outermost (middleware.ts). */
  middleware?: readonly HopMiddleware[];
  /** Logger; default the host's root logger. */
  log?: ComponentLogger & { child?(bindings: object): ComponentLogger };
  /** Status-patch debounce window, ms; default 1000 (runtime-spec §2.9). */
  debounceMs?: number;
  /** Backoff of failed status writes, ms; default 1 s ×2 capped at 30 s (status-writer.ts `DEFAULT_WRITE_RETRY`). */
  statusRetry?: WriteRetry;
  /** Bound on waiting for a missing node/port before failing a hop, ms; default 5000. */
  readyTimeoutMs?: number;
  /** How long a reload lets the old version's in-flight hops finish, ms; default {@link DEFAULT_RELOAD_GRACE_MS}. */
  reloadGraceMs?: number;
  /** Cluster client handed to `onClient` each reconcile (runtime-spec §1.5); absent → hook not called. */
  client?: ModuleClient;
  /** JetStream handle handed to `onNats` each reconcile; default `null`. */
  jetstream?: unknown;
  /**
   * Step ledger of durable runs (runtime-spec §1.7, §2.7): the JetStream KV `TINY_EXEC` when the
   * module runs on JetStream; default the status metadata of this scheduler's nodes (Go's store
   * without JetStream, runtime-spec §4.6), bounded (src/runtime/durable/ledger.ts).
   */
  ledger?: StepLedger;
  /**
   * Warn about edges leaving from ports the component does not declare (default true). Off for
   * generated edges that may briefly name ports settings are about to add or remove (the
   * `testComponent` harness's capture edges).
   */
  warnUnknownEdgePorts?: boolean;
  /** Where `[[secret:…]]` placeholders in settings are read (src/runtime/secrets); absent → they fail the node's settings, saying so. */
  secrets?: SecretSource;
  /** Re-delivery period of unchanged settings holding a placeholder, ms; default 60 000 (runner.ts `SECRET_RESOLVE_TTL_MS`). */
  secretResolveTtlMs?: number;
}

/** Routes hops between runners and owns their lifecycle. */
export class Scheduler implements RunnerHost, RpcHost {
  readonly module: string;
  readonly tracer: Tracer;
  readonly statusSink: StatusSink | undefined;
  readonly debounceMs: number;
  /** Backoff of failed status writes ({@link SchedulerOptions.statusRetry}); undefined = the writer's default. */
  readonly statusRetry: WriteRetry | undefined;
  readonly readyTimeoutMs: number;
  /** Where placeholders in settings are read ({@link SchedulerOptions.secrets}). */
  readonly secrets: SecretSource | undefined;
  /** {@link SchedulerOptions.secretResolveTtlMs}. */
  readonly secretResolveTtlMs: number | undefined;
  /** See {@link SchedulerOptions.reloadGraceMs}. */
  readonly reloadGraceMs: number;
  /** Live leader flag read by every runner (runtime-spec §6); set by the leader elector. */
  isLeader = false;
  readonly #remote: Transport | undefined;
  readonly #log: ComponentLogger & { child?(bindings: object): ComponentLogger };
  readonly #components = new Map<string, ComponentDefinition>();
  readonly #runners = new Map<string, Runner>();
  readonly #client: ModuleClient | undefined;
  readonly #jetstream: unknown;
  readonly #warnUnknownEdgePorts: boolean;
  #changed = Promise.withResolvers<void>();
  /** Durable-run services for the SDK (src/sdk/durable.ts), read by every hop context. */
  readonly runs: SchedulerRuns;
  readonly #steps: DurableSteps;
  /** Reply subjects of runs begun here when no transport carries runs (replies stay in process). */
  readonly #localReplies = new LocalReplies();
  /** The remote transport carries runs (JetStream): durable hops go through it (runtime-spec §3.5). */
  readonly #wireRuns: boolean;
  /** A hop and its stamped copy: a retry of the same send keeps its step key (runtime-spec §2.5). */
  readonly #stamped = new WeakMap<Msg, Msg>();
  /** {@link handle} behind the hop middleware's handlers. */
  readonly #entry: MsgHandler;

  /** {@link module} and {@link SchedulerOptions.alsoServes}: the modules whose hops stay in-process. */
  readonly #served: ReadonlySet<string>;

  constructor(options: SchedulerOptions) {
    this.module = options.module;
    this.#served = new Set([options.module, ...(options.alsoServes ?? [])]);
    this.#remote = options.remote;
    this.statusSink = options.statusSink;
    this.#log = options.log ?? rootLogger.child({ component: "scheduler" });
    // Innermost: settings strings that only look like `[[secret:…]]` placeholders are named once per node.
    this.tracer = chainTracer(options.tracer ?? otelTracer, [...(options.middleware ?? []), placeholderWarnings(this.#log)]);
    this.#entry = chainHandler((msg, signal) => this.dispatch(msg, rootScope(signal)), options.middleware);
    this.debounceMs = options.debounceMs ?? 1000;
    this.statusRetry = options.statusRetry;
    this.readyTimeoutMs = options.readyTimeoutMs ?? DEFAULT_READY_TIMEOUT_MS;
    this.secrets = options.secrets;
    this.secretResolveTtlMs = options.secretResolveTtlMs;
    this.reloadGraceMs = options.reloadGraceMs ?? DEFAULT_RELOAD_GRACE_MS;
    this.#client = options.client;
    this.#jetstream = options.jetstream ?? null;
    this.#warnUnknownEdgePorts = options.warnUnknownEdgePorts ?? true;
    const ledger =
      options.ledger ?? new MetadataLedger({ state: (n) => this.#runners.get(n)?.state, all: () => [...this.#runners.values()].map((r) => r.state) });
    const durableLog = this.#log.child ? this.#log.child({ component: "durable" }) : this.#log;
    this.#steps = new DurableSteps(ledger, durableLog);
    this.#wireRuns = carriesRuns(this.#remote);
    this.runs = new SchedulerRuns(ledger, carriesRuns(this.#remote) ? this.#remote : this.#localReplies, durableLog);
  }

  /** Counters of durable steps (minted, skipped, recorded, record failures). */
  get durableStats(): Readonly<DurableStepStats> {
    return this.#steps.stats;
  }

  /** Names of every installed component (RPC errors list them). */
  componentNames(): string[] {
    return [...this.#components.keys()];
  }

  /** Logger of RPC calls. */
  get rpcLog(): ComponentLogger {
    return this.#log.child ? this.#log.child({ component: "rpc" }) : this.#log;
  }

  #notify(): void {
    this.#changed.resolve();
    this.#changed = Promise.withResolvers<void>();
  }

  /** Installs (or replaces) a component by `info.name`. Throws {@link InstallError} for a non-definition (runtime-spec §3.1). */
  install(definition: ComponentDefinition): void {
    if (!isComponentDefinition(definition)) throw new InstallError("install: not a component definition (use defineComponent) or info.name is empty");
    this.#components.set(definition.info.name, definition);
    this.#notify();
  }

  /**
   * Removes component `name` (when installed) and stops every runner of a definition named `name`
   * without onDestroy: the nodes still exist, this module just no longer has their component — what
   * a start without it would give (local hot reload after a rename or a deleted file). A later
   * `update` of such a node throws `COMPONENT_NOT_REGISTERED`; hops to it fail as to a node with no
   * runner. Also stops strays created by an `update` that was already running when the component went.
   * @returns the names of the nodes whose runners were stopped, sorted.
   */
  async uninstall(name: string): Promise<string[]> {
    this.#components.delete(name);
    const stopped = [...this.#runners].filter(([, r]) => r.instance.definition.info.name === name);
    for (const [node] of stopped) this.#runners.delete(node);
    await Promise.all(stopped.map(([, r]) => r.stop(false)));
    this.#notify();
    return stopped.map(([node]) => node).sort();
  }

  /** The installed definition named `name`, if any. */
  installed(name: string): ComponentDefinition | undefined {
    return this.#components.get(name);
  }

  /** The runner of node `name`, if any. */
  runner(name: string): Runner | undefined {
    return this.#runners.get(name);
  }

  /** Names of the nodes with a runner. */
  nodes(): string[] {
    return [...this.#runners.keys()];
  }

  /**
   * Reconciles one node (runtime-spec §3.3): get or create its runner, adopt the spec, then call
   * onIdentity → onClient → onNats → [until each succeeded once: onState → onEmitter] → onReconcile
   * → settings. Every hook runs inside the runner's guard, so its error names node, component and hook.
   * A failing hook or settings rolls the runner back to its previous spec and is reported in the
   * returned status (`status` = error text, `error` = true) rather than thrown (runtime-spec §16 item 9).
   * @returns the status fields the runtime owns (status, error, ports, component).
   * @throws PermanentError wrapping {@link ComponentNotRegisteredError} when the component is unknown.
   * @throws ComponentFaultError (site `state()`) when the component's state factory throws.
   */
  async update(node: TinyNode): Promise<TinyNodeStatus> {
    const name = node.metadata.name;
    const def = this.#components.get(node.spec.component);
    if (!def) throw new PermanentError(new ComponentNotRegisteredError(node.spec.component, name));
    let runner = this.#runners.get(name);
    const isNew = !runner || runner.instance.definition !== def;
    if (isNew) {
      const previous = runner;
      if (previous) {
        // A reload: hops arriving now wait for the new version (as for a node not reconciled yet),
        // the old one's in-flight hops get the grace to finish; what is left is cut with a retryable error.
        this.#runners.delete(name);
        const drained = await previous.drain(this.reloadGraceMs);
        if (drained)
          await previous.stop(false); // flushes its status: its state writes are stored first
        else await previous.stopForReload(retryable(new NodeReloadedError(name, def.info.name, this.reloadGraceMs)));
      }
      const log = this.#log.child ? this.#log.child({ node: name }) : this.#log;
      let instance;
      try {
        instance = def.instance(); // runs the component's state() factory
      } catch (err) {
        // No runner without an instance: the reconcile fails (the reconciler writes the error and retries).
        if (previous) this.#runners.delete(name);
        throw recordFault({ node: name, component: def.info.name, log }, "state()", err);
      }
      runner = new Runner(instance, this, node, log);
      // `node` was read before that flush: the writes just made may not be in it yet.
      if (previous) runner.state.adopt(previous.state);
      this.#runners.set(name, runner);
    }
    const r = runner!;
    const backup = r.node;
    if (!isNew) {
      // A fault outside a reconcile (timer, ports(), updater) shows until the node is edited: the
      // runner's own status writes trigger reconciles of the same spec, which must not hide it.
      if (!isDeepStrictEqual(backup.spec, node.spec)) r.clearFault();
      r.setNode(node);
    }
    try {
      await r.callHook("onIdentity", r.identity);
      if (this.#client !== undefined) await r.callHook("onClient", this.#client);
      await r.callHook("onNats", this.#jetstream);
      // First-reconcile hooks run until they succeed once, even when an earlier hook failed on the
      // node's first reconcile.
      for (const hook of r.firstHooksDue) {
        await r.callHook(hook, hook === "onState" ? r.state : r.emitter);
        r.firstHooksDue.delete(hook);
      }
      await r.callHook("onReconcile", node);
      const settings = await r.deliverSettings();
      if (settings.kind === "fail") throw settings.error;
      r.lastError = undefined;
      if (this.#warnUnknownEdgePorts) this.#warnAboutUnknownEdgePorts(r);
    } catch (err) {
      r.setNode(backup);
      r.lastError = toError(err);
      this.#log.warn({ node: name, err: r.lastError.message }, "reconcile failed; node rolled back");
    }
    this.#notify();
    return r.readStatus();
  }

  /**
   * Logs edges that leave from a port the component does not declare as a source (a typo in
   * `spec.edges[].port` would otherwise make the edge silently carry nothing). Checked after
   * settings, since settings may add ports (router routes). Go does not check; a warning, not an error.
   */
  #warnAboutUnknownEdgePorts(r: Runner): void {
    const edges = r.node.spec.edges;
    if (!edges?.length) return;
    const sources = r
      .ports()
      .filter((p) => p.source)
      .map((p) => p.name);
    for (const e of edges) {
      if (!sources.includes(e.port) && !e.port.includes(":")) {
        this.#log.warn(
          { node: r.name, edge: e.id, port: e.port, sourcePorts: sources },
          `edge ${e.id} leaves from port "${e.port}", which ${r.instance.definition.info.name} does not declare; it will carry nothing`,
        );
      }
    }
  }

  /** The status of node `name` (runtime-spec §2.6), or undefined when it has no runner. */
  readStatus(name: string): TinyNodeStatus | undefined {
    return this.#runners.get(name)?.readStatus();
  }

  /** Node deleted: stop its runner with cleanup (onDestroy) and forget it (runtime-spec §3.3 `Destroy`). */
  async destroy(name: string): Promise<void> {
    const r = this.#runners.get(name);
    if (!r) return;
    this.#runners.delete(name);
    await r.stop(true);
    this.#notify();
  }

  /**
   * Pod shutdown: stop every runner without onDestroy (runtime-spec §2.10 `StopWithoutCleanup`),
   * each flushing its status write first — a failing one retried with backoff until `deadline`
   * aborts (the manager's shutdown budget; default the runner's own, `DEFAULT_STOP_FLUSH_MS`).
   */
  async stopAll(deadline?: AbortSignal): Promise<void> {
    const all = [...this.#runners.values()];
    this.#runners.clear();
    await Promise.all(all.map((r) => r.stop(false, deadline)));
    this.#notify();
  }

  /**
   * Entry for a hop from outside (a transport, a signal, a test), through the hop middleware's
   * handlers ({@link SchedulerOptions.middleware}). Never rejects.
   * @param signal aborting it cancels the hop and every handler below it.
   */
  handle(msg: Msg, signal?: AbortSignal): Promise<Result> {
    return this.#entry(msg, signal);
  }

  /**
   * Delivers `msg` to the local runner of its node (runtime-spec §3.2). Not `async`: the common
   * case hands back the runner's own promise (no extra promise per hop); only a missing node or
   * port waits.
   */
  dispatch(msg: Msg, scope: HopScope): Promise<Result> {
    if (msg.depth > MAX_MESSAGE_DEPTH) {
      const cycle = describeCycle([...scope.trail(), msg.to]);
      return Promise.resolve(fail(new PermanentError(`max message depth ${MAX_MESSAGE_DEPTH} exceeded (possible cycle in flow graph): ${cycle.join(" → ")}`)));
    }
    if (msg.mode === "rpc") return callAgentTool(this, msg, scope);
    const [node, port] = parsePortAddress(msg.to);
    if (port === SystemPort.reconcile) return Promise.resolve(empty);
    const runner = this.#runners.get(node);
    if (runner && runner.hasPort(port)) return this.#deliver(runner, msg, port, scope);
    return this.#waitReady(node, port, scope).then(
      (r) => this.#deliver(r, msg, port, scope),
      (err: unknown) => fail(err),
    );
  }

  /**
   * Hands `msg` to its runner: as a durable step when it carries a run, or when it reaches a
   * business port of a node labelled durable (runtime-spec §2.2 step 2); else as a classic hop.
   */
  #deliver(r: Runner, msg: Msg, port: string, scope: HopScope): Promise<Result> {
    if (!msg.runId && (isSystemPort(port) || r.node.metadata.labels?.[EXECUTION_MODE_LABEL] !== EXECUTION_MODE_DURABLE)) return r.handle(msg, scope);
    return this.#steps.run(r.name, msg, () => r.handle(msg, scope));
  }

  async #waitReady(node: string, port: string, scope: HopScope): Promise<Runner> {
    const started = Date.now();
    const deadline = started + this.readyTimeoutMs;
    const signal = scope.toSignal();
    for (;;) {
      const r = this.#runners.get(node);
      if (r && (port === "" || r.hasPort(port))) return r;
      const left = deadline - Date.now();
      if (left <= 0) throw r ? new PortNotReadyError(node, port, this.readyTimeoutMs) : new NodeNotFoundError(node, this.readyTimeoutMs);
      if (signal.aborted) throw new HopCancelledError(`${node}:${port}`, signal.reason);
      let timer: Timer | undefined;
      let onAbort: (() => void) | undefined;
      await Promise.race([
        this.#changed.promise,
        new Promise<void>((resolve) => {
          timer = startTimer(left, resolve);
          onAbort = () => resolve();
          signal.addEventListener("abort", onAbort, { once: true });
        }),
      ]);
      timer?.cancel();
      if (onAbort) signal.removeEventListener("abort", onAbort);
    }
  }

  /**
   * Sends a hop a runner emitted (runtime-spec §3.5): the destination's module is the second dot
   * segment of its node name; this module (or one it also serves) → in-process; other → the remote transport.
   */
  route(msg: Msg, scope: HopScope): Promise<Result> {
    const run = msg.runId ? undefined : currentRun();
    if (run) msg = this.#stamp(msg, run);
    const node = parsePortAddress(msg.to)[0];
    const module = moduleOfNode(node);
    if (module === undefined)
      return Promise.resolve(
        fail(new RouteError(`parse destination error: node name ${JSON.stringify(node)} in ${JSON.stringify(msg.to)} has no module segment`)),
      );
    if (msg.runId) return this.#routeDurable(msg, module, scope, run);
    if (this.#served.has(module)) return this.dispatch(msg, scope);
    return this.#send(msg, module, scope);
  }

  #send(msg: Msg, module: string, scope: HopScope): Promise<Result> {
    if (!this.#remote) return Promise.resolve(fail(new RouteError(`no transport to module ${JSON.stringify(module)} for ${JSON.stringify(msg.to)}`)));
    return this.#remote.send(msg, scope.toSignal());
  }

  /** The hop stamped with the current step's run; the same copy for every attempt of one send. */
  #stamp(msg: Msg, run: RunContext): Msg {
    let out = this.#stamped.get(msg);
    if (!out) this.#stamped.set(msg, (out = run.stamp(msg)));
    return out;
  }

  /**
   * A hop of a run (runtime-spec §3.5, §14.4). On a transport that carries runs (JetStream) every
   * hop goes through it, same module or not: stored, fire-and-forget, picked up by any replica.
   * Without one the hop is delivered as a classic hop — in process for this module (the run rides
   * along, each step recorded in its node's metadata), over the wire for another (core NATS and
   * gRPC drop the run fields, as Go's do). The run's reply hop goes to the waiting origin instead.
   * A hop sent successfully becomes an emit of the sending step's record.
   */
  #routeDurable(msg: Msg, module: string, scope: HopScope, run: RunContext | undefined): Promise<Result> {
    let sent: Promise<Result>;
    if (isReplyHop(msg) && !this.#wireRuns) {
      if (!this.#localReplies.deliver(msg.replySubject!, msg.data))
        this.#log.debug({ to: msg.to, subject: msg.replySubject }, "run reply dropped: nobody waits for it any more");
      sent = Promise.resolve(empty);
    } else if (this.#wireRuns) {
      if (run) msg = { ...msg, data: safeBytes(msg.data) ?? msg.data }; // encoded once: the wire and the emit record share it
      sent = this.#remote!.send(msg, scope.toSignal());
    } else {
      sent = this.#served.has(module) ? this.dispatch(msg, scope) : this.#send(msg, module, scope);
    }
    if (!run) return sent;
    return sent.then((r) => {
      if (r.kind !== "fail") {
        const bytes = safeBytes(msg.data);
        if (bytes) run.emits.push(emitRecordOf(msg, bytes));
      }
      return r;
    });
  }
}

/** The JSON bytes of a payload, or undefined when it cannot be encoded (the send reports that). */
function safeBytes(data: unknown): Uint8Array | undefined {
  try {
    return payloadBytes(data);
  } catch {
    return undefined;
  }
}
