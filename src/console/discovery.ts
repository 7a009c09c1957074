/**
 * How `tinyhost send --local <dir>` finds the console of the `run --local <dir>` that runs there:
 * the console writes `<dir>/.tinyhost/console.json` (`{url, pid}`) once it listens and removes it
 * when it stops — next to the state file's default place, a sub-directory `kubectl apply -f <dir>`
 * never reads. A file whose pid no longer runs (a crash) is stale and reported as such.
 */
import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { STATE_FILE_NAME } from "../local/state-file.ts";
import { processIsAlive } from "../local/state-lock.ts";
import { TinyError } from "../sdk/errors.ts";

/** The directory local mode keeps its files in, inside the manifests directory (`.tinyhost`). */
const STATE_DIR_NAME = dirname(STATE_FILE_NAME);

/** File name of the discovery file inside `<dir>/.tinyhost/`. */
export const CONSOLE_FILE_NAME = "console.json";

/** What the discovery file holds. */
export interface ConsoleRecord {
  /** `http://127.0.0.1:<port>`, no trailing slash. */
  url: string;
  /** Pid of the local-mode process. */
  pid: number;
}

/** No console to talk to. code `NO_CONSOLE`. */
export class ConsoleNotFoundError extends TinyError<"NO_CONSOLE"> {
  /** @param message - says where the console was looked for. */
  constructor(message: string) {
    super("NO_CONSOLE", message);
  }
}

/** Path of the discovery file of manifests directory `dir`. */
export function consoleFile(dir: string): string {
  return join(dir, STATE_DIR_NAME, CONSOLE_FILE_NAME);
}

/** Writes the discovery file (atomically: a reader never sees half of it). */
export function writeConsoleRecord(dir: string, record: ConsoleRecord): void {
  const file = consoleFile(dir);
  mkdirSync(join(dir, STATE_DIR_NAME), { recursive: true });
  const tmp = `${file}.${record.pid}.tmp`;
  writeFileSync(tmp, `${JSON.stringify(record)}\n`);
  renameSync(tmp, file);
}

/** Removes the discovery file if it is `pid`'s (a newer process on the same directory keeps its own). */
export function removeConsoleRecord(dir: string, pid: number): void {
  try {
    if ((JSON.parse(readFileSync(consoleFile(dir), "utf8")) as ConsoleRecord).pid === pid) rmSync(consoleFile(dir), { force: true });
  } catch {
    // gone or unreadable: nothing of ours to remove
  }
}

/**
 * The console of the local-mode process running on `dir`.
 * @throws ConsoleNotFoundError naming the file when it is missing, unreadable, or its process is gone.
 */
export function readConsoleRecord(dir: string, isAlive: (pid: number) => boolean = processIsAlive): ConsoleRecord {
  const file = consoleFile(dir);
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch {
    throw new ConsoleNotFoundError(`no console found for ${dir} (${file} is missing): is \`tinyhost run --local ${dir}\` running, with its console on?`);
  }
  let record: ConsoleRecord;
  try {
    record = JSON.parse(text) as ConsoleRecord;
  } catch (err) {
    throw new ConsoleNotFoundError(`${file} is not JSON (${(err as Error).message})`);
  }
  if (typeof record?.url !== "string" || !Number.isInteger(record.pid)) throw new ConsoleNotFoundError(`${file} does not hold {url, pid}`);
  if (!isAlive(record.pid)) throw new ConsoleNotFoundError(`the process that wrote ${file} (pid ${record.pid}) no longer runs: start \`tinyhost run --local ${dir}\``);
  return record;
}
