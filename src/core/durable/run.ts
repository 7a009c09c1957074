/**
 * Durable run identity (runtime-spec §1.7): the run a hop belongs to, its step key, the per-edge
 * counters that mint child step keys, and the emits recorded for the step ledger (§2.7).
 *
 * The run rides an AsyncLocalStorage, the JS analogue of Go's `WithRun(ctx)`: the scheduler enters
 * it around the handler of a durable step (src/runtime/durable/steps.ts), so every hop the handler
 * emits — through the runner's output and the scheduler's router, in the same async chain — is
 * stamped with a child step key without the runner having to carry the run.
 */
import { AsyncLocalStorage } from "node:async_hooks";
import type { Msg } from "../hop.ts";

/** Step key suffix of a run's root (runtime-spec §1.7 `MintRun`: `"<runID>.root"`). */
export const ROOT_STEP_SUFFIX = ".root";

/**
 * One hop a step emitted, as recorded in its ledger entry (runtime-spec §1.7 `EmitRecord`, Go
 * module/ledger.go). The JSON field names are the stable contract status components parse.
 */
export interface EmitRecord {
  /** `"<node>:<port>"` the hop went to. */
  to: string;
  /** `"<node>:<port>"` it left from. */
  from: string;
  /** Edge id (`""` for a direct `node:port` send). */
  edgeID: string;
  /** Step key of the hop (its `Nats-Msg-Id` on JetStream). */
  stepKey: string;
  /** The payload's JSON bytes, base64 (Go `[]byte` in JSON). */
  data: string;
  replySubject?: string;
  replyTarget?: string;
  /** Reply deadline, unix ms. */
  replyDeadlineUnixMs?: number;
}

/** Status of a completed step (runtime-spec §1.7). A failed step is terminal for the durability layer. */
export type StepStatus = "done" | "failed";

/** The ledger entry of one step (runtime-spec §1.7 `StepRecord`, Go module/ledger.go; stable JSON contract). */
export interface StepRecord {
  /** Name of the node that ran the step. */
  node: string;
  status: StepStatus;
  /** The handler's error text, for a failed step. */
  error?: string;
  /** The durable hops the step emitted, in send-completion order. */
  emits?: EmitRecord[];
  /** RFC 3339 time the handler started. */
  startedAt?: string;
  /** RFC 3339 time the handler returned. */
  completedAt: string;
  /** Handler duration, ms. */
  durationMs?: number;
}

/** What identifies a durable hop on the wire (runtime-spec §1.7 `Run`, minus counters). */
export interface RunIdentity {
  runId: string;
  stepKey: string;
  /** Core subject the run's reply hop is published to (the waiting origin subscribes to it). */
  replySubject?: string;
  /** `"<node>:<port>"` whose inbound hop is the reply hop (runtime-spec §1.7 `IsReplyHop`). */
  replyTarget?: string;
  /** When the origin stops waiting, unix ms. */
  replyDeadlineUnixMs?: number;
}

const FNV_OFFSET = 0xcbf29ce484222325n;
const FNV_PRIME = 0x100000001b3n;
const MASK64 = 0xffffffffffffffffn;
const enc = new TextEncoder();

/** FNV-1a 64-bit of the UTF-8 bytes of `s`, as 16 lowercase hex digits (Go `hash/fnv` New64a). */
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

/** `"<runID>.root"`: the step key of a run's first step (runtime-spec §1.7 `MintRun`). */
export function rootStepKey(runId: string): string {
  return runId + ROOT_STEP_SUFFIX;
}

/** A run as seen by one step (one handler invocation): identity, edge counters, recorded emits. */
export class RunContext implements RunIdentity {
  readonly runId: string;
  readonly stepKey: string;
  readonly replySubject?: string;
  readonly replyTarget?: string;
  readonly replyDeadlineUnixMs?: number;
  /** Emits recorded during this step, in completion order (runtime-spec §2.5: recorded on success). */
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

  /**
   * `msg` stamped as the next hop of this step (runtime-spec §2.5 durable stamping): run id, a
   * child step key for its edge, the reply fields. Returns a copy; `msg` is not changed.
   */
  stamp(msg: Msg): Msg {
    const out: Msg = { ...msg, runId: this.runId, stepKey: this.nextStepKey(msg.edgeId) };
    if (this.replySubject) out.replySubject = this.replySubject;
    if (this.replyTarget) out.replyTarget = this.replyTarget;
    if (this.replyDeadlineUnixMs) out.replyDeadlineUnixMs = this.replyDeadlineUnixMs;
    return out;
  }
}

/** True when `msg` is the reply hop of its run: it goes to the run's reply target (runtime-spec §1.7, §4.4). */
export function isReplyHop(msg: Msg): boolean {
  return !!msg.replySubject && !!msg.replyTarget && msg.to === msg.replyTarget;
}

/** The emit record of a durable hop sent with payload bytes `data` (runtime-spec §2.5). */
export function emitRecordOf(msg: Msg, data: Uint8Array): EmitRecord {
  const e: EmitRecord = {
    to: msg.to,
    from: msg.from,
    edgeID: msg.edgeId,
    stepKey: msg.stepKey ?? "",
    data: Buffer.from(data.buffer, data.byteOffset, data.byteLength).toString("base64"),
  };
  if (msg.replySubject) e.replySubject = msg.replySubject;
  if (msg.replyTarget) e.replyTarget = msg.replyTarget;
  if (msg.replyDeadlineUnixMs) e.replyDeadlineUnixMs = msg.replyDeadlineUnixMs;
  return e;
}

/** A new run: random UUID v4 id, root step `<runID>.root` (runtime-spec §1.7 `MintRun`). */
export function mintRun(reply: Omit<RunIdentity, "runId" | "stepKey"> = {}): RunContext {
  const runId = crypto.randomUUID();
  return new RunContext({ ...reply, runId, stepKey: rootStepKey(runId) });
}

const storage = new AsyncLocalStorage<RunContext>();
/** Scopes entered by {@link withRun} and not yet settled: while 0, no hop can be inside a run. */
let entered = 0;

/** The run of the step currently executing in this async chain, if any (Go `RunFrom(ctx)`). */
export function currentRun(): RunContext | undefined {
  // Most processes never start a run: skip the AsyncLocalStorage lookup on every hop then.
  return entered === 0 ? undefined : storage.getStore();
}

/**
 * Runs `fn` with `run` as the current run (Go `WithRun`); hops emitted inside are stamped durable.
 * A promise returned by `fn` keeps the run current for everything it awaits.
 */
export function withRun<T>(run: RunContext, fn: () => T): T {
  entered++;
  let out: T;
  try {
    out = storage.run(run, fn);
  } catch (err) {
    entered--;
    throw err;
  }
  if (out instanceof Promise) {
    void out.then(
      () => entered--,
      () => entered--,
    );
  } else entered--;
  return out;
}
