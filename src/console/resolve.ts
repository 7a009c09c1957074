/**
 * Which node a person means: `tinyhost send "Count ticks" _control …` and the console's send both
 * accept a node's full name, its label, or the last segment of its name (`counter-f5e37`), so no
 * one has to copy a hash. An ambiguous or unknown name is an error that lists what there is.
 */
import { nodeLabel, shortName, type NamedNode } from "../local/node-names.ts";
import { TinyError } from "../core/errors.ts";

/** A node name that matches no node, or several. code `UNKNOWN_NODE` or `AMBIGUOUS_NODE`. */
export class NodeLookupError extends TinyError<"UNKNOWN_NODE" | "AMBIGUOUS_NODE"> {
  /** @param code which of the two. @param message names the query and the candidates. */
  constructor(code: "UNKNOWN_NODE" | "AMBIGUOUS_NODE", message: string) {
    super(code, message);
  }
}

/**
 * The full name of the node `query` means among `nodes`: a full name first, then a label, then a
 * name's last segment (each must be unique).
 * @throws NodeLookupError when nothing matches, or a label or segment matches several nodes.
 */
export function resolveNode(query: string, nodes: readonly NamedNode[]): string {
  const names = nodes.map((n) => n.metadata.name!).filter(Boolean);
  if (names.includes(query)) return query;
  for (const [what, of] of [
    ["label", (n: NamedNode) => nodeLabel(n)],
    ["name segment", (n: NamedNode) => shortName(n.metadata.name!)],
  ] as const) {
    const hits = nodes.filter((n) => of(n) === query).map((n) => n.metadata.name!);
    if (hits.length === 1) return hits[0]!;
    if (hits.length > 1)
      throw new NodeLookupError("AMBIGUOUS_NODE", `${JSON.stringify(query)} is the ${what} of ${hits.length} nodes (${hits.join(", ")}): give the full name`);
  }
  const known = nodes.map((n) => (nodeLabel(n) ? `${JSON.stringify(nodeLabel(n))} (${n.metadata.name})` : n.metadata.name!)).join(", ");
  throw new NodeLookupError("UNKNOWN_NODE", `no node ${JSON.stringify(query)}: not a name, label or name segment of any node (nodes: ${known || "none"})`);
}
