/**
 * Where local mode decides what the terminal says about a running flow: it hears every hop
 * (src/local/hop-watch.ts) and every runtime warning or error (src/local/human-log.ts) and turns
 * each event into at most one line through the {@link FailureLog} — or into nothing, when another
 * line already says it:
 * - a hop failure is printed where it happened, once (rate-limited);
 * - a settings failure during a reconcile, and the scheduler's "reconcile failed" log line, are
 *   left to the node's status line;
 * - an http_server bind failure (a failed `start` hop, or the `restore from metadata failed` log
 *   line) becomes the node's status ({@link FlowEventsHost.listenFailed});
 * - a component warning that repeats a printed failure (`signal: downstream failed: …`) is dropped;
 * - an emit that goes nowhere (undeclared port, no edges) gets a one-time note;
 * - http_server answering the flow's result with HTTP 500 (no response, an invalid one) is printed
 *   at its `request` port, since no hop failed;
 * - every message a `debug` node receives is printed ({@link DebugLines}, rate-limited with a count
 *   of what was not printed);
 * - every hop is handed to the hop listeners ({@link FlowEvents.onHop}: the console's stream).
 */
import { checkResponse } from "../sdk/http/server-response.ts";
import type { Runner } from "../runtime/runner/runner.ts";
import { TinyError } from "../core/errors.ts";
import { SystemPort } from "../core/ports.ts";
import { HTTP_SERVER_COMPONENT } from "./constants.ts";
import type { DebugLines } from "./debug-lines.ts";
import type { FailureLog } from "./failure-log.ts";
import type { HopRecord, HopWatcher } from "./hop-watch.ts";
import { logEventText, type LogEvent } from "./human-log.ts";
import { HTTP_LISTEN_ERROR_CODE, isListenError, isPortInUse, listenErrorPort, type ListenFailure } from "./listen-watch.ts";

/** http_server's port whose emits carry a request and resolve to the flow's Response (components.md §2.1). */
export const HTTP_REQUEST_PORT = "request";

/** The component whose received messages are printed (components.md §1.12). */
export const DEBUG_COMPONENT = "debug";

/** Hears every hop that ended (see {@link FlowEvents.onHop}); must not throw. */
export type HopListener = (record: HopRecord) => void;

/** What {@link FlowEvents} needs from the local host. */
export interface FlowEventsHost {
  /** True once the host stops: events are ignored from then on. */
  stopped(): boolean;
  /** `spec.component` of declared node `name`, if declared. */
  componentOf(name: string): string | undefined;
  /** The runner of node `name`, if it has one. */
  runner(name: string): Runner | undefined;
  /** An http_server could not bind: make it the node's status. */
  listenFailed(failure: ListenFailure): void;
}

/** Turns hops and runtime log lines into terminal lines (see the module comment). */
export class FlowEvents {
  /** Ports with edges, per node spec object (a new spec is a new object: the cache follows it). */
  readonly #edgePorts = new WeakMap<object, ReadonlySet<string>>();
  readonly #hopListeners = new Set<HopListener>();

  /**
   * @param host what the events are about.
   * @param failures the terminal's hop failures, notes and warnings.
   * @param debug where debug nodes' messages are printed; absent → not printed.
   */
  constructor(
    readonly host: FlowEventsHost,
    readonly failures: FailureLog,
    readonly debug?: DebugLines,
  ) {}

  /**
   * Hands every hop that ends from now on to `listener` (the console's stream) until the returned
   * function is called. While no listener is registered, only hops into debug nodes are recorded.
   */
  onHop(listener: HopListener): () => void {
    this.#hopListeners.add(listener);
    return () => void this.#hopListeners.delete(listener);
  }

  /** The {@link HopWatcher} for `hopWatchingTracer`. */
  watcher(): HopWatcher {
    return {
      inputFailed: (node, port, from, error) => {
        if (this.host.stopped()) return;
        if (isListenError(error) && this.#isHttpServer(node)) {
          this.failures.claim(error);
          this.host.listenFailed({ node, error, inUse: isPortInUse(error) });
          return;
        }
        if (port === SystemPort.settings && from === "") {
          this.failures.claim(error); // a reconcile's settings delivery: the node's status line reports it
          return;
        }
        this.failures.hop(node, port, from, error);
      },
      expressionFailed: (node, port, from, message) => {
        if (!this.host.stopped()) this.failures.expression(node, port, from, message);
      },
      emitted: (node, port) => this.#checkEmit(node, port),
      outputFailed: (node, port, error) => {
        if (!this.host.stopped()) this.failures.emit(node, port, error);
      },
      wantsResult: (node, port) => port === HTTP_REQUEST_PORT && this.#isHttpServer(node),
      emitResult: (node, port, result) => {
        if (this.host.stopped() || result.kind === "fail") return;
        const check = checkResponse(result.kind === "ok" ? result.value : undefined);
        if (!check.ok) this.failures.emit(node, port, new Error(`invalid response: ${check.problem}`));
      },
      wantsHop: (node, port) => this.#hopListeners.size > 0 || this.#isDebugMessage(node, port),
      hop: (record) => {
        if (this.host.stopped()) return;
        if (this.debug && record.data !== undefined && !record.error && this.#isDebugMessage(record.node, record.port))
          this.debug.message(record.node, record.data);
        for (const listener of this.#hopListeners) listener(record);
      },
    };
  }

  /** A message into a debug node's data port (its `_settings` and `_control` are not messages). */
  #isDebugMessage(node: string, port: string): boolean {
    return !port.startsWith("_") && this.host.componentOf(node) === DEBUG_COMPONENT;
  }

  /**
   * A warning or error of the runtime or a component: dropped when it repeats an event already
   * printed — a failed reconcile (the node's status line says it), a hop failure (printed where it
   * happened) — turned into the node's status for an http_server bind failure, else printed as one
   * rate-limited human line.
   */
  log(e: LogEvent): void {
    if (this.host.stopped()) return;
    if (e.err !== undefined && e.node !== "") {
      if (this.host.runner(e.node)?.lastError?.message === e.err) return;
      if (this.#isHttpServer(e.node) && listenErrorPort(e.err) !== undefined) {
        const error = new TinyError(HTTP_LISTEN_ERROR_CODE, e.err);
        this.failures.claim(error);
        this.host.listenFailed({ node: e.node, error, inUse: isPortInUse(error) });
        return;
      }
    }
    this.failures.log(e.level, e.node, e.port, logEventText(e), e.err);
  }

  #isHttpServer(node: string): boolean {
    return this.host.componentOf(node) === HTTP_SERVER_COMPONENT;
  }

  /**
   * A note, once per node and port, when a component emits where nothing listens: on a port it
   * does not declare, or on one without edges (runtime-spec §2.4: such an emit resolves empty, so
   * an HTTP caller only sees "the flow returned no response").
   */
  #checkEmit(node: string, port: string): void {
    if (this.host.stopped() || port.includes(":") || this.failures.noted(node, port)) return;
    const runner = this.host.runner(node);
    if (!runner) return;
    const spec = runner.node.spec;
    let withEdges = this.#edgePorts.get(spec);
    if (!withEdges) {
      withEdges = new Set((spec.edges ?? []).map((e) => e.port));
      this.#edgePorts.set(spec, withEdges);
    }
    if (withEdges.has(port)) return;
    const ports = runner.ports();
    if (ports.some((p) => p.name === port && p.source)) {
      this.failures.note(node, port, `node ${node} emitted on port ${JSON.stringify(port)}, which has no edges; the message went nowhere`);
    } else {
      const outputs =
        ports
          .filter((p) => p.source && !p.name.startsWith("_"))
          .map((p) => p.name)
          .join(", ") || "none";
      const component = runner.instance.definition.info.name;
      this.failures.note(
        node,
        port,
        `node ${node} emitted on port ${JSON.stringify(port)}, which ${component} does not declare as an output (its output ports: ${outputs}); the message went nowhere`,
      );
    }
  }
}
