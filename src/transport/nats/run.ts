/**
 * Durable run identity (runtime-spec §1.7): the run a hop belongs to, its step key, the per-edge
 * counters that mint child step keys, and the emits recorded for the step ledger (§2.7).
 *
 * The run rides an AsyncLocalStorage, the JS analogue of Go's `WithRun(ctx)`: the JetStream receiver
 * enters it around the handler, so every hop the handler emits (through the scheduler's router, in
 * the same async chain) is stamped by the JetStream sender without the runner having to carry it.
 */
import { AsyncLocalStorage } from "node:async_hooks";

/** Step key of a run's root (runtime-spec §1.7 `MintRun`). */
export const ROOT_STEP_SUFFIX = ".root";

/** One hop a step emitted, as recorded in its ledger entry (runtime-spec §1.7 `EmitRecord`; JSON field names are the contract). */
export interface EmitRecord {
  to: string;
  from: string;
  edgeID: string;
  stepKey: string;
  /** The payload's JSON bytes, base64 (Go `[]byte` in JSON). */
  data: string;
  replySubject?: string;
  replyTarget?: string;
  replyDeadlineUnixMs?: number;
}

/** The ledger entry of one step (runtime-spec §1.7 `StepRecord`; stable JSON contract). */
export interface StepRecord {
  node: string;
  status: "done" | "failed";
  error?: string;
  emits?: EmitRecord[];
  /** RFC 3339 time the handler started. */
  startedAt?: string;
  /** RFC 3339 time the handler returned. */
  completedAt: string;
  durationMs?: number;
}

/** What identifies a durable hop on the wire (runtime-spec §1.7 `Run`, minus counters). */
export interface RunIdentity {
  runId: string;
  stepKey: string;
  replySubject?: string;
  replyTarget?: string;
  replyDeadlineUnixMs?: number;
}

const FNV_OFFSET = 0xcbf29ce484222325n;
const FNV_PRIME = 0x100000001b3n;
const MASK64 = 0xffffffffffffffffn;
const enc = new TextEncoder();

/** FNV-1a 64-bit of the UTF-8 bytes of `s`, as 16 lowercase hex digits. */
export function fnv1a64Hex(s: string): string {
  let h = FNV_OFFSET;
  for (const b of enc.encode(s)) {
    h ^= BigInt(b);
    h = (h * FNV_PRIME) & MASK64;
  }
  return h.toString(16).padStart(16, "0");
}

/**
 * The step key of the `n`-th emit on `edgeId` from step `parentStepKey` of run `runId`:
 * `"<runID>." + hex16(FNV-1a-64("<parent>|<edgeID>|<n>"))` (runtime-spec §1.7 `NextStepKey`).
 */
export function childStepKey(runId: string, parentStepKey: string, edgeId: string, n: number): string {
  return `${runId}.${fnv1a64Hex(`${parentStepKey}|${edgeId}|${n}`)}`;
}

/** A run as seen by one step (one handler invocation): identity, edge counters, recorded emits. */
export class RunContext implements RunIdentity {
  readonly runId: string;
  readonly stepKey: string;
  readonly replySubject?: string;
  readonly replyTarget?: string;
  readonly replyDeadlineUnixMs?: number;
  /** Emits recorded during this step, in send order (runtime-spec §2.5: recorded on success). */
  readonly emits: EmitRecord[] = [];
  readonly #counters = new Map<string, number>();

  constructor(id: RunIdentity) {
    this.runId = id.runId;
    this.stepKey = id.stepKey;
    if (id.replySubject) this.replySubject = id.replySubject;
    if (id.replyTarget) this.replyTarget = id.replyTarget;
    if (id.replyDeadlineUnixMs) this.replyDeadlineUnixMs = id.replyDeadlineUnixMs;
  }

  /** Mints the next child step key for `edgeId` (counter 0, 1, 2… per edge in this step). */
  nextStepKey(edgeId: string): string {
    const n = this.#counters.get(edgeId) ?? 0;
    this.#counters.set(edgeId, n + 1);
    return childStepKey(this.runId, this.stepKey, edgeId, n);
  }

  /** True when a hop to `to` is this run's reply hop (runtime-spec §1.7 `IsReplyHop`). */
  isReplyHop(to: string): boolean {
    return !!this.replySubject && !!this.replyTarget && to === this.replyTarget;
  }
}

/** A new run: random UUID v4 id, root step `<runID>.root` (runtime-spec §1.7 `MintRun`). */
export function mintRun(reply: Omit<RunIdentity, "runId" | "stepKey"> = {}): RunContext {
  const runId = crypto.randomUUID();
  return new RunContext({ ...reply, runId, stepKey: runId + ROOT_STEP_SUFFIX });
}

const storage = new AsyncLocalStorage<RunContext>();

/** The run of the step currently executing in this async chain, if any (Go `RunFrom(ctx)`). */
export function currentRun(): RunContext | undefined {
  return storage.getStore();
}

/** Runs `fn` with `run` as the current run (Go `WithRun`); hops emitted inside are stamped durable. */
export function withRun<T>(run: RunContext, fn: () => T): T {
  return storage.run(run, fn);
}

/**
 * Starts a run unless one is current (Go `BeginRun`, idempotent) and runs `fn` inside it.
 * @returns what `fn` returns, and the run id.
 */
export function beginRun<T>(fn: (run: RunContext) => T, reply: Omit<RunIdentity, "runId" | "stepKey"> = {}): T {
  const cur = currentRun();
  if (cur) return fn(cur);
  const run = mintRun(reply);
  return withRun(run, () => fn(run));
}
