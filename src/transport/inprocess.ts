/**
 * In-process transport: delivers hops to module handlers living in the same process, keyed by the
 * module part of the target node name (runtime-spec §1.9, §3.5). Values pass by reference, as
 * same-module hops do in the Go runtime (runtime-spec §16 item 19).
 *
 * The scheduler short-circuits hops to its own module without going through here; this transport
 * joins several modules in one process (tests, the local demo).
 */
import { fail, type Result } from "../core/result.ts";
import { TinyError } from "../core/errors.ts";
import { moduleOfNode, parsePortAddress, type Msg, type MsgHandler, type Transport } from "../core/hop.ts";

/** No module registered for the hop's destination. code `"NO_ROUTE"`. */
export class NoRouteError extends TinyError {
  constructor(message: string) {
    super("NO_ROUTE", message);
  }
}

/** Routes hops to in-process module handlers by the module segment of `msg.to`. */
export class InProcessTransport implements Transport {
  readonly #modules = new Map<string, MsgHandler>();

  /** Serves hops addressed to nodes of `module` with `handler`; returns an unregister function. */
  register(module: string, handler: MsgHandler): () => void {
    this.#modules.set(module, handler);
    return () => {
      if (this.#modules.get(module) === handler) this.#modules.delete(module);
    };
  }

  /** Delivers `msg` to the handler of its module; an unknown module resolves to a `NO_ROUTE` failure. */
  send(msg: Msg, signal?: AbortSignal): Promise<Result> {
    const [node] = parsePortAddress(msg.to);
    const module = moduleOfNode(node);
    const handler = module === undefined ? undefined : this.#modules.get(module);
    if (!handler) {
      return Promise.resolve(fail(new NoRouteError(`no in-process module serves ${JSON.stringify(msg.to)} (module ${JSON.stringify(module ?? "")})`)));
    }
    return handler(msg, signal);
  }
}
