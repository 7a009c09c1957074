/**
 * A component as Go's `tools components-info` publishes it to the platform (Go cli/components.go):
 * an agent tool (`agentTool`, runtime-spec §3.4) gets the tag `agent_tool` — which the platform's
 * MCP layer looks for — and its tool description as `info`; a component that blocks on a reply
 * (`syncRpc`) gets `sync_rpc`. TinyModule status lists the authored
 * info and tags instead, as Go's TinyModule controller does (src/k8s/controllers/module-status.ts).
 */
import { describeComponent, type ComponentDescription } from "../runtime/registry/describe.ts";
import type { ComponentDefinition } from "../core/component.ts";
import { AGENT_TOOL_TAG, SYNC_RPC_TAG } from "../core/agent-tool.ts";

/**
 * The listing of `def`: an agent tool gets the tag `agent_tool` (once) and, when it has one, its
 * tool description as `info`; a `syncRpc` component the tag `sync_rpc` (once, after it).
 * @throws whatever the component's `ports()` throws.
 */
export function platformListing(def: ComponentDefinition): ComponentDescription {
  const d = describeComponent(def);
  if (!def.agentTool && !def.syncRpc) return d;
  const withTag = (tags: string[], tag: string) => (tags.includes(tag) ? tags : [...tags, tag]);
  let tags = d.tags;
  let info = d.info;
  if (def.agentTool) {
    tags = withTag(tags, AGENT_TOOL_TAG);
    info = def.agentTool.description || info;
  }
  if (def.syncRpc) tags = withTag(tags, SYNC_RPC_TAG); // after agent_tool, as Go appends them
  return { ...d, info, tags };
}
