/**
 * A node's outbound edges (runtime-spec §2.4, §2.5): the edge table of the node's spec, the fan-out
 * of an emit to a port's edges (first result by completion), and each edge send with its retry
 * policy and timeout.
 */
import type { ComponentLogger } from "../../core/context.ts";
import type { TinyNodeEdge } from "../../core/node.ts";
import { empty, fail, type Result } from "../../core/result.ts";
import type { Msg } from "../../core/hop.ts";
import { sleepUnlessAborted } from "../../core/abortable-sleep.ts";
import { fulfilledValue, NOT_FULFILLED } from "../../core/settled.ts";
import { startTimer } from "../../core/timer.ts";
import { EdgeTimeoutError, HopCancelledError } from "./errors.ts";
import { backoffDelayMs, DEFAULT_RETRY_POLICY, isDeadlineOf, mayRetry, resolveRetryPolicy, type ResolvedRetryPolicy } from "./retry.ts";
import { HopScope } from "./scope.ts";

/** Where an edge send goes: the scheduler's router (runtime-spec §3.5). */
export interface EdgeRouter {
  /** Delivers a hop and resolves to the downstream result. */
  route(msg: Msg, scope: HopScope): Promise<Result>;
}

interface EdgeRoute {
  readonly edge: TinyNodeEdge;
  readonly from: string;
  readonly policy: ResolvedRetryPolicy;
  /** Aborts sends on this edge when it disappears from the spec (runtime-spec §2.5 `cancelRemovedEdges`). */
  readonly cancel: AbortController;
}

/** Waits `ms` unless the hop's scope is cancelled first (false then). */
function sleep(ms: number, scope: HopScope): Promise<boolean> {
  return scope.aborted ? Promise.resolve(false) : sleepUnlessAborted(ms, scope.toSignal());
}

/** The first non-empty `ok` by completion; else the first failure by completion; else empty (runtime-spec §2.4). */
function firstResult(sends: Promise<Result>[]): Promise<Result> {
  return new Promise((resolve) => {
    let left = sends.length;
    let firstFail: Result | undefined;
    let done = false;
    for (const p of sends) {
      void p.then((r) => {
        left--;
        if (done) return;
        if (r.kind === "ok" && r.value !== undefined && r.value !== null) {
          done = true;
          resolve(r);
          return;
        }
        if (r.kind === "fail" && !firstFail) firstFail = r;
        if (left === 0) resolve(firstFail ?? empty);
      });
    }
  });
}

/** The outbound edges of one node. */
export class NodeEdges {
  #edges = new Map<string, EdgeRoute[]>();
  #edgeById = new Map<string, EdgeRoute>();

  /**
   * @param name - the node's name (`from` of its sends, log lines).
   * @param router - where sends go.
   * @param log - the node's logger (retries are logged at debug).
   */
  constructor(
    readonly name: string,
    readonly router: EdgeRouter,
    readonly log: ComponentLogger,
  ) {}

  /** Re-indexes the spec's edges (de-duplicated by port+to); a removed or re-targeted edge's in-flight sends are cancelled. */
  set(edges: readonly TinyNodeEdge[] | undefined): void {
    const byPort = new Map<string, EdgeRoute[]>();
    const byId = new Map<string, EdgeRoute>();
    const seen = new Set<string>();
    for (const edge of edges ?? []) {
      const dedup = edge.port + edge.to; // runtime-spec §2.4: de-duplicate by port+to
      if (seen.has(dedup)) continue;
      seen.add(dedup);
      const prev = this.#edgeById.get(edge.id);
      const route: EdgeRoute = {
        edge,
        from: `${this.name}:${edge.port}`,
        policy: resolveRetryPolicy(edge.retryPolicy),
        cancel: prev && prev.edge.to === edge.to ? prev.cancel : new AbortController(),
      };
      byId.set(edge.id, route);
      const list = byPort.get(edge.port);
      if (list) list.push(route);
      else byPort.set(edge.port, [route]);
    }
    for (const [id, r] of this.#edgeById) if (byId.get(id)?.cancel !== r.cancel) r.cancel.abort(new Error(`edge ${id} removed`));
    this.#edges = byPort;
    this.#edgeById = byId;
  }

  /** Cancels every edge's in-flight sends with `reason` (the node stops). */
  cancelAll(reason: Error): void {
    for (const r of this.#edgeById.values()) r.cancel.abort(reason);
  }

  /**
   * Sends an emit on a data port: one direct hop (`node:port`), or fan-out to the port's edges
   * (runtime-spec §2.4). `responseSchema` is read only when the port has edges.
   */
  emit(port: string, data: unknown, scope: HopScope, depth: number, responseSchema: (port: string) => unknown): Promise<Result> {
    const next = depth + 1;
    if (port.includes(":")) {
      return this.#send({ edgeId: "", from: "", to: port, data, depth: next }, DEFAULT_RETRY_POLICY, scope);
    }
    const routes = this.#edges.get(port);
    if (!routes) return Promise.resolve(empty);
    const schema = responseSchema(port);
    const send = (r: EdgeRoute) => {
      const msg: Msg = { edgeId: r.edge.id, from: r.from, to: r.edge.to, data, depth: next };
      if (schema) msg.responseSchema = schema;
      return this.#send(msg, r.policy, new HopScope(r.cancel.signal, "", scope));
    };
    if (routes.length === 1) return send(routes[0]!);
    return firstResult(routes.map(send));
  }

  /** One edge send with its retry policy (runtime-spec §2.5). */
  #send(msg: Msg, policy: ResolvedRetryPolicy, scope: HopScope): Promise<Result> {
    if (policy.timeoutMs === 0) return this.#attempts(msg, policy, scope);
    msg.deadlineUnixMs = Date.now() + policy.timeoutMs; // a wire transport sends it as the call deadline
    const deadline = new AbortController();
    const bounded = new HopScope(deadline.signal, "", scope);
    return new Promise<Result>((resolve) => {
      const t = startTimer(policy.timeoutMs, () => {
        const e = new EdgeTimeoutError(msg.edgeId, msg.to, policy.timeoutMs);
        deadline.abort(e);
        resolve(fail(e));
      });
      void this.#attempts(msg, policy, bounded).then((r) => {
        t.cancel();
        // The wire's deadline error for this very deadline is the edge timing out (whichever timer fired first).
        resolve(
          r.kind === "fail" && isDeadlineOf(r.error, msg.deadlineUnixMs!) ? fail(new EdgeTimeoutError(msg.edgeId, msg.to, policy.timeoutMs, r.error)) : r,
        );
      });
    });
  }

  /**
   * The attempts of one send (runtime-spec §2.5). The first attempt is not `async`: most hops
   * succeed at once, and an `async` wrapper costs a promise per hop; retries continue in {@link #retry}.
   */
  #attempts(msg: Msg, policy: ResolvedRetryPolicy, scope: HopScope): Promise<Result> {
    if (scope.aborted) return Promise.resolve(fail(new HopCancelledError(msg.to, scope.reason)));
    let first: Promise<Result>;
    try {
      first = this.router.route(msg, scope);
    } catch (err) {
      first = Promise.resolve(fail(err));
    }
    // Already answered and nothing to retry: the attempt's own promise is the send's answer.
    const now = fulfilledValue(first);
    if (now !== NOT_FULFILLED && (now.kind !== "fail" || policy.maxAttempts <= 1 || !mayRetry(policy, 1, now.error))) return first;
    if (policy.maxAttempts <= 1) return first.catch((err: unknown) => fail(err));
    return first.then(
      (r) => (r.kind !== "fail" || !mayRetry(policy, 1, r.error) ? r : this.#retry(msg, policy, scope, r)),
      (err: unknown) => this.#retry(msg, policy, scope, fail(err)),
    );
  }

  /** Attempts 2.. of a send whose attempt 1 failed with `failed` (backoff, then route again). */
  async #retry(msg: Msg, policy: ResolvedRetryPolicy, scope: HopScope, failed: Result): Promise<Result> {
    let r: Result = failed;
    for (let attempt = 1; ; attempt++) {
      if (r.kind !== "fail" || !mayRetry(policy, attempt, r.error)) return r;
      this.log.debug({ node: this.name, to: msg.to, attempt, err: r.error.message }, "retrying hop");
      if (!(await sleep(backoffDelayMs(policy, attempt), scope))) return fail(new HopCancelledError(msg.to, scope.reason));
      if (scope.aborted) return fail(new HopCancelledError(msg.to, scope.reason));
      try {
        r = await this.router.route(msg, scope);
      } catch (err) {
        r = fail(err);
      }
    }
  }
}
