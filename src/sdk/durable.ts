/**
 * Durable runs for component authors (runtime-spec §1.7, §14.4; Go module/run.go and
 * module/ledger.go): start a run from a classic component, read the current run's id, wait for a
 * run's reply, read a run's progress from the step ledger. Guide: docs/authoring.md "Durable runs".
 *
 * A run is a chain of hops in which every hop is a step: stored before it is handled (JetStream),
 * recorded in the step ledger once handled, never handled twice, re-driven when it went missing.
 * Nodes labelled `tinysystems.io/execution-mode: durable` start runs by themselves; these functions
 * are for the component that starts one on purpose (a front door) and for run-status components.
 */
import type { ComponentContext } from "../core/context.ts";
import { TinyError, messageOf } from "../core/errors.ts";
import { fail, ok, toResult, type Result } from "../core/result.ts";
import { NoRunRuntimeError } from "../core/durable/errors.ts";
import { currentRun, mintRun, withRun, type RunContext, type StepRecord } from "../core/durable/run.ts";
import type { RunView } from "../core/durable/view.ts";
import { RUN_RUNTIME, type RunRuntime } from "../core/durable/run-runtime.ts";

export type { EmitRecord, StepRecord, StepStatus } from "../core/durable/run.ts";
export type { RunView, StepView } from "../core/durable/view.ts";

/** Default wait for a run's reply, ms (Go `wire.PublishRPC`'s 30 s). */
export const DEFAULT_RUN_REPLY_TIMEOUT_MS = 30_000;

/** A run that was started: its id, and what the start resolved to. */
export interface RunStart {
  /** The run id (a UUID v4). */
  runId: string;
  /**
   * {@link beginRun}: what `fn` resolved to (the result of its durable emits: `empty` once stored).
   * {@link beginRunWithReply}: the reply — `ok(data)` from the hop to the reply port,
   * `fail` with code `RUN_REPLY_TIMEOUT` after the timeout, or `fn`'s failure.
   */
  result: Result;
}

/** Options of {@link beginRunWithReply}. */
export interface RunReplyOptions {
  /** How long to wait for the reply, ms; default {@link DEFAULT_RUN_REPLY_TIMEOUT_MS}. */
  timeoutMs?: number;
}

function runtimeOf(ctx: ComponentContext<unknown>): RunRuntime | undefined {
  return (ctx as unknown as { [RUN_RUNTIME]?: RunRuntime })[RUN_RUNTIME];
}

/**
 * The id of the run the current hop belongs to, or undefined outside a run (Go `module.RunID`).
 * Call it inside `handle` (or code it awaits): the run follows the handler's async chain.
 */
export function runId(_ctx: ComponentContext<unknown>): string | undefined {
  return currentRun()?.runId;
}

/**
 * Starts a durable run (Go `module.BeginRun`) and calls `fn` inside it: every hop `fn` emits
 * (through `output`) is a step of the run — on JetStream stored and handled by any replica, its
 * `output(...)` resolving to `empty` as soon as the broker has it. Emits made outside `fn` stay
 * classic. When the hop already belongs to a run, `fn` runs in that run (idempotent, as in Go).
 * Once `fn` settled, the run's root step is recorded with the hops it emitted (Go records none).
 *
 * @example
 * handle: async (ctx, output, _port, data) => {
 *   const { runId: id, result } = await beginRun(ctx, () => output("out", data));
 *   return result.kind === "fail" ? result : output("started", { runId: id });
 * }
 * @returns the run id and `fn`'s result (a throw becomes `fail`). Never rejects.
 */
export async function beginRun(ctx: ComponentContext<unknown>, fn: (runId: string) => unknown): Promise<RunStart> {
  const cur = currentRun();
  if (cur) return { runId: cur.runId, result: await settle(() => fn(cur.runId)) };
  return start(ctx, mintRun(), fn);
}

/**
 * Starts a durable run whose reply comes back to this very call (Go `module.BeginRunWithReply`):
 * the run's hop to `<this node>:<port>` is its reply — delivered here (on JetStream to a subject
 * of this pod) instead of to `handle` — so a synchronous front door can answer its caller while
 * the run's steps run anywhere. Wire the flow's last edge to `port` (a target port of this
 * component). Inside an existing run this behaves as {@link beginRun} (no reply is awaited).
 *
 * @param port the target port of this component the flow's last edge goes to.
 * @returns the run id and the reply (see {@link RunStart.result}). Never rejects.
 * @throws NoRunRuntimeError (code `NO_RUN_RUNTIME`) when `ctx` was not made by the runtime.
 */
export async function beginRunWithReply(
  ctx: ComponentContext<unknown>,
  port: string,
  fn: (runId: string) => unknown,
  options: RunReplyOptions = {},
): Promise<RunStart> {
  const cur = currentRun();
  if (cur) return { runId: cur.runId, result: await settle(() => fn(cur.runId)) };
  const rt = runtimeOf(ctx);
  if (!rt) throw new NoRunRuntimeError("beginRunWithReply");
  const timeoutMs = options.timeoutMs ?? DEFAULT_RUN_REPLY_TIMEOUT_MS;
  const inbox = rt.openReply(timeoutMs);
  const onAbort = () => inbox.close();
  ctx.signal.addEventListener("abort", onAbort, { once: true });
  try {
    const run = mintRun({ replySubject: inbox.subject, replyTarget: `${ctx.node.nodeName}:${port}`, replyDeadlineUnixMs: Date.now() + timeoutMs });
    const started = await start(ctx, run, fn);
    if (started.result.kind === "fail") {
      inbox.close();
      return started;
    }
    return { runId: run.runId, result: decodeReply(await inbox.reply) };
  } finally {
    ctx.signal.removeEventListener("abort", onAbort);
  }
}

/**
 * The progress of run `id` as the step ledger records it (Go: the execution-scope `step/` records,
 * module/ledger.go): its steps, the hops still pending and a status. With JetStream the ledger is
 * shared by every module; without it, only the steps this module's nodes ran are seen.
 * @returns undefined when the ledger holds nothing for `id` (unknown, or deleted 24 h after it finished).
 * @throws NoRunRuntimeError when `ctx` was not made by the runtime; the ledger's error when unreachable.
 */
export async function readRun(ctx: ComponentContext<unknown>, id: string): Promise<RunView | undefined> {
  const rt = runtimeOf(ctx);
  if (!rt) throw new NoRunRuntimeError("readRun");
  return rt.readRun(id);
}

async function settle(fn: () => unknown): Promise<Result> {
  try {
    return toResult(await fn());
  } catch (err) {
    return fail(err);
  }
}

async function start(ctx: ComponentContext<unknown>, run: RunContext, fn: (runId: string) => unknown): Promise<RunStart> {
  const startedAt = new Date();
  const result = await withRun(run, () => settle(() => fn(run.runId)));
  const completedAt = new Date();
  await runtimeOf(ctx)?.recordRoot(run.runId, run.stepKey, {
    node: ctx.node.nodeName,
    status: result.kind === "fail" ? "failed" : "done",
    ...(result.kind === "fail" ? { error: result.error.message } : {}),
    ...(run.emits.length > 0 ? { emits: run.emits } : {}),
    startedAt: startedAt.toISOString(),
    completedAt: completedAt.toISOString(),
    durationMs: completedAt.getTime() - startedAt.getTime(),
  });
  return { runId: run.runId, result };
}

/** A reply off a wire is JSON bytes; in process it is the live value. */
function decodeReply(r: Result): Result {
  if (r.kind !== "ok" || !(r.value instanceof Uint8Array)) return r;
  try {
    return ok(r.value.byteLength === 0 ? null : JSON.parse(new TextDecoder().decode(r.value)));
  } catch (err) {
    return fail(new TinyError("DECODE", `run reply is not valid JSON: ${messageOf(err)}`));
  }
}
