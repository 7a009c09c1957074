/**
 * Where the durable fixtures record their handler calls: JSON lines in the file named by env
 * `DURABLE_JOURNAL` (shared by every module process of a test), and an in-memory list for tests
 * that run the components in process. One line per event: `{pod, pid, node, runId, event}` with
 * event `start` (handler entered) or `done` (handler about to return).
 */
import { appendFileSync, existsSync, readFileSync } from "node:fs";

/** One journal line. */
export interface JournalEvent {
  pod: string;
  pid: number;
  node: string;
  runId: string;
  event: "start" | "done";
}

/** Events of this process (in-process tests read them). */
export const events: JournalEvent[] = [];

/** Appends one event. */
export function journal(node: string, runId: string | undefined, event: JournalEvent["event"]): void {
  const e: JournalEvent = { pod: process.env.HOSTNAME ?? "", pid: process.pid, node, runId: runId ?? "", event };
  events.push(e);
  const file = process.env.DURABLE_JOURNAL;
  if (file) appendFileSync(file, `${JSON.stringify(e)}\n`);
}

/** Every event in `file` (empty when it does not exist yet). */
export function readJournal(file: string | undefined = process.env.DURABLE_JOURNAL): JournalEvent[] {
  if (!file || !existsSync(file)) return [...events];
  return readFileSync(file, "utf8")
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l) as JournalEvent);
}
