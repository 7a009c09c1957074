/**
 * A component as Go's `tools components-info` publishes it to the platform (Go cli/components.go):
 * an agent tool (`agentTool`, runtime-spec §3.4) gets the tag `agent_tool` — which the platform's
 * MCP layer looks for — and its tool description as `info`. TinyModule status lists the authored
 * info and tags instead, as Go's TinyModule controller does (src/k8s/controllers/module-status.ts).
 */
import { describeComponent, type ComponentDescription } from "../runtime/registry/describe.ts";
import type { ComponentDefinition } from "../sdk/component.ts";
import { AGENT_TOOL_TAG } from "../sdk/agent-tool.ts";

/**
 * The listing of `def`: an agent tool gets the tag `agent_tool` (once) and, when it has one, its
 * tool description as `info`.
 * @throws whatever the component's `ports()` throws.
 */
export function platformListing(def: ComponentDefinition): ComponentDescription {
  const d = describeComponent(def);
  if (!def.agentTool) return d;
  return { ...d, info: def.agentTool.description || d.info, tags: d.tags.includes(AGENT_TOOL_TAG) ? d.tags : [...d.tags, AGENT_TOOL_TAG] };
}
