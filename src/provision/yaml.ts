/**
 * Multi-document YAML output of manifests (`--dry-run`, `tinyhost rbac`).
 */
import YAML from "yaml";
import type { KubeObject } from "../k8s/client/index.ts";

/**
 * Renders objects as one YAML stream, each document introduced by `---`, keys in insertion order,
 * long strings never folded (so the output is stable and diff-friendly).
 */
export function toYamlStream(objects: readonly KubeObject[]): string {
  return objects.map((o) => `---\n${YAML.stringify(o, { lineWidth: 0, aliasDuplicateObjects: false })}`).join("");
}
