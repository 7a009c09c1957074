/**
 * One script sandbox, host side: a Worker running sandbox-worker.ts with an empty environment,
 * the compiled script loaded into its vm context, and calls sent to it one at a time (the Go
 * js-module serialises calls into one runtime with a mutex too: components/eval/eval.go).
 *
 * A call that passes its time limit, grows the process past the memory cap, or is cancelled by
 * its caller stops the worker (`terminate` interrupts a running loop, sync or async); the call
 * fails with a {@link ScriptError} and the next call starts a fresh worker with the same script.
 * Module-level state of the script (a counter in `let`) therefore restarts after such a call;
 * Go keeps it (docs/compatibility.md "js_eval").
 *
 * A call ends for its caller when its result is ready, but its limits stay armed until the worker
 * is idle — its microtasks drained, after which nothing of the script can run until the next call
 * (sandbox-worker.ts layer 5). A worker that is not idle {@link LEFTOVER_GRACE_MS} after the result
 * (a promise chain or an `await` loop left running) is stopped, and so is one whose JS heap at the
 * end of a call is over the memory cap: the cap holds per worker, across calls, not only while one
 * runs (docs/security.md "Limits").
 */
import { ScriptError } from "./errors.ts";
import { memoryCapBytes } from "./limits.ts";
import { memoryWatchdog, type MemoryWatchdog } from "./memory-watchdog.ts";
import { startTimer, type Timer } from "../../core/timer.ts";

/**
 * The worker entry; `scripts/build.ts` adds it to the compiled binary as a second entrypoint. In
 * the binary the main bundle is `/$bunfs/root/tinyhost` and the worker keeps its path under the
 * entrypoints' common folder (`src/`) with its output name: `runtime/script/sandbox-worker.js`
 * (asked for by its source name, it was not found: js_eval failed in every image).
 */
const WORKER_URL = import.meta.url.includes("$bunfs")
  ? new URL("./runtime/script/sandbox-worker.js", import.meta.url).href
  : new URL("./sandbox-worker.ts", import.meta.url).href;

/** Longest wait for a worker to come up before its script starts loading, ms. */
const WORKER_BOOT_MS = 30_000;

/**
 * How long after its result a call's worker may still run queued microtasks before it is stopped,
 * ms. A script's own `.then` tail after returning takes microseconds; the margin is for a busy
 * machine delaying the worker's thread. Stopping a worker costs only its module state.
 */
export const LEFTOVER_GRACE_MS = 250;
/**
 * Longest wait for the between-calls memory check, ms. The worker is idle then (no script code
 * runs), so this bounds a full collection of a large heap, which a loaded machine can take well past
 * {@link LEFTOVER_GRACE_MS} over — a late answer is a slow GC, not leftover work.
 */
export const MEASURE_TIMEOUT_MS = 5_000;

/** Options of {@link ScriptSandbox.start}. */
export interface SandboxOptions {
  /** The compiled script (compile.ts `compileScript`). */
  code: string;
  /** Limit for loading the script (its top-level code, from when the worker is up), ms; see limits.ts `loadTimeoutMsOf`. */
  loadTimeoutMs: number;
  /** Where the script's `console.*` lines go; default dropped. */
  onLog?: (level: string, text: string) => void;
  /** Memory watchdog; default the process's, capped by `TINYHOST_SCRIPT_MEMORY_MB`. */
  watchdog?: MemoryWatchdog;
}

/** Options of one {@link ScriptSandbox.call}. */
export interface CallOptions {
  /** Time limit of this call, ms (counted from when it starts running, not while queued). */
  timeoutMs: number;
  /** Aborting it stops the call (and the worker) with `SCRIPT_CANCELLED`. */
  signal?: AbortSignal;
}

type Outgoing =
  | { t: "ready" }
  | { t: "loaded" }
  | { t: "load-error"; message: string }
  | { t: "result"; id: number; ok: boolean; output?: string; kind?: "throw" | "result"; message?: string }
  | { t: "idle"; id: number; heapBytes: number }
  | { t: "log"; level: string; text: string };

interface Pending {
  id: number;
  resolve(value: unknown): void;
  reject(err: ScriptError): void;
}

/** One Worker with the script loaded; replaced after a stop. */
class Life {
  readonly worker: Worker;
  readonly loaded: Promise<void>;
  dead = false;
  pending: Pending | undefined;
  /** The worker's JS heap when it was last idle, bytes (what its script holds between calls). */
  heapBytes = 0;
  readonly #idle = new Map<number, number>();
  readonly #idleWaiters = new Map<number, (heapBytes: number | undefined) => void>();
  #loadDone!: { resolve(): void; reject(err: ScriptError): void };

  /** Runs from when the worker is up and loading the script until it loaded (or died). */
  #loadTimer: Timer | undefined;

  constructor(
    code: string,
    private readonly onLog: ((level: string, text: string) => void) | undefined,
    private readonly loadTimeoutMs: number,
  ) {
    const { promise, resolve, reject } = Promise.withResolvers<void>();
    this.loaded = promise;
    this.#loadDone = { resolve, reject };
    this.worker = new Worker(WORKER_URL, { env: {}, smol: true } as WorkerOptions);
    this.worker.unref();
    this.worker.addEventListener("message", (e) => this.#onMessage((e as MessageEvent<Outgoing>).data, code));
    this.worker.addEventListener("error", (e) => {
      e.preventDefault?.();
      this.kill(new ScriptError("SCRIPT_CRASHED", `the script sandbox failed: ${(e as ErrorEvent).message ?? "worker error"}`));
    });
  }

  #onMessage(msg: Outgoing, code: string): void {
    switch (msg.t) {
      case "ready":
        // The limit counts the script's top-level code, not the worker's start (which a busy
        // machine can slow down); the boot itself has its own guard in #ensureLife.
        this.#loadTimer = startTimer(this.loadTimeoutMs, () =>
          this.kill(new ScriptError("SCRIPT_TIMEOUT", `the script's top-level code ran past ${this.loadTimeoutMs} ms while loading`)),
        );
        this.worker.postMessage({ t: "load", code });
        return;
      case "loaded":
        this.#loadTimer?.cancel();
        this.#loadDone.resolve();
        return;
      case "load-error":
        this.#loadDone.reject(new ScriptError("SCRIPT_COMPILE", msg.message));
        this.kill(undefined);
        return;
      case "log":
        this.onLog?.(msg.level, msg.text);
        return;
      case "idle": {
        this.heapBytes = msg.heapBytes;
        const w = this.#idleWaiters.get(msg.id);
        if (w) {
          this.#idleWaiters.delete(msg.id);
          w(msg.heapBytes);
        } else this.#idle.set(msg.id, msg.heapBytes);
        return;
      }
      case "result": {
        const p = this.pending;
        if (!p || p.id !== msg.id) return;
        this.pending = undefined;
        if (msg.ok) {
          try {
            p.resolve(msg.output === undefined ? null : JSON.parse(msg.output));
          } catch (err) {
            p.reject(new ScriptError("SCRIPT_RESULT", `the script's result is not JSON: ${(err as Error).message}`));
          }
        } else p.reject(new ScriptError(msg.kind === "result" ? "SCRIPT_RESULT" : "SCRIPT_THROW", msg.message ?? "the script failed"));
        return;
      }
    }
  }

  /**
   * Resolves with the worker's heap once call `id` left it idle (no microtask of the script queued),
   * or `undefined` when the worker died first.
   */
  whenIdle(id: number): Promise<number | undefined> {
    const seen = this.#idle.get(id);
    if (seen !== undefined) {
      this.#idle.delete(id);
      return Promise.resolve(seen);
    }
    if (this.dead) return Promise.resolve(undefined);
    return new Promise((resolve) => this.#idleWaiters.set(id, resolve));
  }

  /** Terminates the worker; the running call (and a load in progress) fail with `err`. */
  kill(err: ScriptError | undefined): void {
    if (this.dead) return;
    this.dead = true;
    this.#loadTimer?.cancel();
    this.worker.terminate();
    const failure = err ?? new ScriptError("SCRIPT_CLOSED", "the script sandbox was closed");
    this.#loadDone.reject(failure);
    this.loaded.catch(() => {});
    const p = this.pending;
    this.pending = undefined;
    p?.reject(failure);
    for (const w of this.#idleWaiters.values()) w(undefined);
    this.#idleWaiters.clear();
  }
}

/** A started sandbox: `call` runs the script's default export on one input. */
export class ScriptSandbox {
  readonly #code: string;
  readonly #onLog: ((level: string, text: string) => void) | undefined;
  readonly #watchdog: MemoryWatchdog;
  readonly #loadTimeoutMs: number;
  #life: Life | undefined;
  #queue: Promise<unknown> = Promise.resolve();
  /** Settles once the last call's worker is idle or stopped: the next call waits for it. */
  #quiet: Promise<void> = Promise.resolve();
  /** Workers stopped because a call left work running, or held more than the cap after a call. */
  leftoversStopped = 0;
  #nextId = 1;
  #closed = false;
  /** Workers started so far (1 + restarts after stops); for tests and logs. */
  starts = 0;

  private constructor(o: SandboxOptions) {
    this.#code = o.code;
    this.#onLog = o.onLog;
    this.#watchdog = o.watchdog ?? memoryWatchdog(memoryCapBytes());
    this.#loadTimeoutMs = o.loadTimeoutMs;
  }

  /**
   * Starts a worker and loads the script (runs its top-level code).
   * @throws ScriptError `SCRIPT_COMPILE` when loading throws or there is no default-exported
   *   function; `SCRIPT_TIMEOUT` when the top-level code runs past `loadTimeoutMs`.
   */
  static async start(o: SandboxOptions): Promise<ScriptSandbox> {
    const s = new ScriptSandbox(o);
    await s.#ensureLife();
    return s;
  }

  async #ensureLife(): Promise<Life> {
    if (this.#life && !this.#life.dead) return this.#life;
    const life = new Life(this.#code, this.#onLog, this.#loadTimeoutMs);
    this.#life = life;
    this.starts++;
    const timer = startTimer(WORKER_BOOT_MS + this.#loadTimeoutMs, () =>
      life.kill(new ScriptError("SCRIPT_CRASHED", `the script sandbox did not start within ${WORKER_BOOT_MS} ms`)),
    );
    try {
      await life.loaded;
    } finally {
      timer.cancel();
    }
    return life;
  }

  /**
   * Runs the script's default export on a JSON copy of `input` and resolves to a JSON copy of what
   * it returned (`undefined`/`null` → `null`), awaiting a returned promise.
   * @throws ScriptError `SCRIPT_THROW` (the script threw or rejected; message = its error),
   *   `SCRIPT_RESULT` (not JSON), `SCRIPT_TIMEOUT`, `SCRIPT_MEMORY`, `SCRIPT_CANCELLED`,
   *   `SCRIPT_CRASHED`, `SCRIPT_CLOSED`.
   */
  call(input: unknown, options: CallOptions): Promise<unknown> {
    const run = this.#queue.then(() => this.#run(input, options));
    this.#queue = run.then(
      () => this.#quiet,
      () => this.#quiet,
    );
    return run;
  }

  async #run(input: unknown, o: CallOptions): Promise<unknown> {
    if (this.#closed) throw new ScriptError("SCRIPT_CLOSED", "the script sandbox was closed");
    if (o.signal?.aborted) throw new ScriptError("SCRIPT_CANCELLED", "script call cancelled before it started");
    let json: string | undefined;
    try {
      json = input === undefined || input === null ? undefined : JSON.stringify(input);
    } catch (err) {
      throw new ScriptError("SCRIPT_THROW", `marshal input: ${(err as Error).message}`);
    }
    const life = await this.#ensureLife();
    const id = this.#nextId++;
    const { promise, resolve, reject } = Promise.withResolvers<unknown>();
    life.pending = { id, resolve, reject };
    const seconds = o.timeoutMs / 1000;
    const timer = startTimer(o.timeoutMs, () => life.kill(new ScriptError("SCRIPT_TIMEOUT", `script timeout after ${seconds}s (timeoutSeconds setting)`)));
    const onAbort = () => life.kill(new ScriptError("SCRIPT_CANCELLED", `script interrupted: ${String(o.signal?.reason ?? "cancelled")}`));
    o.signal?.addEventListener("abort", onAbort, { once: true });
    const held = life.heapBytes;
    let answered = false;
    const unwatch = this.#watchdog.watch({
      limitBytes: Math.max(0, this.#watchdog.capBytes - held),
      stop: (grew, cap) => {
        // After the answer only leftovers run: that stop is a leftover's, counted and logged like the grace's.
        if (answered)
          return this.#stopLeftover(
            life,
            `work the script left running after its result grew the process by ${mib(grew)} MiB, over the ${mib(cap)} MiB cap (TINYHOST_SCRIPT_MEMORY_MB)`,
          );
        life.kill(
          new ScriptError(
            "SCRIPT_MEMORY",
            `script stopped: the process grew by ${mib(grew)} MiB while it ran${held > 0 ? `, its sandbox already holding ${mib(held)} MiB` : ""}, over the ${mib(cap)} MiB cap (TINYHOST_SCRIPT_MEMORY_MB)`,
          ),
        );
      },
    });
    life.worker.postMessage({ t: "call", id, input: json });
    try {
      return await promise;
    } finally {
      answered = true;
      timer.cancel();
      o.signal?.removeEventListener("abort", onAbort);
      this.#quiet = this.#settle(life, id, unwatch);
    }
  }

  /**
   * After call `id` answered: keeps its memory watch until the worker is idle, stops a worker still
   * busy after {@link LEFTOVER_GRACE_MS}, and one whose heap (collected) is over the cap.
   */
  async #settle(life: Life, id: number, unwatch: () => void): Promise<void> {
    let grace: Timer | undefined;
    const within = (p: Promise<number | undefined>, what: string, ms: number): Promise<number | undefined> => {
      grace = startTimer(ms, () => this.#stopLeftover(life, what));
      return p.finally(() => grace?.cancel());
    };
    try {
      let heap = await within(
        life.whenIdle(id),
        `work the script left running after its result (a promise chain or an await loop) was still running ${LEFTOVER_GRACE_MS} ms later`,
        LEFTOVER_GRACE_MS,
      );
      if (heap === undefined || heap <= this.#watchdog.capBytes) return;
      const measure = this.#nextId++;
      life.worker.postMessage({ t: "measure", id: measure });
      heap = await within(life.whenIdle(measure), `the sandbox did not answer a memory check within ${MEASURE_TIMEOUT_MS} ms`, MEASURE_TIMEOUT_MS);
      if (heap !== undefined && heap > this.#watchdog.capBytes)
        this.#stopLeftover(
          life,
          `the script holds ${mib(heap)} MiB between calls, over the ${mib(this.#watchdog.capBytes)} MiB cap (TINYHOST_SCRIPT_MEMORY_MB)`,
        );
    } finally {
      unwatch();
    }
  }

  /** Stops a worker between calls; the next call starts a fresh one (module state restarts). */
  #stopLeftover(life: Life, why: string): void {
    if (life.dead) return;
    this.leftoversStopped++;
    this.#onLog?.("warn", `script sandbox stopped: ${why}; the next call starts a fresh one (module state restarts)`);
    life.kill(new ScriptError("SCRIPT_LEFTOVER", why));
  }

  /** Stops the worker for good; a running call fails with `SCRIPT_CLOSED`. Idempotent. */
  close(): void {
    this.#closed = true;
    this.#life?.kill(undefined);
  }
}

function mib(bytes: number): number {
  return Math.round(bytes / 2 ** 20);
}
