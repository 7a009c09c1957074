/**
 * One Runner per TinyNode per pod (runtime-spec §2): turns incoming hops into typed, decoded
 * component input, dispatches system ports to capability hooks, and owns the node's lifecycle
 * (spec changes, drain, stop). Emits go out along the node's edges (./edges.ts); status is
 * published through a debounced patch (./status-publisher.ts).
 */
import { isDeepStrictEqual } from "node:util";
import type { ComponentContext, ComponentLogger, Emitter, HopTrace, OutputFn } from "../../core/context.ts";
import type { ComponentInstance, ErasedHooks } from "../../core/component.ts";
import { RUN_RUNTIME, type RunRuntime } from "../../core/durable/run-runtime.ts";
import { empty, fail, toError, toResult, type Result } from "../../core/result.ts";
import { isSystemPort, SystemPort, type AnyPort } from "../../core/ports.ts";
import { LABEL_FLOW_NAME, LABEL_PROJECT_NAME, type NodeIdentity, type NodeUpdater, type TinyNode, type TinyNodeStatus } from "../../core/node.ts";
import { FROM_SIGNAL, parsePortAddress, type Msg } from "../../core/hop.ts";
import { compilePortDecoder, type PortDecoder } from "../schema/index.ts";
import { fulfilledValue, NOT_FULFILLED } from "../../core/settled.ts";
import { EmptyPortError, NodeStoppedError, PayloadDecodeError, PortValidationError, StatusWriteError, uniquePorts } from "./errors.ts";
import { MetadataState } from "./metadata-state.ts";
import { statusText } from "../../k8s/status-text.ts";
import type { WriteRetry } from "./status-writer.ts";
import { StatusPublisher, type PendingWrites, type StatusSink } from "./status-publisher.ts";
import { NodeEdges } from "./edges.ts";
import { compilePortConfigs, decodeConfiguredPayload, evaluatePortConfig, PortConfigTable } from "./port-config.ts";
import { orphanedKeys } from "./orphaned-keys.ts";
import { HopScope } from "./scope.ts";
import { NodeGuard, type ComponentFaultError, type FaultSite } from "./guard.ts";
import { statusComponent, statusPorts } from "./status.ts";
import type { HopSite, HopSpan, Tracer } from "./tracer.ts";
import { credentialKeysOfSchema } from "../../telemetry/redact.ts";
import { withDeadline } from "../../core/timer.ts";
import { rememberSecretValue } from "../../telemetry/secret-values.ts";
import { containsPlaceholder, NO_SECRET_SOURCE, resolvePlaceholders, type SecretSource } from "../secrets/index.ts";
import { USAGE } from "../../core/usage.ts";

export { DEFAULT_STOP_FLUSH_MS, type StatusSink } from "./status-publisher.ts";

/** What a runner needs from its scheduler. */
export interface RunnerHost {
  /** Delivers a hop this runner emits and resolves to the downstream result (runtime-spec §3.5). */
  route(msg: Msg, scope: HopScope): Promise<Result>;
  /** Live leader flag (runtime-spec §6). */
  readonly isLeader: boolean;
  /** Tracer for hop spans. */
  readonly tracer: Tracer;
  /** Where debounced status patches go; absent = only the runner's in-memory node copy changes. */
  readonly statusSink: StatusSink | undefined;
  /** Status-patch debounce window, ms (runtime-spec §2.9: 1000). */
  readonly debounceMs: number;
  /** Backoff of failed status writes, ms; default `DEFAULT_WRITE_RETRY` of status-writer.ts (1 s ×2, ≤ 30 s). */
  readonly statusRetry?: WriteRetry;
  /** Durable-run services behind the SDK's run functions (src/sdk/durable.ts). */
  readonly runs?: RunRuntime;
  /** Where `[[secret:…]]` placeholders in settings are read; absent → they fail the settings, saying so. */
  readonly secrets?: SecretSource;
  /** Least age of a delivery of unchanged settings holding a placeholder before it is delivered again, ms; default {@link SECRET_RESOLVE_TTL_MS}. */
  readonly secretResolveTtlMs?: number;
}

/** Unchanged settings holding a secret placeholder are delivered again at most this often, ms (Go runner `secretResolveTTL`, 60 s). */
export const SECRET_RESOLVE_TTL_MS = 60_000;

interface CachedPort {
  readonly spec: AnyPort;
  decoder: PortDecoder | undefined;
  /** Schema-marked credential keys of this port plus the node's (built when a span first needs them). */
  credentialKeys: ReadonlySet<string> | undefined;
}

const dec = new TextDecoder();

function decodePayload(data: unknown): unknown {
  if (data instanceof Uint8Array) return data.byteLength === 0 ? null : JSON.parse(dec.decode(data));
  return data;
}

function cloneDefault(value: unknown): unknown {
  return value !== null && typeof value === "object" ? structuredClone(value) : value;
}

/** Per-hop context handed to handle and hooks; the combined signal is built only when read. */
class HopContext implements ComponentContext<unknown> {
  #log: ComponentLogger | undefined;
  /** What `meter` recorded in this hop (src/core/usage.ts), created on the first call. */
  usage: Map<string, number> | undefined;
  get [USAGE](): Map<string, number> {
    return (this.usage ??= new Map());
  }
  constructor(
    readonly runner: Runner,
    readonly scope: HopScope,
    readonly sourceNode: string,
    readonly trace: HopTrace,
    /** Port of the hop (`""` for lifecycle hooks): bound into the hop's log lines. */
    readonly port = "",
  ) {}
  get self(): unknown {
    return this.runner.instance.self;
  }
  get node(): NodeIdentity {
    return this.runner.identity;
  }
  get isLeader(): boolean {
    return this.runner.host.isLeader;
  }
  get signal(): AbortSignal {
    return this.scope.toSignal();
  }
  get nodeSignal(): AbortSignal {
    return this.runner.nodeSignal;
  }
  get [RUN_RUNTIME](): RunRuntime | undefined {
    return this.runner.host.runs;
  }
  get log(): ComponentLogger {
    // A child logger per hop only when the component logs: lines carry node and port (and, via the
    // root logger's mixin, the active span's trace_id/span_id).
    return (this.#log ??= this.port ? this.runner.portLog(this.port) : this.runner.log);
  }
}

/** Decode options of a hop, allocated once (runtime-spec §2.2 step 5: signal payloads as they came, configurations sorted). */
const INPUT_ORDER = { keyOrder: "input" } as const;
const SORTED_ORDER = { keyOrder: "sorted" } as const;

/** A value `await` would wait for (a promise or any object with a `then` method). */
function isThenable(v: unknown): v is PromiseLike<unknown> {
  return v !== null && (typeof v === "object" || typeof v === "function") && typeof (v as { then?: unknown }).then === "function";
}

/** Drives one component instance for one TinyNode. */
export class Runner implements HopSite {
  readonly name: string;
  readonly log: ComponentLogger;
  /** Node-scope state backed by `status.metadata` (runtime-spec §1.8). */
  readonly state: MetadataState;
  /** Long-lived emitter handed to `onEmitter` (runtime-spec §1.5): hops start at depth 0. */
  readonly emitter: Emitter;
  identity: NodeIdentity;
  /** The error of the last failed reconcile (runtime-spec §3.3), cleared by a successful one. */
  lastError: Error | undefined;
  /** Every call into the component goes through it (guard.ts): a throw faults this node only. */
  readonly guard: NodeGuard;
  /** Hooks of a node's first reconcile not yet succeeded: retried each reconcile until they do once. */
  readonly firstHooksDue = new Set<"onState" | "onEmitter">(["onState", "onEmitter"]);

  #node: TinyNode;
  readonly #stop = new AbortController();
  #ports: Map<string, CachedPort> | undefined;
  /** The last port list `ports()` returned: kept when a re-read throws. */
  #lastPorts: readonly AnyPort[] = [];
  /** A fault outside a reconcile (timer, task, loop, ports(), updater): shown until the spec changes. */
  #fault: ComponentFaultError | undefined;
  #portConfigs = new PortConfigTable();
  /** The node's outbound edges and their sends (edges.ts). */
  readonly #edges: NodeEdges;
  /** Compiled configurations already checked for undeclared keys ({@link #warnOrphanedKeys}). */
  #keysChecked = new WeakSet<object>();
  #settings: { value: unknown } | undefined;
  /** When settings holding a secret placeholder were last delivered, ms on {@link #clock}. */
  #secretsAt = 0;
  readonly #clock = () => performance.now();
  /** The node's debounced status writes (status-publisher.ts). */
  readonly #status: StatusPublisher;
  /** The stop in progress or done ({@link stop}). */
  #stopping: Promise<void> | undefined;
  /** Credential field names authored in the node's `spec.ports[].schema` (runtime-spec §2.6); lazy. */
  #nodeCredentialKeys: Set<string> | undefined;

  constructor(
    readonly instance: ComponentInstance,
    readonly host: RunnerHost,
    node: TinyNode,
    log: ComponentLogger,
  ) {
    this.name = node.metadata.name;
    this.log = log;
    this.#node = node;
    this.identity = identityOf(node);
    this.#edges = new NodeEdges(this.name, host, log);
    this.guard = new NodeGuard({
      node: this.name,
      component: instance.definition.info.name,
      log,
      lifetime: this.#stop.signal,
      onFault: (e) => this.#onFault(e),
    });
    this.state = new MetadataState({
      nodeName: this.name,
      metadata: () => this.#node.status?.metadata ?? {},
      requestWrite: () => this.#schedulePatch(),
    });
    this.#status = new StatusPublisher(
      {
        name: this.name,
        log,
        guard: this.guard,
        state: this.state,
        node: () => this.#node,
        adopt: (n) => void (this.#node = n),
        ownedStatus: () => this.readStatus(false),
      },
      host.statusSink,
      host.debounceMs,
      host.statusRetry,
    );
    this.emitter = (port, data, signal) => this.output(port, data, new HopScope(signal, "", undefined), -1);
    this.setNode(node);
  }

  /** The node copy this runner works from. */
  get node(): TinyNode {
    return this.#node;
  }

  /** Aborts when the node stops. */
  get nodeSignal(): AbortSignal {
    return this.#stop.signal;
  }

  /** True once {@link stop} ran. */
  get stopped(): boolean {
    return this.#stop.signal.aborted;
  }

  /**
   * Adopts a new spec (runtime-spec §2.6 `SetNode`): identity from labels, port configs recompiled
   * only where their bytes changed, edges re-indexed (removed edges' in-flight sends cancelled), port
   * cache invalidated.
   */
  setNode(node: TinyNode): void {
    this.#node = node;
    this.identity = identityOf(node);
    const templateText = this.instance.definition.templateText;
    this.#portConfigs = compilePortConfigs(
      this.name,
      node.spec.ports,
      this.#portConfigs,
      (err) => this.log.warn({ node: this.name, err: err.message }, "edge configuration"),
      templateText && ((port) => templateText[port]),
    );
    this.#nodeCredentialKeys = undefined;
    this.#edges.set(node.spec.edges);
    this.invalidatePorts();
  }

  /** Drops the port cache; the next hop re-reads `ports()` (runtime-spec §2.6). */
  invalidatePorts(): void {
    this.#ports = undefined;
  }

  #portMap(): Map<string, CachedPort> {
    if (this.#ports) return this.#ports;
    const m = new Map<string, CachedPort>();
    const list = this.guard.call("ports()", () => uniquePorts(this.name, this.instance.ports()), this.#lastPorts); // a throw keeps the last list (cached until the next re-read)
    this.#lastPorts = list;
    for (const p of list) m.set(p.name, { spec: p, decoder: undefined, credentialKeys: undefined });
    this.#ports = m;
    return m;
  }

  /**
   * Keys masked in `port`'s span payloads whatever their value (runtime-spec §2.8 rules 1–2): the
   * fields the port's schema marks `format: password` / `writeOnly` / `secret`, plus those marked in
   * any schema authored on the node. Built on first use (only when tracing records).
   */
  credentialKeys(port: string): ReadonlySet<string> {
    if (!this.#nodeCredentialKeys) {
      const keys = new Set<string>();
      for (const p of this.#node.spec.ports ?? []) {
        if (!p.schema) continue;
        try {
          credentialKeysOfSchema(JSON.parse(Buffer.from(p.schema, "base64").toString("utf8")), keys);
        } catch {
          // an unreadable authored schema marks nothing; the key and value rules still apply
        }
      }
      this.#nodeCredentialKeys = keys;
    }
    const cached = this.#portMap().get(port);
    if (!cached) return this.#nodeCredentialKeys;
    return (cached.credentialKeys ??= credentialKeysOfSchema(cached.spec.rawSchema ?? cached.spec.schema, new Set(this.#nodeCredentialKeys)));
  }

  /** Logger for hops on `port`: the node logger with `port` bound (when it supports children). */
  portLog(port: string): ComponentLogger {
    const parent = this.log as ComponentLogger & { child?(bindings: object): ComponentLogger };
    return typeof parent.child === "function" ? parent.child({ port }) : parent;
  }

  /** True when the component currently declares `port`. */
  hasPort(port: string): boolean {
    return this.#portMap().has(port);
  }

  /** Current ports (cached). */
  ports(): AnyPort[] {
    return [...this.#portMap().values()].map((c) => c.spec);
  }

  /** Handlers still running (their hop not answered yet). */
  #inFlight = 0;
  /** Resolves a {@link drain} waiting for the last in-flight hop. */
  #drained: (() => void) | undefined;
  /** Set when this version was stopped by a reload past its grace: the failure its cut hops answer with. */
  #reloaded: Error | undefined;

  /** An in-flight hop answered: wakes a drain at zero; a hop cut by a reload answers with the reload's error. */
  #settled(result: Result): Result {
    if (--this.#inFlight === 0) this.#drained?.();
    return this.#reloaded !== undefined && result.kind === "fail" ? fail(this.#reloaded) : result;
  }

  /** Hops whose handler is still running. */
  get inFlight(): number {
    return this.#inFlight;
  }

  /**
   * Waits until no hop is in a handler of this runner, at most `ms`.
   * @returns true when drained, false when time ran out first.
   */
  async drain(ms: number): Promise<boolean> {
    if (this.#inFlight === 0) return true;
    const idle = new Promise<boolean>((resolve) => (this.#drained = () => resolve(true)));
    try {
      return await withDeadline(idle, ms, () => false);
    } finally {
      this.#drained = undefined;
    }
  }

  /**
   * Stops this version for a reload after {@link drain}: as {@link stop} without cleanup; a hop still
   * running is cancelled and answers with `reason` (the caller's retryable NodeReloadedError).
   */
  stopForReload(reason: Error): Promise<void> {
    if (this.#inFlight > 0) this.#reloaded = reason;
    return this.stop(false);
  }

  /**
   * Handles one incoming hop (runtime-spec §2.2). Never rejects: a malformed payload, a validation
   * failure, a throw or a rejection resolves as `fail(...)` for this hop only.
   */
  handle(msg: Msg, caller: HopScope): Promise<Result> {
    try {
      return this.#handle(msg, caller);
    } catch (err) {
      return Promise.resolve(fail(err));
    }
  }

  /**
   * {@link handle} without the outer guard. Not `async`: a handler that answers synchronously (a
   * router's emit hands back the downstream promise, http_server's `response` returns at once)
   * costs no extra promise; only an awaited handler result goes through {@link #finish} later.
   */
  #handle(msg: Msg, caller: HopScope): Promise<Result> {
    const port = parsePortAddress(msg.to)[1];
    if (port === "") return Promise.resolve(fail(new EmptyPortError(msg.to)));
    if (this.#stop.signal.aborted) return Promise.resolve(fail(new NodeStoppedError(this.name)));
    const cached = this.#portMap().get(port);
    if (!cached) {
      this.log.debug({ node: this.name, port }, "hop to an undeclared port ignored");
      return Promise.resolve(empty);
    }
    if (cached.spec.source && !isSystemPort(port)) {
      return Promise.resolve(
        fail(
          new PortValidationError(this.name, port, [
            { path: "$", rule: "direction", message: `port ${port} is a source (output) port and cannot receive hops` },
          ]),
        ),
      );
    }
    const span = this.host.tracer.input(this, port, msg);
    let input: unknown;
    try {
      input = this.#input(msg, port, cached, span);
    } catch (err) {
      const e = toError(err);
      span.end(e);
      return Promise.resolve(fail(e));
    }
    // runtime-spec §2.2 step 5: decode into the port's type as Go does (zero values, unknown keys
    // dropped; only a type mismatch fails). An evaluated configuration reaches Go's decoder with its
    // keys sorted (the runner JSON-encodes the map first), a signal payload as it came.
    let decoder: PortDecoder;
    try {
      decoder = cached.decoder ??= compilePortDecoder(cached.spec.schema);
    } catch (err) {
      const e = toError(err);
      span.end(e);
      return Promise.resolve(fail(e));
    }
    const decoded = decoder(input, msg.from === FROM_SIGNAL ? INPUT_ORDER : SORTED_ORDER);
    if (!decoded.ok) {
      const e = new PortValidationError(this.name, port, decoded.issues);
      span.end(e);
      return Promise.resolve(fail(e));
    }
    const data = decoded.value;
    if (span.recording) span.data(data); // Go records the decoded port data (runner.go redact.Declared(portData)); placeholders, never their values
    if (port !== SystemPort.settings) return this.#run(msg, caller, port, span, data, data);
    // runtime-spec §2.2 step 6: unchanged settings are not re-delivered — unless they hold a
    // `[[secret:…]]` placeholder and the last delivery is SECRET_RESOLVE_TTL_MS old (Go runner
    // `secretResolveTTL`): the Secret may have been created or rotated since.
    const hasSecret = containsPlaceholder(data);
    if (
      this.#settings &&
      isDeepStrictEqual(this.#settings.value, data) &&
      (!hasSecret || this.#clock() - this.#secretsAt < (this.host.secretResolveTtlMs ?? SECRET_RESOLVE_TTL_MS))
    ) {
      span.end();
      return Promise.resolve(empty);
    }
    if (!hasSecret) return this.#run(msg, caller, port, span, data, data);
    this.#secretsAt = this.#clock();
    const source = this.host.secrets ?? NO_SECRET_SOURCE;
    return resolvePlaceholders(data, (ref) => source.read(ref)).then(
      (resolved) => {
        for (const s of resolved.secrets) rememberSecretValue(s.ref.text, s.value);
        return this.#run(msg, caller, port, span, data, resolved.value);
      },
      (err: unknown) => {
        const e = toError(err);
        span.end(e);
        return fail(e);
      },
    );
  }

  /**
   * Runs a decoded hop: the handler (or hook) gets `input` — for `_settings`, `data` with its
   * secret placeholders resolved — while `data` is what the settings cache compares.
   */
  #run(msg: Msg, caller: HopScope, port: string, span: HopSpan, data: unknown, input: unknown): Promise<Result> {
    const scope = new HopScope(this.#stop.signal, msg.to, caller);
    const sourceNode = msg.from === FROM_SIGNAL ? "" : parsePortAddress(msg.from)[0];
    const ctx = new HopContext(this, scope, sourceNode, span, port);
    const depth = msg.depth;
    const output: OutputFn = (p, d) => this.output(p, d, scope, depth);
    let returned: unknown;
    try {
      // The handler runs with the input span active: its emits become children of this hop.
      returned = span.recording ? span.run(() => this.#dispatch(ctx, output, port, input)) : this.#dispatch(ctx, output, port, input);
    } catch (err) {
      return Promise.resolve(this.#finish(port, data, span, fail(this.#thrown(port, err)), ctx));
    }
    if (!isThenable(returned)) return Promise.resolve(this.#finish(port, data, span, toResult(returned), ctx));
    // A handler that returned a promise already fulfilled (a router returning its downstream
    // hop's answer) finishes now, not a microtask later (src/core/settled.ts says why).
    const now = fulfilledValue(returned);
    if (now !== NOT_FULFILLED) return Promise.resolve(this.#finish(port, data, span, toResult(now), ctx));
    // Only a handler still running after it returned is in flight (what a reload drains).
    this.#inFlight++;
    return Promise.resolve(returned).then(
      (v) => this.#settled(this.#finish(port, data, span, toResult(v), ctx)),
      (err: unknown) => this.#settled(this.#finish(port, data, span, fail(this.#thrown(port, err)), ctx)),
    );
  }

  /**
   * What a hop answers when the component threw at `port` (counted by the guard). A throw in
   * onSettings is the reconcile's error, so it names node and site; a throw in handle or onControl
   * goes back to the hop's caller as thrown (runtime-spec §2.2: retry rules read it).
   */
  #thrown(port: string, err: unknown): unknown {
    const site: FaultSite = port === SystemPort.settings ? "onSettings" : port === SystemPort.control ? "onControl" : "handle";
    const fault = this.guard.record(site, err);
    // `throw undefined` / `throw null` is still a throw: it must fail the hop, not read as a
    // handler that returned nothing (`fail(undefined)` is success, as Go's nil error).
    return site === "onSettings" ? fault : (err ?? new Error(`${site} threw ${String(err)}`));
  }

  /** The end of a hop: a successful `_settings` is cached (then ports re-read), the hop's usage is written, the span ends. */
  #finish(port: string, data: unknown, span: HopSpan, result: Result, ctx: HopContext): Result {
    if (ctx.usage && ctx.usage.size > 0) span.usage(ctx.usage); // Go writes it whether or not the hop failed
    if (port === SystemPort.settings && result.kind !== "fail") {
      // Cache only after onSettings succeeded (fix of runtime-spec §16 item 8), then re-read ports.
      this.#settings = { value: data };
      this.invalidatePorts();
    }
    span.end(result.kind === "fail" ? result.error : undefined);
    return result;
  }

  #dispatch(ctx: HopContext, output: OutputFn, port: string, data: unknown): unknown {
    const hooks: Partial<ErasedHooks> = this.instance.hooks;
    switch (port) {
      case SystemPort.settings:
        return hooks.onSettings?.(ctx, data);
      case SystemPort.control:
        return hooks.onControl?.(ctx, data, output);
      case SystemPort.reconcile:
      case SystemPort.client:
      case SystemPort.identity:
        return undefined; // runtime-spec §1.5: swallowed, never reach handle
      default:
        if (isSystemPort(port)) return undefined;
        return this.instance.handle(ctx, output, port, data);
    }
  }

  /** Typed input of a hop (runtime-spec §2.2 step 5). Throws a TinyError for undecodable payloads. */
  #input(msg: Msg, port: string, cached: CachedPort, span: HopSpan): unknown {
    if (msg.from === FROM_SIGNAL) {
      try {
        return decodePayload(msg.data);
      } catch (err) {
        throw new PayloadDecodeError(this.name, port, err);
      }
    }
    const pc = this.#portConfigs.get(msg.from, port);
    if (!pc) return cloneDefault(cached.spec.configuration); // runtime-spec §16 item 3: payload discarded
    if (pc.error) throw pc.error;
    let payload: unknown;
    try {
      payload = decodeConfiguredPayload(msg.data);
    } catch (err) {
      throw new PayloadDecodeError(this.name, port, err);
    }
    const value = evaluatePortConfig(pc, payload, (err) => {
      this.log.debug({ node: this.name, port, err: err.message }, "expression error");
      span.event("expression_error", { expression: err.expression, error: err.message });
    });
    if (!this.#keysChecked.has(pc)) this.#warnOrphanedKeys(pc, port, cached.spec.schema, value);
    return value;
  }

  /**
   * Logs, once per compiled configuration (so again after an edit), the keys the port's type drops
   * — Go's runner logs them on every hop ("orphaned keys will be silently dropped"); the decode
   * stays Go's. The line names each unknown key and the keys the port has.
   */
  #warnOrphanedKeys(pc: object, port: string, schema: unknown, value: unknown): void {
    this.#keysChecked.add(pc);
    const orphaned = orphanedKeys(value, schema);
    if (orphaned.length === 0) return;
    const list = orphaned.map((o) => `${JSON.stringify(o.path)} (known: ${o.known.join(", ")})`).join("; ");
    const from = (pc as { from?: string }).from;
    this.log.warn(
      { node: this.name, port, from: from || undefined, orphanedKeys: orphaned.map((o) => o.path) },
      `configuration of port ${port} has keys the port does not declare, dropped when decoded: ${list}`,
    );
  }

  /**
   * Emits `data` on `port` from inside a hop at `depth` (-1 for the long-lived emitter) — runtime-spec
   * §2.4. `_control` and `_reconcile` schedule a status patch; `node:port` sends one direct hop; any
   * other port fans out to its edges concurrently and resolves to the first result by completion.
   */
  output(port: string, data: unknown, scope: HopScope, depth: number): Promise<Result> {
    if (port === SystemPort.control) {
      this.invalidatePorts();
      this.#schedulePatch();
      return Promise.resolve(empty);
    }
    if (port === SystemPort.reconcile) {
      if (typeof data === "function") this.#status.addUpdater(data as NodeUpdater);
      this.#schedulePatch();
      return Promise.resolve(empty);
    }
    // runtime-spec §2.8: an output span per emit, active while the hop is sent, so the downstream
    // hop (in-process, or on a wire whose transport injects the active context) is its child.
    const span = this.host.tracer.output(this, port, data);
    if (!span.recording) return this.#emit(port, data, scope, depth);
    return span
      .run(() => this.#emit(port, data, scope, depth))
      .then((r) => {
        span.end(r.kind === "fail" ? r.error : undefined);
        return r;
      });
  }

  /** Sends an emit on a data port along the node's edges (edges.ts). */
  #emit(port: string, data: unknown, scope: HopScope, depth: number): Promise<Result> {
    return this.#edges.emit(port, data, scope, depth, (p) => this.#portMap().get(p)?.spec.responseSchema);
  }

  /** Context for lifecycle hooks: the node's lifetime signal, no source node. */
  hookContext(): ComponentContext<unknown> {
    return new HopContext(this, new HopScope(this.#stop.signal, "", undefined), "", this.host.tracer.active);
  }

  /**
   * Calls hook `name` if the component has it, inside the guard.
   * @throws ComponentFaultError naming node, component and hook (already logged and counted).
   */
  async callHook<K extends Exclude<keyof ErasedHooks, "onControl">>(name: K, arg: Parameters<ErasedHooks[K]>[1]): Promise<void> {
    const fn = this.instance.hooks[name] as ((ctx: ComponentContext<unknown>, a: unknown) => unknown) | undefined;
    if (fn) await this.guard.hook(name, () => fn(this.hookContext(), arg));
  }

  /** A fault outside a reconcile: kept for the status, written soon (the same fault again writes nothing new). */
  #onFault(e: ComponentFaultError): void {
    const same = this.#fault?.message === e.message;
    this.#fault = e;
    if (!same) this.#schedulePatch();
  }

  /** Forgets the fault outside a reconcile (the scheduler calls it when the node's spec changed). */
  clearFault(): void {
    this.#fault = undefined;
  }

  /**
   * Delivers the node's settings (runtime-spec §3.3): a `_settings` hop from `""` with payload `{}`,
   * so the node-own `_settings` config (or the port default) applies; deduplicated.
   */
  deliverSettings(): Promise<Result> {
    if (!this.hasPort(SystemPort.settings)) return Promise.resolve(empty);
    return this.handle({ edgeId: "", from: "", to: `${this.name}:${SystemPort.settings}`, data: {}, depth: 0 }, new HopScope(undefined, "", undefined));
  }

  /**
   * The status fields the runtime owns (runtime-spec §2.6): status, error, ports, component. A
   * failed reconcile shows first, then an edge configuration that does not compile, then failing
   * status writes ({@link StatusWriteError}) — the last only when `withWriteFailure` (the
   * reconciler's write; the runner's own write leaves it out, since if it succeeds the failure is over).
   */
  readStatus(withWriteFailure = true): TinyNodeStatus {
    this.invalidatePorts(); // ReadStatus always calls Ports() fresh
    const ports = this.ports(); // first: a throwing ports() is a fault this status must show
    const problem = this.lastError ?? this.#fault ?? this.#portConfigs.problem ?? (withWriteFailure ? this.writeFailure : undefined);
    return {
      status: problem ? statusText(problem.message) : "OK", // bounded: a huge message must not break the write
      error: problem !== undefined,
      ports: statusPorts(ports),
      component: statusComponent(this.instance.definition.info),
    };
  }

  #schedulePatch(): void {
    if (this.#stop.signal.aborted) return;
    this.#status.request();
  }

  /** Status writes waiting or running for this node (tests, diagnostics); `failures` = failed writes in a row, `carried` = metadata keys of failed `_reconcile` updaters. */
  get pendingWrites(): PendingWrites {
    return this.#status.pending;
  }

  /** The failing status writes as an error (node, failures in a row, cause, unwritten state keys), or undefined while they succeed. */
  get writeFailure(): StatusWriteError | undefined {
    return this.#status.writeFailure;
  }

  /**
   * Stops the runner (runtime-spec §2.10): flush the pending patch — a failing write retried with
   * backoff until `deadline` aborts (default {@link DEFAULT_STOP_FLUSH_MS}) — then refuse further
   * state writes (what could not be written is rejected to its waiters and logged as an error
   * naming the keys), then (when `cleanup`, i.e. the node was deleted) `onDestroy` with a copy of
   * the last metadata, then abort the node signal so in-flight handlers see cancellation. Never
   * rejects: the scheduler already dropped this runner, so whatever fails here, the node signal must
   * still fire or the component's background loops would run on.
   */
  stop(cleanup: boolean, deadline?: AbortSignal): Promise<void> {
    // A second caller (a shutdown during a reload's stop) waits for the same stop, flush included.
    return (this.#stopping ??= this.#stopOnce(cleanup, deadline));
  }

  async #stopOnce(cleanup: boolean, deadline: AbortSignal | undefined): Promise<void> {
    await this.#status.close(deadline);
    if (cleanup) {
      try {
        await this.callHook("onDestroy", { ...(this.#node.status?.metadata ?? {}) });
      } catch {
        // logged and counted by the guard (site onDestroy); deletion goes on
      }
    }
    this.#edges.cancelAll(new NodeStoppedError(this.name));
    this.#stop.abort(new NodeStoppedError(this.name));
  }
}

/** Node identity from the node's name, namespace and flow/project labels (runtime-spec §1.4). */
export function identityOf(node: TinyNode): NodeIdentity {
  const labels = node.metadata.labels ?? {};
  return {
    nodeName: node.metadata.name,
    namespace: node.metadata.namespace ?? "",
    flowName: labels[LABEL_FLOW_NAME] ?? "",
    projectName: labels[LABEL_PROJECT_NAME] ?? "",
  };
}
