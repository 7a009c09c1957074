/**
 * How `tinyhost send --local <dir>` finds the console of the `run --local <dir>` that runs there.
 * Each host's console writes its own record, `<dir>/.tinyhost/console-<pid>.json` (`{url, pid,
 * state}`), once it listens and removes it when it stops — next to the state file's default place,
 * a sub-directory `kubectl apply -f <dir>` never reads. One file per process, because two hosts may
 * run on one directory (the second with its own `--state`, as the lock's error advises): a single
 * shared file was overwritten by the second and then removed when it stopped, leaving the first
 * one unreachable. A record whose pid no longer runs (a crash) is stale: skipped, and deleted by
 * the next host that writes its own. `console.json`, the single file of earlier versions, is still
 * read.
 */
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { STATE_FILE_NAME } from "../local/state-file.ts";
import { processIsAlive } from "../local/state-lock.ts";
import { TinyError } from "../core/errors.ts";

/** The directory local mode keeps its files in, inside the manifests directory (`.tinyhost`). */
const STATE_DIR_NAME = dirname(STATE_FILE_NAME);

/** File name of the single discovery file of versions before one record per process (still read). */
export const CONSOLE_FILE_NAME = "console.json";

/** `console-<pid>.json`: the name of one process's record. */
const RECORD_NAME = /^console-(\d+)\.json$/;

/** What a discovery record holds. */
export interface ConsoleRecord {
  /** `http://127.0.0.1:<port>`, no trailing slash. */
  url: string;
  /** Pid of the local-mode process. */
  pid: number;
  /** Absolute state file of that process; null for `--no-state`; absent in records of older versions. */
  state?: string | null;
}

/** The console {@link findConsole} chose, and the other live ones. */
export interface FoundConsole {
  /** The console to talk to. */
  record: ConsoleRecord;
  /** Other live consoles on the same directory (empty when one host runs). */
  others: ConsoleRecord[];
  /** When there are others: one line saying which was chosen and how to pick another; else undefined. */
  note: string | undefined;
}

/** No console to talk to. code `NO_CONSOLE`. */
export class ConsoleNotFoundError extends TinyError<"NO_CONSOLE"> {
  /** @param message - says where the console was looked for. */
  constructor(message: string) {
    super("NO_CONSOLE", message);
  }
}

/** Path of process `pid`'s discovery record for manifests directory `dir`; without `pid`, the legacy `console.json`. */
export function consoleFile(dir: string, pid?: number): string {
  return join(dir, STATE_DIR_NAME, pid === undefined ? CONSOLE_FILE_NAME : `console-${pid}.json`);
}

/**
 * Writes `record` as its process's discovery record (atomically: a reader never sees half of it),
 * and deletes the records of processes that no longer run.
 * @throws the file system's error when `<dir>/.tinyhost` cannot be written.
 */
export function writeConsoleRecord(dir: string, record: ConsoleRecord, isAlive: (pid: number) => boolean = processIsAlive): void {
  const file = consoleFile(dir, record.pid);
  mkdirSync(join(dir, STATE_DIR_NAME), { recursive: true });
  const tmp = `${file}.tmp`;
  writeFileSync(tmp, `${JSON.stringify(record)}\n`);
  renameSync(tmp, file);
  for (const [path, pid] of recordFiles(dir)) if (pid !== record.pid && pid !== undefined && !isAlive(pid)) rmSync(path, { force: true });
}

/** Removes process `pid`'s record (and a legacy `console.json` if it is `pid`'s); other processes keep theirs. */
export function removeConsoleRecord(dir: string, pid: number): void {
  rmSync(consoleFile(dir, pid), { force: true });
  try {
    if ((JSON.parse(readFileSync(consoleFile(dir), "utf8")) as ConsoleRecord).pid === pid) rmSync(consoleFile(dir), { force: true });
  } catch {
    // gone or unreadable: nothing of ours to remove
  }
}

/** The record files of `dir`: path → the pid its name carries (undefined for the legacy `console.json`). */
function recordFiles(dir: string): Map<string, number | undefined> {
  const out = new Map<string, number | undefined>();
  let names: string[];
  try {
    names = readdirSync(join(dir, STATE_DIR_NAME));
  } catch {
    return out;
  }
  for (const name of names.sort()) {
    const m = RECORD_NAME.exec(name);
    if (m) out.set(join(dir, STATE_DIR_NAME, name), Number(m[1]));
    else if (name === CONSOLE_FILE_NAME) out.set(join(dir, STATE_DIR_NAME, name), undefined);
  }
  return out;
}

/**
 * The console of the local-mode process running on `dir`. With several live ones, the one on the
 * directory's own state file (`<dir>/.tinyhost/state.json`) is chosen, else the lowest pid; the
 * others are listed in {@link FoundConsole.note}.
 * @throws ConsoleNotFoundError naming the directory when there is no record, none is readable, or
 *   none of their processes runs.
 */
export function findConsole(dir: string, isAlive: (pid: number) => boolean = processIsAlive): FoundConsole {
  const where = join(dir, STATE_DIR_NAME);
  const files = recordFiles(dir);
  if (!files.size)
    throw new ConsoleNotFoundError(
      `no console found for ${dir} (no console-<pid>.json in ${where}): is \`tinyhost run --local ${dir}\` running, with its console on?`,
    );
  const live: ConsoleRecord[] = [];
  const problems: string[] = [];
  for (const file of files.keys()) {
    let record: ConsoleRecord;
    try {
      record = JSON.parse(readFileSync(file, "utf8")) as ConsoleRecord;
    } catch (err) {
      problems.push(`${file} is not JSON (${(err as Error).message})`);
      continue;
    }
    if (typeof record?.url !== "string" || !Number.isInteger(record.pid)) problems.push(`${file} does not hold {url, pid}`);
    else if (!isAlive(record.pid)) problems.push(`the process that wrote ${file} (pid ${record.pid}) no longer runs`);
    else if (!live.some((r) => r.pid === record.pid)) live.push(record);
  }
  if (!live.length) throw new ConsoleNotFoundError(`${problems.join("; ")}: start \`tinyhost run --local ${dir}\``);
  const own = resolve(dir, STATE_FILE_NAME);
  live.sort((a, b) => Number(b.state === own) - Number(a.state === own) || a.pid - b.pid);
  const [record, ...others] = live as [ConsoleRecord, ...ConsoleRecord[]];
  const describe = (r: ConsoleRecord) =>
    `pid ${r.pid} at ${r.url}${r.state === undefined ? "" : r.state === null ? ", state in memory" : `, state ${r.state}`}`;
  const note = others.length
    ? `${live.length} tinyhost processes run on ${dir}: using ${describe(record)}; others: ${others.map(describe).join("; ")} (pick one with --console <url>)`
    : undefined;
  return { record, others, note };
}

/**
 * The console of the local-mode process running on `dir` ({@link findConsole}'s choice).
 * @throws ConsoleNotFoundError naming the directory when there is none.
 */
export function readConsoleRecord(dir: string, isAlive: (pid: number) => boolean = processIsAlive): ConsoleRecord {
  return findConsole(dir, isAlive).record;
}
