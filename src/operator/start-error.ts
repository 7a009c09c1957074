/**
 * The error of a start-up stage before the manager. Its own file so the first stage
 * (src/operator/early.ts, loaded before the rest of the module) can throw it without loading the
 * other stages' code.
 */
import { TinyError, messageOf } from "../core/errors.ts";

/**
 * A stage before the manager failed (kubeconfig, components, transport, scheduler, a flag); names
 * the stage. A runnable that fails to start is a `ManagerStartError` with the same message shape.
 * code `"MODULE_START"`.
 */
export class ModuleStartError extends TinyError {
  /** The stage, e.g. `kubeconfig`. */
  readonly stage: string;
  /** @param stage - the failing stage. @param cause - its error. */
  constructor(stage: string, cause: unknown) {
    super("MODULE_START", `start-up failed at stage "${stage}": ${messageOf(cause)}`, { cause });
    this.stage = stage;
  }
}
