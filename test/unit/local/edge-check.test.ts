import { describe, expect, test } from "bun:test";
import { Type } from "typebox";
import { edgeProblems, type RunningPorts } from "../../../src/local/edge-check.ts";
import { parseManifestFile, type NodeManifest } from "../../../src/local/manifests.ts";
import { source, target } from "../../../src/core/ports.ts";

const node = (name: string, component: string, edges: Array<{ id: string; port: string; to: string }> = []) => `---
apiVersion: operator.tinysystems.io/v1alpha1
kind: TinyNode
metadata:
  name: ${name}
spec:
  module: m
  component: ${component}
${edges.length ? `  edges:\n${edges.map((e) => `    - id: ${e.id}\n      port: ${e.port}\n      to: ${e.to}\n`).join("")}` : ""}`;

const relayPorts: RunningPorts = {
  component: "relay",
  ports: [target("in", Type.Unknown()), source("out", Type.Unknown()), target("_settings", Type.Unknown())],
};

function check(text: string, running: Record<string, RunningPorts>, runsHere = (e: NodeManifest) => e.node.metadata.name!.split(".")[1] === "m") {
  const nodes = new Map(parseManifestFile("flow.yaml", text).nodes.map((n) => [n.node.metadata.name!, n]));
  return edgeProblems({ nodes, runsHere, portsOf: (n) => running[n], module: "m" }).map((e) => e.message);
}

describe("edgeProblems", () => {
  test("an edge to a node no manifest declares names file, edge line, node, edge id and target", () => {
    const text = node("h.m.relay-1", "relay", [{ id: "e1", port: "out", to: "h.m.ghost-1:in" }]);
    expect(check(text, {})).toEqual([
      "flow.yaml:10: node h.m.relay-1: edge e1 (port out → h.m.ghost-1:in): no node h.m.ghost-1 is declared in the manifests; hops on this edge fail",
    ]);
  });

  test("an edge to a port the running target does not have lists its input ports", () => {
    const text = node("h.m.relay-1", "relay", [{ id: "e1", port: "out", to: "h.m.relay-2:inn" }]) + node("h.m.relay-2", "relay");
    expect(check(text, { "h.m.relay-1": relayPorts, "h.m.relay-2": relayPorts })).toEqual([
      'flow.yaml:10: node h.m.relay-1: edge e1 (port out → h.m.relay-2:inn): relay node h.m.relay-2 has no port "inn" (its input ports: in); hops on this edge fail',
    ]);
  });

  test("an edge ending at an output port is an error", () => {
    const text = node("h.m.relay-1", "relay", [{ id: "e1", port: "out", to: "h.m.relay-2:out" }]) + node("h.m.relay-2", "relay");
    expect(check(text, { "h.m.relay-1": relayPorts, "h.m.relay-2": relayPorts })).toEqual([
      'flow.yaml:10: node h.m.relay-1: edge e1 (port out → h.m.relay-2:out): port "out" of relay node h.m.relay-2 is an output port; an edge must end at an input port',
    ]);
  });

  test("an edge leaving from a port the component does not declare as an output lists its output ports", () => {
    const text = node("h.m.relay-1", "relay", [{ id: "e1", port: "outt", to: "h.m.relay-2:in" }]) + node("h.m.relay-2", "relay");
    expect(check(text, { "h.m.relay-1": relayPorts, "h.m.relay-2": relayPorts })).toEqual([
      'flow.yaml:10: node h.m.relay-1: edge e1 (port outt → h.m.relay-2:in): relay has no output port "outt" (its output ports: out)',
    ]);
  });

  test("an edge to a node of a module this process does not run is reported", () => {
    const text = node("h.m.relay-1", "relay", [{ id: "e1", port: "out", to: "h.other.relay-9:in" }]) + node("h.other.relay-9", "relay");
    expect(check(text, { "h.m.relay-1": relayPorts })).toEqual([
      "flow.yaml:10: node h.m.relay-1: edge e1 (port out → h.other.relay-9:in): node h.other.relay-9 belongs to another module, which this process (module m) does not run; hops on this edge fail",
    ]);
  });

  test("good edges, edges of nodes not run here, and ports of nodes without a runner are not reported", () => {
    const text =
      node("h.m.relay-1", "relay", [{ id: "e1", port: "out", to: "h.m.relay-2:in" }]) +
      node("h.m.relay-2", "relay", [{ id: "e2", port: "whatever", to: "h.m.relay-3:nope" }]) +
      node("h.m.relay-3", "relay") +
      node("h.other.x-1", "x", [{ id: "e3", port: "out", to: "h.other.ghost-1:in" }]);
    expect(check(text, { "h.m.relay-1": relayPorts })).toEqual([]);
  });
});
