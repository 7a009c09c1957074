/**
 * Checks the edges of the declared nodes against what exists, so a typo in `spec.edges[]` is
 * reported once, at load, naming the file, node, edge and target — instead of every hop on it
 * waiting for a node that never comes and failing ("instance … not found after waiting 5000 ms",
 * runtime-spec §3.2) or an emit on an undeclared port carrying nothing (runtime-spec §2.4).
 *
 * Local mode knows every node, so a target node missing from the manifests is certain. Ports are
 * checked against the running components (their `ports()` may depend on settings, e.g. router's
 * routes), so that part runs after a reconcile and only for nodes that have a runner.
 */
import type { AnyPort } from "../core/ports.ts";
import { isSystemPort } from "../core/ports.ts";
import { parsePortAddress } from "../core/hop.ts";
import { ManifestError } from "./errors.ts";
import type { NodeManifest } from "./manifests.ts";

/** The component and current ports of a running node. */
export interface RunningPorts {
  /** `info.name` of its component. */
  component: string;
  /** Its ports now (`Runner.ports()`). */
  ports: readonly AnyPort[];
}

/** What {@link edgeProblems} needs to know about the nodes. */
export interface EdgeCheckContext {
  /** Every declared node by name. */
  nodes: ReadonlyMap<string, NodeManifest>;
  /** True when this process runs node `entry` (its name's module segment is this module). */
  runsHere(entry: NodeManifest): boolean;
  /**
   * The ports of a node that has a runner; undefined when it has none (not reconciled, unknown
   * component) or its last reconcile failed (its ports reflect the failure, which its status reports).
   */
  portsOf(node: string): RunningPorts | undefined;
  /** This module's name, for the message about nodes of other modules. */
  module: string;
}

const names = (ports: readonly AnyPort[], source: boolean) =>
  ports
    .filter((p) => p.source === source && !isSystemPort(p.name))
    .map((p) => p.name)
    .join(", ") || "none";

/**
 * One `EDGE_TARGET` error per broken edge of the nodes this process runs: the edge leaves from a
 * port its component does not declare as an output; its target node is not declared, or belongs to
 * a module this process does not run; or the target port does not exist or is an output port.
 * @returns errors in node-name then edge order; each names file, edge line, node, edge id and target.
 */
export function edgeProblems(ctx: EdgeCheckContext): ManifestError[] {
  const out: ManifestError[] = [];
  for (const name of [...ctx.nodes.keys()].sort()) {
    const entry = ctx.nodes.get(name)!;
    if (!ctx.runsHere(entry)) continue;
    const own = ctx.portsOf(name);
    (entry.node.spec.edges ?? []).forEach((edge, i) => {
      const line = entry.edgeLines?.[i] ?? entry.line;
      const bad = (what: string) =>
        out.push(new ManifestError("EDGE_TARGET", entry.file, line, name, `edge ${edge.id} (port ${edge.port} → ${edge.to}): ${what}`));
      if (own && !edge.port.includes(":") && !own.ports.some((p) => p.name === edge.port && p.source)) {
        bad(`${own.component} has no output port ${JSON.stringify(edge.port)} (its output ports: ${names(own.ports, true)})`);
        return;
      }
      const [toNode, toPort] = parsePortAddress(edge.to);
      const target = ctx.nodes.get(toNode);
      if (!target) {
        bad(`no node ${toNode} is declared in the manifests; hops on this edge fail`);
        return;
      }
      if (!ctx.runsHere(target)) {
        bad(`node ${toNode} belongs to another module, which this process (module ${ctx.module}) does not run; hops on this edge fail`);
        return;
      }
      const theirs = ctx.portsOf(toNode);
      if (!theirs) return;
      const port = theirs.ports.find((p) => p.name === toPort);
      if (!port)
        bad(
          `${theirs.component} node ${toNode} has no port ${JSON.stringify(toPort)} (its input ports: ${names(theirs.ports, false)}); hops on this edge fail`,
        );
      else if (port.source && !isSystemPort(toPort))
        bad(`port ${JSON.stringify(toPort)} of ${theirs.component} node ${toNode} is an output port; an edge must end at an input port`);
    });
  }
  return out;
}
