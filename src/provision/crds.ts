/**
 * The seven TinySystems CRDs from crds/, embedded at build time (text imports are bundled into
 * the compiled binary) and applied before anything else (provision.md §5.2, §8).
 */
import YAML from "yaml";
import { customResourceDefinitions } from "../k8s/client/index.ts";
import { ProvisionError } from "./errors.ts";
import type { Manifest, ManifestObject } from "./manifest.ts";
import tinycomponents from "../../crds/operator.tinysystems.io_tinycomponents.yaml" with { type: "text" };
import tinyflows from "../../crds/operator.tinysystems.io_tinyflows.yaml" with { type: "text" };
import tinymodules from "../../crds/operator.tinysystems.io_tinymodules.yaml" with { type: "text" };
import tinynodes from "../../crds/operator.tinysystems.io_tinynodes.yaml" with { type: "text" };
import tinyprojects from "../../crds/operator.tinysystems.io_tinyprojects.yaml" with { type: "text" };
import tinyscenarios from "../../crds/operator.tinysystems.io_tinyscenarios.yaml" with { type: "text" };
import tinywidgetpages from "../../crds/operator.tinysystems.io_tinywidgetpages.yaml" with { type: "text" };

/** The embedded files, by name, in file-name order (the order they are applied and printed). */
const FILES: ReadonlyArray<readonly [string, unknown]> = [
  ["operator.tinysystems.io_tinycomponents.yaml", tinycomponents],
  ["operator.tinysystems.io_tinyflows.yaml", tinyflows],
  ["operator.tinysystems.io_tinymodules.yaml", tinymodules],
  ["operator.tinysystems.io_tinynodes.yaml", tinynodes],
  ["operator.tinysystems.io_tinyprojects.yaml", tinyprojects],
  ["operator.tinysystems.io_tinyscenarios.yaml", tinyscenarios],
  ["operator.tinysystems.io_tinywidgetpages.yaml", tinywidgetpages],
];

/**
 * Parses the embedded CRD files: every CustomResourceDefinition document, in file order.
 * @throws ProvisionError (`PROVISION_CRD_FILE`) naming the file when one is not text, does not
 *   parse, or holds no CRD — a build defect, not user input.
 */
export function crdObjects(): ManifestObject[] {
  const out: ManifestObject[] = [];
  for (const [file, text] of FILES) {
    if (typeof text !== "string") throw new ProvisionError("PROVISION_CRD_FILE", `crds/${file} was not embedded as text`);
    const docs = YAML.parseAllDocuments(text);
    let found = 0;
    for (const doc of docs) {
      if (doc.errors.length > 0) throw new ProvisionError("PROVISION_CRD_FILE", `crds/${file}: ${doc.errors[0]!.message}`);
      const obj = doc.toJSON() as ManifestObject | null;
      if (!obj || obj.kind !== "CustomResourceDefinition" || !obj.metadata?.name) continue;
      out.push(obj);
      found++;
    }
    if (found === 0) throw new ProvisionError("PROVISION_CRD_FILE", `crds/${file} holds no CustomResourceDefinition`);
  }
  return out;
}

/** The CRD manifests, applied with force (tinyhost is their only author). */
export function crdManifests(): Manifest[] {
  return crdObjects().map((object) => ({ resource: customResourceDefinitions, policy: "apply-force", object }));
}
