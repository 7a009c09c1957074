/**
 * The agent-tool capability (Go module/agent_tool.go `AgentTool`, runtime-spec §1.5, §3.4): a
 * component that declares it can be called as an MCP tool — `x-mode: rpc` runs a fresh instance
 * with the caller's payload on its input port and answers with the first emit on its output port.
 * Only stateless components should opt in: an RPC call gets no settings, no state and no hooks.
 */

/** How a component is exposed as an agent tool; every field is optional (Go `AgentToolInfo`). */
export interface AgentToolSpec {
  /** Tool name override; empty = the platform's `<module>_<component>`. */
  name?: string;
  /** One sentence an agent can match a request against; empty = the component's `info`. */
  description?: string;
  /** Target port the call's payload arrives on; default `"in"`. Its schema is the tool's input schema. */
  inputPort?: string;
  /** Source port whose first emit is the call's answer; default `"out"`. */
  outputPort?: string;
}

/** An agent-tool declaration with the defaults applied. */
export interface AgentToolInfo {
  /** `""` when not overridden. */
  readonly name: string;
  /** `""` when not overridden. */
  readonly description: string;
  readonly inputPort: string;
  readonly outputPort: string;
}

/** Tag the platform's MCP layer looks for (Go cli/components.go `AgentToolTag`). */
export const AGENT_TOOL_TAG = "agent_tool";

/** Tag of a component that blocks on a downstream reply (Go cli/components.go `SyncRPCTag`). */
export const SYNC_RPC_TAG = "sync_rpc";

/**
 * Resolves `agentTool` of a component spec (`true` = every default).
 * @returns the info, or a problem text naming the field and value.
 */
export function resolveAgentTool(spec: true | AgentToolSpec): AgentToolInfo | string {
  const s: AgentToolSpec = spec === true ? {} : spec;
  if (typeof s !== "object" || s === null) return `agentTool must be true or an object, got ${JSON.stringify(spec)}`;
  for (const k of ["name", "description", "inputPort", "outputPort"] as const) {
    const v = s[k];
    if (v !== undefined && typeof v !== "string") return `agentTool.${k} must be a string, got ${JSON.stringify(v)}`;
  }
  for (const k of ["inputPort", "outputPort"] as const) {
    const v = s[k];
    if (v !== undefined && (v === "" || v.startsWith("_") || v.includes(":")))
      return `agentTool.${k} ${JSON.stringify(v)} must name a business port (not empty, no leading "_", no ":")`;
  }
  return Object.freeze({ name: s.name ?? "", description: s.description ?? "", inputPort: s.inputPort ?? "in", outputPort: s.outputPort ?? "out" });
}
