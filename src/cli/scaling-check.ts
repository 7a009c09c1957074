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

/**
 * Runs the check for module `module`.
 * @returns warnings for stderr (min=0 without manifests).
 * @throws ScaleToZeroRefusedError naming the nodes; ProvisionInputError (`--manifests`) when the directory is missing.
 */
export async function scaleToZeroCheck(a: Autoscale, needs: readonly ComponentNeeds[], module: string, manifestsDir: string | undefined): Promise<string[]> {
  let nodes: ScalingNode[] | undefined;
  if (manifestsDir !== undefined) {
    const dir = resolve(manifestsDir);
    if (!existsSync(dir) || !statSync(dir).isDirectory()) throw new ProvisionInputError("--manifests", `is not a directory: ${JSON.stringify(manifestsDir)}`);
    const { readManifestDir } = await import("../local/manifests.ts");
    nodes = moduleNodes(
      readManifestDir(dir, manifestsDir).flatMap((f) => f.nodes.map((n) => n.node)),
      module,
    );
  }
  return checkScaleToZero(a, keepRunningComponents(needs), nodes);
}
