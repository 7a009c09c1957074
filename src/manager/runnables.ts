/**
 * Adapters that turn the shapes our long-lived parts already have into {@link Runnable}s, so adding
 * one to a manager is one line: `mgr.add("controllers", loop("tinynode controller", (s) => c.run(s)))`.
 */
import type { Runnable, StopContext } from "./manager.ts";
import { bounded } from "../core/timer.ts";

/** Options of {@link loop}. */
export interface LoopOptions {
  /** Longest wait for the loop to end after its signal aborted, ms (bounded further by the budget). Default: the whole budget. */
  stopTimeoutMs?: number;
}

/**
 * A part that runs until its signal aborts (`Controller.run`, `LeaderElector.run`): start calls
 * `run` with a fresh signal and returns at once; stop aborts it and waits until `run` resolved
 * (bounded). `run` ending or rejecting before stop is fatal.
 */
export function loop(name: string, run: (signal: AbortSignal) => Promise<unknown>, opts: LoopOptions = {}): Runnable {
  const abort = new AbortController();
  let running: Promise<unknown> = Promise.resolve();
  return {
    name,
    start(ctx) {
      running = run(abort.signal).then(
        () => abort.signal.aborted || ctx.fatal(new Error(`${name} stopped unexpectedly`)),
        (err) => abort.signal.aborted || ctx.fatal(err),
      );
    },
    async stop(ctx: StopContext) {
      abort.abort();
      await bounded(running, Math.min(opts.stopTimeoutMs ?? Infinity, ctx.remainingMs()));
    },
  };
}

/** A loop started before the manager: {@link earlyLoop}. */
export interface EarlyLoop {
  /** The runnable to add to the manager: its start adopts the running loop, its stop ends it. */
  readonly runnable: Runnable;
  /** Ends the loop when the manager never took it over (start-up failed before); waits up to `ms`. */
  cancel(ms?: number): Promise<void>;
}

/**
 * {@link loop} for a part that must start before the manager can (the Lease campaign: it needs only
 * the API client, so it runs while the rest of the process is still being built). `run`
 * is called now; the runnable's start adopts it — an end or failure that came before is reported
 * to the manager then, later ones at once (fatal) — and its stop aborts and waits, bounded.
 */
export function earlyLoop(name: string, run: (signal: AbortSignal) => Promise<unknown>, opts: LoopOptions = {}): EarlyLoop {
  const abort = new AbortController();
  let fatal: ((err: unknown) => void) | undefined;
  let early: { err: unknown } | undefined;
  const report = (err: unknown) => {
    if (abort.signal.aborted) return;
    if (fatal) fatal(err);
    else early ??= { err };
  };
  const running = run(abort.signal).then(() => report(new Error(`${name} stopped unexpectedly`)), report);
  return {
    runnable: {
      name,
      start(ctx) {
        fatal = (err) => ctx.fatal(err);
        if (early) ctx.fatal(early.err);
      },
      async stop(ctx: StopContext) {
        abort.abort();
        await bounded(running, Math.min(opts.stopTimeoutMs ?? Infinity, ctx.remainingMs()));
      },
    },
    async cancel(ms = 2_000) {
      abort.abort();
      await bounded(running, ms);
    },
  };
}

/** A part with only a start step (a one-shot registration, a listener that closes with something else). */
export function task(name: string, start: () => Promise<unknown> | unknown): Runnable {
  return { name, start: async () => void (await start()) };
}

/** A part with only a stop step (stop the runners, flush a file). */
export function onStop(name: string, stop: (ctx: StopContext) => Promise<unknown> | unknown): Runnable {
  return { name, stop: async (ctx) => void (await stop(ctx)) };
}
