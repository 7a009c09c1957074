/** Errors the scheduler raises; each names the node/port/component involved. */
import { TinyError } from "../../core/errors.ts";

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

/**
 * An RPC call names a component this module does not have. code `"RPC_UNKNOWN_COMPONENT"`
 * (runtime-spec §3.4). The text starts with Go's (internal/scheduler/rpc.go `handleRPC`) and adds
 * the module and what it has; test/integration/go-peer-agent-tool.test.ts compares it.
 */
export class RpcUnknownComponentError extends TinyError {
  constructor(component: string, module: string, known: readonly string[]) {
    const list = known.length > 0 ? [...known].sort().join(", ") : "none";
    super("RPC_UNKNOWN_COMPONENT", `rpc: component ${JSON.stringify(component)} not registered on this module (module ${module}; registered: ${list})`);
  }
}

/**
 * An RPC call names a component that does not declare `agentTool`. code `"RPC_NOT_AGENT_TOOL"`
 * (runtime-spec §3.4). The text is Go's exactly (internal/scheduler/rpc.go `handleRPC`): an agent
 * calling either runtime reads the same refusal (test/integration/go-peer-agent-tool.test.ts).
 */
export class RpcNotAgentToolError extends TinyError {
  /** The module that refused the call (the text, as Go's, does not name it). */
  readonly module: string;
  constructor(component: string, module: string) {
    super("RPC_NOT_AGENT_TOOL", `rpc: component ${JSON.stringify(component)} does not opt into AgentTool`);
    this.module = module;
  }
}

/** An agent tool's input port is missing from a fresh instance or is an output. code `"RPC_NO_INPUT_PORT"`. */
export class RpcPortError extends TinyError {
  constructor(component: string, port: string, problem: string) {
    super("RPC_NO_INPUT_PORT", `rpc: component ${JSON.stringify(component)}: agent-tool input port ${JSON.stringify(port)} ${problem}`);
  }
}

/** An RPC payload is not JSON or does not match the input port's schema. code `"VALIDATION"`. */
export class RpcInputError extends TinyError {
  constructor(component: string, port: string, problem: string) {
    super("VALIDATION", `rpc: component ${JSON.stringify(component)} input port ${JSON.stringify(port)}: ${problem}`);
  }
}
