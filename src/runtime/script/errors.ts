/**
 * Errors of the script runtime (docs/security.md). Each fails the one call (or the one compile)
 * it belongs to; none stops the process. `code` says which limit or rule was hit.
 */
import { TinyError } from "../../core/errors.ts";

/** Why a script call or compile failed. */
export type ScriptErrorCode =
  /** The source does not parse, imports something it may not, or has no default-exported function. */
  | "SCRIPT_COMPILE"
  /** The script threw, or its promise rejected. */
  | "SCRIPT_THROW"
  /** The call ran past its time limit; the sandbox was stopped. */
  | "SCRIPT_TIMEOUT"
  /** The process grew past the memory cap while the call ran; the sandbox was stopped. */
  | "SCRIPT_MEMORY"
  /** The call's caller gave up (hop cancelled, node stopped); the sandbox was stopped. */
  | "SCRIPT_CANCELLED"
  /** The script returned something JSON cannot carry (a function, a BigInt, a cycle). */
  | "SCRIPT_RESULT"
  /** The sandbox died for another reason (worker error). */
  | "SCRIPT_CRASHED"
  /** The runtime was closed (node stopped or definition replaced). */
  | "SCRIPT_CLOSED"
  /** The sandbox was stopped between calls: work left running after a result, or a heap over the cap. */
  | "SCRIPT_LEFTOVER";

/** A script failure; `message` is what the hop's error (or the error port) carries. */
export class ScriptError extends TinyError<ScriptErrorCode> {
  constructor(code: ScriptErrorCode, message: string, options?: { cause?: unknown }) {
    super(code, message, options);
    this.name = "ScriptError";
  }
}
