/**
 * Adapters that turn the shapes our long-lived parts already have into {@link Runnable}s, so adding
 * one to a manager is one line: `mgr.add("controllers", loop("tinynode controller", (s) => c.run(s)))`.
 */
import type { Runnable, StopContext } from "./manager.ts";

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

/** A part with only a start step (a one-shot registration, a listener that closes with something else). */
export function task(name: string, start: () => Promise<unknown> | unknown): Runnable {
  return { name, start: async () => void (await start()) };
}

/** A part with only a stop step (stop the runners, flush a file). */
export function onStop(name: string, stop: (ctx: StopContext) => Promise<unknown> | unknown): Runnable {
  return { name, stop: async (ctx) => void (await stop(ctx)) };
}

/** Resolves when `p` settles or after `ms`, whichever comes first. */
export async function bounded(p: Promise<unknown>, ms: number): Promise<void> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  await Promise.race([p.then(() => {}, () => {}), new Promise<void>((r) => (timer = setTimeout(r, Math.max(0, ms))))]);
  clearTimeout(timer);
}
