/**
 * The manager of runnables (controller-runtime `pkg/manager`): every long-lived part of a module
 * process is a {@link Runnable} added to a {@link RunnableGroup}. The manager starts the groups in
 * {@link RUNNABLE_GROUPS} order (the runnables of a group one after another, in the order they were
 * added — or all at once for a group named in {@link ManagerOptions.concurrentGroups}) and stops
 * them in reverse order (the runnables of a group concurrently), all inside one graceful-shutdown
 * budget. Ordering is a property of the groups, not of a start-up function.
 *
 * Why this order (docs/architecture.md "One process shape"; runtime-spec §9, §12):
 * - `servers` first and last: /healthz answers during start-up and until the very end.
 * - `stores` (local mode's in-memory API and state file): outlive everything that writes to them,
 *   so the state file is flushed after the runners' last status patches.
 * - `election`: campaigning before work starts; the Lease is released only after the runners
 *   stopped and their status was flushed (client-go `ReleaseOnCancel`).
 * - `runners`: nothing to start; stopping stops every runner without onDestroy, flushing debounced
 *   status patches (runtime-spec §2.10).
 * - `controllers`: watches and reconcile workers; they create runners, so they start after the
 *   runners' group and stop before it.
 * - `receivers` last: work from outside (transport receivers) is taken only once everything that
 *   handles it runs, and it is the first thing to stop on shutdown — queue-group peers and other
 *   JetStream pullers take over, in-flight hops finish while the controllers still run (a hop
 *   waiting for its node can still get it).
 * - `listeners` (component HTTP listeners' drain, stop-only): stops before the receivers, so an
 *   in-flight HTTP request's flow can still take its hops back from the wire — the platform's usual
 *   shape, http_server in one module, the work in another, the answer back on `response`.
 *   With no request in flight it ends at once and the receivers stop right after.
 *
 * A runnable that dies on its own reports it through {@link RunContext.fatal}: the manager logs
 * it, stops everything, and {@link Manager.done} resolves with exit code 1 ("a module that dies
 * reports that it died", runtime-spec §9).
 */
import { TinyError, messageOf } from "../core/errors.ts";
import type { Logger } from "../telemetry/log.ts";
import { startTimer, withDeadline } from "../core/timer.ts";

/** The groups, in start order (stop order is the reverse). See the module comment for why. */
export const RUNNABLE_GROUPS = ["servers", "stores", "election", "runners", "controllers", "receivers", "listeners"] as const;

/** One of {@link RUNNABLE_GROUPS}. */
export type RunnableGroup = (typeof RUNNABLE_GROUPS)[number];

/** Handed to {@link Runnable.start}. */
export interface RunContext {
  /** The part died on its own (a watch loop ended, a connection closed for good): stop the process with exit code 1. */
  fatal(err: unknown): void;
}

/** Handed to {@link Runnable.stop}. */
export interface StopContext {
  /** Aborts when the shared shutdown budget is spent. */
  readonly signal: AbortSignal;
  /** Milliseconds left of the shutdown budget (≥ 0). */
  remainingMs(): number;
}

/** A long-lived part of the process (controller-runtime `manager.Runnable`). Both hooks are optional. */
export interface Runnable {
  /** Name for logs, e.g. `tinynode controller`. */
  readonly name: string;
  /** Brings the part up; resolves once it is up (listening, watching). Throwing fails {@link Manager.start}. */
  start?(ctx: RunContext): Promise<void> | void;
  /** Takes the part down; resolves once it is down. Should finish within `ctx.remainingMs()`. */
  stop?(ctx: StopContext): Promise<void> | void;
}

/** Default graceful-shutdown budget, ms: inside the chart's 10 s termination grace period (runtime-spec §12). */
export const DEFAULT_SHUTDOWN_BUDGET_MS = 8_000;

/**
 * How long each group is still waited for once the budget is spent, ms: enough for one request
 * (releasing the Lease spares the other replicas a full lease duration), short enough to stay
 * inside the grace period.
 */
export const SHUTDOWN_OVERTIME_MS = 250;

/** Options of a {@link Manager}. */
export interface ManagerOptions {
  /** Where start/stop steps are logged. */
  log: Logger;
  /** One budget for the whole graceful shutdown, ms; default {@link DEFAULT_SHUTDOWN_BUDGET_MS}. */
  shutdownBudgetMs?: number;
  /**
   * Groups whose runnables start all at once instead of in turn (their waits overlap; the group is
   * done when every one started). Only for groups whose members do not need each other started:
   * cluster mode's `controllers` (the TinyNode list and the own TinyModule registration are
   * independent round trips). Default: none.
   */
  concurrentGroups?: readonly RunnableGroup[];
}

/** A runnable failed to start; names it. code `"MANAGER_START"`. */
export class ManagerStartError extends TinyError {
  /** The runnable that failed. */
  readonly runnable: string;
  /** @param runnable - its name. @param cause - what its start threw. */
  constructor(runnable: string, cause: unknown) {
    super("MANAGER_START", `start-up failed at stage "${runnable}": ${messageOf(cause)}`, { cause });
    this.runnable = runnable;
  }
}

/** A runnable was added to a manager that is stopping, or `start` was called twice. code `"MANAGER_STATE"`. */
export class ManagerStateError extends TinyError {
  /** @param message - what was refused. */
  constructor(message: string) {
    super("MANAGER_STATE", message);
  }
}

/** Starts and stops runnables by group (see the module comment). */
export class Manager {
  readonly #log: Logger;
  readonly #budgetMs: number;
  readonly #concurrent: ReadonlySet<RunnableGroup>;
  readonly #groups = new Map<RunnableGroup, Runnable[]>(RUNNABLE_GROUPS.map((g) => [g, []]));
  /** Runnables whose start resolved, in start order. */
  readonly #started: { group: RunnableGroup; runnable: Runnable }[] = [];
  /** Index in RUNNABLE_GROUPS of the group being started (-1 before start). */
  #current = -1;
  /** Index in RUNNABLE_GROUPS of the last group whose start finished (-1 before start). */
  #completed = -1;
  #stopping: Promise<void> | undefined;
  #exitCode = 0;
  readonly #done = Promise.withResolvers<number>();

  /** @param o - see {@link ManagerOptions}. */
  constructor(o: ManagerOptions) {
    this.#log = o.log;
    this.#budgetMs = o.shutdownBudgetMs ?? DEFAULT_SHUTDOWN_BUDGET_MS;
    this.#concurrent = new Set(o.concurrentGroups ?? []);
  }

  /** Resolves with the exit code once everything stopped: 0 after {@link stop}, 1 after a fatal error. */
  get done(): Promise<number> {
    return this.#done.promise;
  }

  /** True once {@link stop} was called (or a fatal error started it). */
  get stopping(): boolean {
    return this.#stopping !== undefined;
  }

  /**
   * Adds `runnable` to `group`. Before {@link start}, it starts with its group; after its group
   * started, it starts now (a start failure is then fatal).
   * @throws ManagerStateError once the manager is stopping.
   */
  add(group: RunnableGroup, runnable: Runnable): this {
    if (this.#stopping) throw new ManagerStateError(`cannot add ${runnable.name}: the manager is stopping`);
    this.#groups.get(group)!.push(runnable);
    if (RUNNABLE_GROUPS.indexOf(group) <= this.#completed) {
      void this.#startOne(group, runnable).catch((err) => this.#fatal(runnable.name, err));
    }
    return this;
  }

  /**
   * Starts every group in order.
   * @throws ManagerStartError naming the runnable whose start threw; what already started is stopped first.
   * @throws ManagerStateError when called twice.
   */
  async start(): Promise<void> {
    if (this.#current >= 0) throw new ManagerStateError("the manager was already started");
    for (const [i, group] of RUNNABLE_GROUPS.entries()) {
      this.#current = i;
      // Index loop: a start may add runnables to its own group (they start in turn, or as the next batch).
      const list = this.#groups.get(group)!;
      const batch = this.#concurrent.has(group);
      for (let j = 0; j < list.length; ) {
        if (this.#stopping) return;
        const members = batch ? list.slice(j) : [list[j]!];
        j += members.length;
        const results = await Promise.allSettled(members.map((r) => this.#startOne(group, r)));
        const failed = results.findIndex((r) => r.status === "rejected");
        if (failed >= 0) {
          const runnable = members[failed]!;
          const err = (results[failed] as PromiseRejectedResult).reason;
          this.#log.error({ runnable: runnable.name, err: messageOf(err) }, `start failed: ${runnable.name}`);
          await this.stop(`start-up failed at ${runnable.name}`);
          throw new ManagerStartError(runnable.name, err);
        }
      }
      this.#completed = i;
    }
  }

  /**
   * Stops every started runnable, groups in reverse order, within the shutdown budget. A group
   * whose runnables overrun the budget is left behind (logged) and the next group is stopped
   * anyway, each waited for at most {@link SHUTDOWN_OVERTIME_MS} once the budget is spent.
   * Idempotent: later calls resolve when the first one finished.
   */
  stop(reason: string): Promise<void> {
    this.#stopping ??= this.#stopAll(reason);
    return this.#stopping;
  }

  async #startOne(group: RunnableGroup, runnable: Runnable): Promise<void> {
    const t0 = performance.now();
    await runnable.start?.({ fatal: (err) => this.#fatal(runnable.name, err) });
    this.#log.info({ group, runnable: runnable.name, ms: Math.round(performance.now() - t0) }, `start: ${runnable.name}`);
    // Started while the manager began stopping: its group may be done already, so stop it now.
    if (this.#stopping) await this.#stopOne(runnable, { signal: AbortSignal.timeout(0), remainingMs: () => 0 });
    else this.#started.push({ group, runnable });
  }

  #fatal(name: string, err: unknown): void {
    if (this.#stopping) return;
    this.#exitCode = 1;
    this.#log.fatal({ runnable: name, err: messageOf(err) }, "fatal error; the process stops");
    void this.stop(`fatal: ${name}`);
  }

  async #stopAll(reason: string): Promise<void> {
    const t0 = performance.now();
    const budget = new AbortController();
    const timer = startTimer(this.#budgetMs, () => budget.abort());
    const ctx: StopContext = { signal: budget.signal, remainingMs: () => Math.max(0, this.#budgetMs - (performance.now() - t0)) };
    this.#log.info({ reason }, "shutting down");
    try {
      for (const group of [...RUNNABLE_GROUPS].reverse()) {
        const members = this.#started.filter((s) => s.group === group).map((s) => s.runnable);
        if (members.length === 0) continue;
        const all = Promise.all(members.map((r) => this.#stopOne(r, ctx))).then(() => true);
        const finished = await withDeadline(all, Math.max(ctx.remainingMs(), SHUTDOWN_OVERTIME_MS), () => false);
        if (!finished) this.#log.warn({ group, budgetMs: this.#budgetMs }, `shutdown budget spent while stopping ${group}; going on`);
      }
    } finally {
      timer.cancel();
    }
    this.#log.info({ ms: Math.round(performance.now() - t0), exitCode: this.#exitCode }, "stopped");
    this.#done.resolve(this.#exitCode);
  }

  async #stopOne(runnable: Runnable, ctx: StopContext): Promise<void> {
    const t0 = performance.now();
    try {
      await runnable.stop?.(ctx);
    } catch (err) {
      this.#log.warn({ runnable: runnable.name, err: messageOf(err) }, `shutdown step failed: ${runnable.name}`);
    }
    this.#log.info({ runnable: runnable.name, ms: Math.round(performance.now() - t0) }, `shutdown: ${runnable.name}`);
  }
}
