/**
 * Child processes for the test bed (nats-server, etcd, kube-apiserver) that never outlive their
 * owner: each one gets a watchdog shell that kills it when the owning process dies, even by
 * SIGKILL. Plain `afterAll` cleanup cannot cover a crashed or killed test runner.
 */
import type { Subprocess } from "bun";
import { appendFileSync, closeSync, openSync } from "node:fs";

/** A supervised child process. */
export interface ManagedProcess {
  /** Short name used in logs and errors, e.g. `nats-server`. */
  readonly name: string;
  /** OS process id. */
  readonly pid: number;
  /** Resolves with the exit code when the process ends. */
  readonly exited: Promise<number>;
  /** SIGTERM, then SIGKILL after `graceMs` (default 5000 ms). Resolves when the process is gone. */
  stop(graceMs?: number): Promise<void>;
  /** SIGKILL now. Resolves when the process is gone. */
  kill(): Promise<void>;
}

/** Options for {@link startProcess}. */
export interface StartOptions {
  /** Name for logs. */
  name: string;
  /** argv, program first. */
  cmd: string[];
  /** File that receives stdout and stderr (appended). */
  logFile: string;
  /** Extra environment. */
  env?: Record<string, string>;
  /** Working directory. */
  cwd?: string;
  /** Process whose death kills this child (default: this process). */
  ownerPid?: number;
}

/**
 * Starts a program with output to a log file and a watchdog bound to the owner's lifetime.
 * @throws Error naming the program when it cannot be spawned (e.g. binary missing).
 */
export function startProcess(opts: StartOptions): ManagedProcess {
  appendFileSync(opts.logFile, `\n--- ${new Date().toISOString()} ${opts.cmd.join(" ")}\n`);
  // An fd opened in append mode: restarts of the same server keep one log.
  const logFd = openSync(opts.logFile, "a");
  let child: Subprocess;
  try {
    child = Bun.spawn(opts.cmd, {
      cwd: opts.cwd,
      env: { ...process.env, ...opts.env },
      stdout: logFd,
      stderr: logFd,
      stdin: "ignore",
    });
  } catch (err) {
    throw new Error(`cannot start ${opts.name} (${opts.cmd[0]}): ${(err as Error).message}`);
  } finally {
    closeSync(logFd);
  }
  const owner = opts.ownerPid ?? process.pid;
  // The watchdog polls both pids; when the owner is gone it terminates the child, then kills it.
  const watchdog = Bun.spawn(
    [
      "bash",
      "-c",
      `while kill -0 ${owner} 2>/dev/null && kill -0 ${child.pid} 2>/dev/null; do sleep 0.5; done; ` +
        `if kill -0 ${child.pid} 2>/dev/null; then kill -TERM ${child.pid}; sleep 3; kill -KILL ${child.pid} 2>/dev/null; fi`,
    ],
    { stdin: "ignore", stdout: "ignore", stderr: "ignore" },
  );
  watchdog.unref();
  child.unref();
  const exited = child.exited.then((c) => c ?? -1);
  const waitGone = async (ms: number) => Promise.race([exited.then(() => true), Bun.sleep(ms).then(() => false)]);
  return {
    name: opts.name,
    pid: child.pid,
    exited,
    async stop(graceMs = 5000) {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill("SIGTERM");
      if (!(await waitGone(graceMs))) {
        child.kill("SIGKILL");
        await exited;
      }
    },
    async kill() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill("SIGKILL");
      await exited;
    },
  };
}

/** Returns a free TCP port on 127.0.0.1 (bound and released; a tiny race is accepted). */
export function freePort(): number {
  const server = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { data() {} } });
  const port = server.port;
  server.stop(true);
  return port;
}

// The polling waits have one home; re-exported for the many files that take it from here.
export { waitUntil } from "./until.ts";

/** Returns the last `lines` lines of a log file, for error messages. */
export async function tail(file: string, lines = 20): Promise<string> {
  try {
    const text = await Bun.file(file).text();
    return text.trimEnd().split("\n").slice(-lines).join("\n");
  } catch {
    return "";
  }
}
