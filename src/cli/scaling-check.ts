/**
 * The scale-to-zero check of `provision --autoscale` and `tools keda-values` (src/provision/scaling.ts
 * `checkScaleToZero`): the components that must keep a replica come from the component set; the
 * module's nodes from `--manifests <dir>` when given (TinyNode YAML, as `tools rbac-check` reads it).
 */
import { existsSync, statSync } from "node:fs";
import { resolve } from "node:path";
import { checkScaleToZero, keepRunningComponents, moduleNodes, type Autoscale, type ScalingNode } from "../provision/scaling.ts";
import type { ComponentNeeds } from "../provision/rbac-values.ts";
import { ProvisionInputError } from "../provision/errors.ts";
import { sanitizeResourceName } from "../core/api/index.ts";
import { moduleOfNode } from "../core/hop.ts";

/** Why a manifests directory holds no node of `module`: what it holds instead. */
function noModuleNodes(shown: string, module: string, all: readonly { metadata: { name?: string } }[]): string {
  const others = [...new Set(all.flatMap((n) => moduleOfNode(n.metadata.name ?? "") ?? []))].sort();
  const found = all.length === 0 ? "no TinyNode at all" : `${all.length} TinyNode(s), of module(s) ${others.join(", ") || "(unnamed)"}`;
  return (
    `${JSON.stringify(shown)} holds no TinyNode of module ${JSON.stringify(sanitizeResourceName(module))} (${found}), so the scale-to-zero check would prove nothing: ` +
    `check the module name (a node is <flow>.<module>.<component>-<id>) and the directory, or drop --manifests`
  );
}

/**
 * Runs the check for module `module`.
 * @returns warnings for stderr (min=0 without manifests).
 * @throws ScaleToZeroRefusedError naming the nodes; ProvisionInputError (`--manifests`) when the directory
 *   is missing or holds no node of `module`.
 */
export async function scaleToZeroCheck(a: Autoscale, needs: readonly ComponentNeeds[], module: string, manifestsDir: string | undefined): Promise<string[]> {
  let nodes: ScalingNode[] | undefined;
  if (manifestsDir !== undefined) {
    const dir = resolve(manifestsDir);
    if (!existsSync(dir) || !statSync(dir).isDirectory()) throw new ProvisionInputError("--manifests", `is not a directory: ${JSON.stringify(manifestsDir)}`);
    const { readManifestDir } = await import("../local/manifests.ts");
    const all = readManifestDir(dir, manifestsDir).flatMap((f) => f.nodes.map((n) => n.node));
    nodes = moduleNodes(all, module);
    // An error, not a warning: the flag asks for proof that no node forbids min=0, and a directory
    // with none of the module's nodes (a wrong --name, the chart's fullname, another directory)
    // would pass that check while proving nothing. A module without flows needs no --manifests.
    if (nodes.length === 0) throw new ProvisionInputError("--manifests", noModuleNodes(manifestsDir, module, all));
  }
  return checkScaleToZero(a, keepRunningComponents(needs), nodes);
}
