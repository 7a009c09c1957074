/**
 * One local-mode process per state file. Two `tinyhost run --local` on the same directory would both
 * be the leader (local mode holds the "lease" unconditionally), both run every ticker, and overwrite
 * each other's state file. The first process takes an exclusive lock file next to the state file,
 * `<state file>.lock`, holding its pid; a second one is refused with {@link StateLockedError}.
 *
 * The lock is created atomically with its content (write a temp file, then `link` it to the lock
 * name, which fails when the name exists), so no reader ever sees an empty lock. A lock whose pid no
 * longer runs (a crash, `kill -9`) is stale and taken over: it is renamed aside and checked to be
 * the very file judged stale before it is deleted, so two processes taking over at once cannot
 * both win.
 */
import { closeSync, linkSync, mkdirSync, openSync, readFileSync, renameSync, rmSync, unlinkSync, writeFileSync, writeSync } from "node:fs";
import { dirname } from "node:path";
import { LocalStartError, StateLockedError } from "./errors.ts";
import { shownPath } from "../telemetry/shown-path.ts";

/** Suffix of the lock file next to the state file. */
export const STATE_LOCK_SUFFIX = ".lock";

/** A held lock. */
export interface StateLock {
  /** Absolute path of the lock file. */
  readonly file: string;
  /** Pid of a dead process whose stale lock was taken over, if any. */
  readonly tookOverFrom: number | undefined;
  /** Deletes the lock file if it is still ours. Safe to call twice. */
  release(): void;
  /**
   * Checks that the lock file still holds our pid, and re-creates it when it was deleted (someone
   * removed `<dir>/.tinyhost` while this process ran: without it a second process could start on
   * the same state). @returns `"held"`, `"recreated"`, or the pid of another live process that took
   * it meanwhile (a dead one's lock is taken back); `"released"` after {@link release}.
   * @throws the file system's error when the lock cannot be written.
   */
  ensure(): "held" | "recreated" | "released" | number;
}

/** Options of {@link acquireStateLock} (tests pass other pids and liveness checks). */
export interface StateLockOptions {
  /** Pid written into the lock (default `process.pid`). */
  pid?: number;
  /** True when process `pid` runs (default: `kill(pid, 0)` succeeds or is refused with EPERM). */
  isAlive?: (pid: number) => boolean;
  /** Release the lock when the process exits without {@link StateLock.release} (default true). */
  releaseOnExit?: boolean;
}

/**
 * True when process `pid` runs: signal 0 reaches it (EPERM = it exists, owned by someone else) and
 * it is not a zombie. A process killed with `kill -9` stays a zombie until its parent reaps it —
 * for ever when it was orphaned under an init that does not reap (containers, VM sandboxes) — and
 * signal 0 still reaches a zombie, so on Linux its state in `/proc/<pid>/stat` (`Z`, or `X` = dead)
 * decides; elsewhere, or when /proc cannot be read, signal 0 alone does.
 */
export function processIsAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (err) {
    if ((err as { code?: unknown }).code !== "EPERM") return false;
  }
  return !isZombie(pid);
}

/** True when `/proc/<pid>/stat` says the process is a zombie or dead (field 3 after the `(comm)`). */
function isZombie(pid: number): boolean {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  } catch {
    return false; // no /proc (macOS) or gone meanwhile: signal 0 decided
  }
  const state = stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3);
  return state === "Z" || state === "X";
}

const codeOf = (err: unknown) => (err as { code?: unknown }).code;

function readOrUndefined(file: string): string | undefined {
  try {
    return readFileSync(file, "utf8");
  } catch (err) {
    if (codeOf(err) === "ENOENT") return undefined;
    throw err;
  }
}

/** Creates `file` holding `content` only if it does not exist; false when it does. */
function createExclusive(file: string, content: string, pid: number): boolean {
  const tmp = `${file}.${pid}.tmp`;
  writeFileSync(tmp, content);
  try {
    linkSync(tmp, file);
    return true;
  } catch (err) {
    if (codeOf(err) === "EEXIST") return false;
    if (!["EPERM", "ENOTSUP", "ENOSYS", "EXDEV"].includes(String(codeOf(err)))) throw err;
    // A file system without hard links: exclusive create, then write (a reader may briefly see it empty).
    let fd: number;
    try {
      fd = openSync(file, "wx");
    } catch (e) {
      if (codeOf(e) === "EEXIST") return false;
      throw e;
    }
    writeSync(fd, content);
    closeSync(fd);
    return true;
  } finally {
    try {
      unlinkSync(tmp);
    } catch {
      // already gone
    }
  }
}

/**
 * Takes the lock of `stateFile` (`<stateFile>.lock`), creating its directory.
 * @throws StateLockedError naming the state file and the pid when a live process holds the lock;
 *   LocalStartError when the lock cannot be written (read-only directory) or keeps changing hands.
 */
export function acquireStateLock(stateFile: string, options: StateLockOptions = {}): StateLock {
  const pid = options.pid ?? process.pid;
  const isAlive = options.isAlive ?? processIsAlive;
  const file = `${stateFile}${STATE_LOCK_SUFFIX}`;
  const content = `${pid}\n`;
  let tookOverFrom: number | undefined;
  try {
    mkdirSync(dirname(file), { recursive: true });
    for (let attempt = 0; attempt < 5; attempt++) {
      if (createExclusive(file, content, pid)) return held(file, content, tookOverFrom, options.releaseOnExit ?? true, pid, isAlive);
      const text = readOrUndefined(file);
      if (text === undefined) continue; // released in between: try again
      const holder = Number(text.trim());
      const valid = Number.isInteger(holder) && holder > 0;
      if (valid && isAlive(holder)) throw new StateLockedError(shownPath(stateFile), holder, shownPath(file));
      // Stale: move it aside, and delete it only if it is still the file judged stale.
      const aside = `${file}.stale-${pid}`;
      try {
        renameSync(file, aside);
      } catch (err) {
        if (codeOf(err) === "ENOENT") continue;
        throw err;
      }
      if (readOrUndefined(aside) !== text) {
        try {
          linkSync(aside, file); // another process's fresh lock: put it back
        } catch {
          // it made a new one meanwhile
        }
        unlinkSync(aside);
        continue;
      }
      unlinkSync(aside);
      if (valid) tookOverFrom = holder;
    }
  } catch (err) {
    if (err instanceof StateLockedError) throw err;
    throw new LocalStartError(`cannot lock the state file ${shownPath(stateFile)} (${shownPath(file)}): ${(err as Error).message}`, { cause: err });
  }
  throw new LocalStartError(`cannot lock the state file ${shownPath(stateFile)}: ${shownPath(file)} keeps changing hands; is another tinyhost starting on it?`);
}

function held(
  file: string,
  content: string,
  tookOverFrom: number | undefined,
  releaseOnExit: boolean,
  pid: number,
  isAlive: (pid: number) => boolean,
): StateLock {
  let released = false;
  const release = () => {
    if (released) return;
    released = true;
    process.off("exit", release);
    try {
      if (readFileSync(file, "utf8") === content) unlinkSync(file);
    } catch {
      // gone already
    }
  };
  if (releaseOnExit) process.on("exit", release);
  const ensure = (): "held" | "recreated" | "released" | number => {
    if (released) return "released";
    const text = readOrUndefined(file);
    if (text === content) return "held";
    if (text !== undefined) {
      const holder = Number(text.trim());
      if (Number.isInteger(holder) && holder > 0 && isAlive(holder)) return holder;
      rmSync(file, { force: true }); // a dead process's or unreadable: ours again
    }
    mkdirSync(dirname(file), { recursive: true });
    if (createExclusive(file, content, pid)) return "recreated";
    const now = Number((readOrUndefined(file) ?? "").trim());
    return Number.isInteger(now) && now > 0 ? now : "recreated";
  };
  return { file, tookOverFrom, release, ensure };
}
