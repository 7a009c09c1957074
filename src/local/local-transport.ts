/**
 * The transport between local mode's modules: every module of the directory runs on the one
 * scheduler (./modules.ts), so a hop to a node of another module is handed to it as a transport
 * would hand it to that module's process — through `Scheduler.handle`, live values as Go passes them
 * in-process. A hop to a module this process does not run fails at once with the reason.
 */
import { fail, type Result } from "../core/result.ts";
import { TinyError } from "../core/errors.ts";
import { moduleOfNode, parsePortAddress, type Msg, type MsgHandler, type Transport } from "../core/hop.ts";

/** A hop to a module local mode does not run. code `"MODULE_NOT_RUN"`. */
export class ModuleNotRunError extends TinyError {
  /** @param to the hop's destination `node:port`; @param reason why its module is not run. */
  constructor(to: string, reason: string) {
    super("MODULE_NOT_RUN", `hop to ${to}: ${reason}`);
  }
}

/** Delivers hops to the modules local mode runs (see the module comment). */
export class LocalTransport implements Transport {
  /**
   * @param handle the scheduler's entry for a hop from another module.
   * @param notRun why module `segment` is not run here, or undefined when it is.
   */
  constructor(
    readonly handle: MsgHandler,
    readonly notRun: (segment: string) => string | undefined,
  ) {}

  /** Hands `msg` to the scheduler, or fails at once with {@link ModuleNotRunError}. */
  send(msg: Msg, signal?: AbortSignal): Promise<Result> {
    const [node] = parsePortAddress(msg.to);
    const segment = moduleOfNode(node) ?? "";
    const reason = this.notRun(segment);
    if (reason !== undefined) return Promise.resolve(fail(new ModuleNotRunError(msg.to, reason)));
    return this.handle(msg, signal);
  }
}
