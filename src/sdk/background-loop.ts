/**
 * One background loop per component instance — the goroutine behind `ticker` and `cron`
 * (components.md §1.15, §1.16): started on the leader, detached from the call that started it,
 * ended by `stop()` or by the node's lifetime signal (runtime-spec §16 item 15: background work
 * needs its own context, not the hop's).
 */
import { guardOf } from "../runtime/runner/guard.ts";
import { reportNodeFault } from "./node-timers.ts";

/** How {@link BackgroundLoop.start} runs a loop body. */
export interface LoopOptions {
  /** The node's lifetime (`ctx.nodeSignal`): when it aborts, the loop's signal aborts too. */
  lifetime: AbortSignal;
  /** The loop itself; must return soon after `signal` aborts. It may also return on its own. */
  body: (signal: AbortSignal) => Promise<void>;
  /** Called once after the body returned or threw (the component re-publishes `_control` here). */
  onExit?: () => void;
  /**
   * Called with whatever the body threw (never thrown further). The throw is also the node's
   * fault (site `background loop`, src/runtime/runner/guard.ts) unless the loop was stopping.
   */
  onError?: (err: unknown) => void;
}

interface Run {
  readonly ctl: AbortController;
  done: Promise<void>;
}

/** Calls the component's `onError`/`onExit`; a throw there is the node's fault too, never a rejection of `done`. */
function callback(options: LoopOptions, fn: ((err?: unknown) => void) | undefined, err?: unknown): void {
  try {
    fn?.(err);
  } catch (thrown) {
    reportNodeFault({ nodeSignal: options.lifetime }, "background loop", thrown);
  }
}

/**
 * At most one running loop. `running` flips to false the moment `stop()` is called (so a status
 * refresh right after a stop shows "Not running"), even while the old body is still unwinding; a
 * new `start()` after `stop()` gets a fresh run that the old one's exit cannot clear.
 */
export class BackgroundLoop {
  #run: Run | undefined;

  /** True while a started loop has neither been stopped nor returned. */
  get running(): boolean {
    return this.#run !== undefined;
  }

  /**
   * Starts `options.body` unless a loop is already running.
   * @returns `true` when a new loop started, `false` when one was already running.
   */
  start(options: LoopOptions): boolean {
    if (this.#run) return false;
    const ctl = new AbortController();
    const signal = AbortSignal.any([options.lifetime, ctl.signal]);
    const run: Run = { ctl, done: Promise.resolve() };
    this.#run = run; // before the body runs: a body that returns at once must still clear it
    run.done = (async () => {
      try {
        await options.body(signal);
      } catch (err) {
        // The node's fault when a runner owns the lifetime; without a runner an unhandled throw
        // still reaches the last resort (reportNodeFault), a handled one stays with onError.
        if (!signal.aborted && (guardOf(options.lifetime) || !options.onError)) reportNodeFault({ nodeSignal: options.lifetime }, "background loop", err);
        callback(options, options.onError, err);
      } finally {
        if (this.#run === run) this.#run = undefined;
        callback(options, options.onExit);
      }
    })();
    return true;
  }

  /**
   * Aborts the running loop (no-op when none runs).
   * @returns a promise that resolves once the stopped body has returned.
   */
  stop(reason?: unknown): Promise<void> {
    const run = this.#run;
    if (!run) return Promise.resolve();
    this.#run = undefined;
    run.ctl.abort(reason);
    return run.done;
  }
}
