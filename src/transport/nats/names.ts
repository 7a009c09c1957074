/**
 * Every NATS name the Go module uses: subjects, queue group, streams, consumers, KV bucket and keys
 * (runtime-spec §4.2, §4.4, §13.3). Another program observes these, so they are constants here and
 * nowhere else.
 */
import { moduleOfNode, parsePortAddress } from "../../core/hop.ts";
import { NoSubjectError } from "./errors.ts";

/** Subject prefix. */
export const SUBJECT_PREFIX = "tinymodule";
/** JetStream stream of business hops (`tinymodule.*.msg`, WorkQueue). runtime-spec §4.4. */
export const EDGE_STREAM = "module-edges";
/** JetStream stream of system messages (`tinymodule.*.sysmsg`, Limits). runtime-spec §4.4. */
export const SYSMSG_STREAM = "module-sysmsgs";
/** KV bucket of the durable run ledger (History 1). runtime-spec §4.6. */
export const EXEC_BUCKET = "TINY_EXEC";
/** Ledger key prefix of a step inside a run scope (runtime-spec §1.7 `StepLedgerPrefix`). */
export const STEP_LEDGER_PREFIX = "step/";
/** Ledger key prefix of a re-drive counter inside a run scope (runtime-spec §3.6). */
export const REDRIVE_PREFIX = "redrive/";

/** `tinymodule.<module>.msg` — business subject of `module`. */
export function msgSubject(module: string): string {
  return `${SUBJECT_PREFIX}.${module}.msg`;
}

/** `tinymodule.<module>.sysmsg` — system fan-out subject of `module`. */
export function sysmsgSubject(module: string): string {
  return `${SUBJECT_PREFIX}.${module}.sysmsg`;
}

/**
 * The business subject serving hop destination `to` (`"<node>:<port>"`): the module is the second
 * dot segment of the TARGET node name, not normalised (runtime-spec §4.1, §16 item 1).
 * @throws NoSubjectError when the node name has fewer than 3 dot segments.
 */
export function subjectFor(to: string): string {
  const module = moduleOfNode(parsePortAddress(to)[0]);
  if (module === undefined || module === "") throw new NoSubjectError(to);
  return msgSubject(module);
}

/** Durable name of the per-pod system consumer: `<module>-sys-<pod>` (runtime-spec §4.4). */
export function sysConsumerName(module: string, pod: string): string {
  return `${module}-sys-${pod}`;
}

/** Characters a ledger key keeps; anything else becomes `_` (runtime-spec §4.6). */
const KEY_UNSAFE = /[^A-Za-z0-9\-_/.=]/g;

/** KV key of `key` inside run `runId`: `exec/<runID>/<key>`, unsafe characters → `_` (runtime-spec §4.6). */
export function execKey(runId: string, key: string): string {
  return `exec/${runId}/${key}`.replace(KEY_UNSAFE, "_");
}

/** `exec/<runID>/step/<stepKey>` (runtime-spec §1.7, §3.6). */
export function stepRecordKey(runId: string, stepKey: string): string {
  return execKey(runId, STEP_LEDGER_PREFIX + stepKey);
}

/** `exec/<runID>/redrive/<stepKey>` (runtime-spec §3.6). */
export function redriveKey(runId: string, stepKey: string): string {
  return execKey(runId, REDRIVE_PREFIX + stepKey);
}

/** Most replicas a JetStream stream (and so a KV bucket) may have: nats-server's limit. */
export const MAX_STREAM_REPLICAS = 5;
