/**
 * All or nothing across two objects that cannot be written in one request: write the first, then
 * the second; when the second fails, undo the first. exposePort writes the Service before the
 * Ingress and disclosePort the Ingress before the Service, so no rule ever routes to a Service port
 * that is not there, even for an instant.
 */
import type { Logger } from "../../telemetry/log.ts";
import { PartialWriteError } from "./errors.ts";
import { messageOf } from "../../core/errors.ts";

/** The two writes of {@link writeBoth}. */
export interface TwoWrites<A extends { changed: boolean }> {
  /** Names the operation in errors, e.g. `exposePort(8080)`. */
  operation: string;
  /** Names the first object, e.g. `Service ns/name`. */
  firstObject: string;
  /** The first write; its result says whether anything was written. */
  first: () => Promise<A>;
  /** The second write. */
  second: () => Promise<unknown>;
  /** Undoes the first write, given its result. */
  undoFirst: (done: A) => Promise<unknown>;
  /** Logs a successful undo. */
  log: Logger;
}

/**
 * Runs `first`, then `second`; if `second` throws and `first` wrote something, runs `undoFirst`.
 * @throws what `first` throws (nothing was written); what `second` throws after a successful undo
 *   (nothing is left changed); PartialWriteError (cause: the second failure) when the undo failed too.
 */
export async function writeBoth<A extends { changed: boolean }>(w: TwoWrites<A>): Promise<void> {
  const done = await w.first();
  try {
    await w.second();
  } catch (err) {
    if (!done.changed) throw err;
    try {
      await w.undoFirst(done);
    } catch (undoErr) {
      throw new PartialWriteError(w.operation, w.firstObject, err, undoErr);
    }
    w.log.info({ operation: w.operation, object: w.firstObject, err: messageOf(err) }, "second write failed; first write undone");
    throw err;
  }
}
