/** Errors the scheduler raises; each names the node/port/component involved. */
import { TinyError } from "../../sdk/errors.ts";

/** `TinyNode.spec.component` names a component this module does not have. code `"COMPONENT_NOT_REGISTERED"`. */
export class ComponentNotRegisteredError extends TinyError {
  constructor(component: string, node: string) {
    super("COMPONENT_NOT_REGISTERED", `component ${JSON.stringify(component)} is not registered (node ${node})`);
  }
}

/** No runner for the hop's node within the wait bound. code `"NODE_NOT_FOUND"` (runtime-spec §3.2 step 4). */
export class NodeNotFoundError extends TinyError {
  constructor(node: string, waitedMs: number) {
    super("NODE_NOT_FOUND", `instance ${node} not found after waiting ${waitedMs} ms`);
  }
}

/** The node exists but does not declare the port within the wait bound. code `"PORT_NOT_READY"` (runtime-spec §3.2 step 5). */
export class PortNotReadyError extends TinyError {
  constructor(node: string, port: string, waitedMs: number) {
    super("PORT_NOT_READY", `port ${port} not ready on node ${node} after waiting ${waitedMs} ms`);
  }
}

/** A destination whose node name has no module segment, or no transport reaches. code `"NO_ROUTE"` (runtime-spec §3.5). */
export class RouteError extends TinyError {
  constructor(message: string) {
    super("NO_ROUTE", message);
  }
}

/** `defineComponent` output rejected by install. code `"INVALID_COMPONENT"` (runtime-spec §1.1). */
export class InstallError extends TinyError {
  constructor(message: string) {
    super("INVALID_COMPONENT", message);
  }
}
