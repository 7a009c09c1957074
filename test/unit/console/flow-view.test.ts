import { describe, expect, test } from "bun:test";
import { buttonsOf, flowView } from "../../../src/console/flow-view.ts";
import type { TinyNode } from "../../../src/core/api/index.ts";

const b64 = (v: unknown) => Buffer.from(JSON.stringify(v)).toString("base64");

const controlSchema = {
  $ref: "#/$defs/Control",
  $defs: {
    Control: {
      type: "object",
      properties: {
        count: { type: "integer", readonly: true, propertyOrder: 1 },
        stop: { type: "boolean", format: "button", propertyOrder: 3 },
        reset: { type: "boolean", format: "button", propertyOrder: 2 },
      },
    },
  },
};

function node(name: string, extra: Partial<TinyNode> = {}, annotations: Record<string, string> = {}): TinyNode {
  return {
    apiVersion: "v1",
    kind: "TinyNode",
    metadata: { name, annotations, labels: { "tinysystems.io/flow-name": "f" } },
    spec: { module: "m", component: "counter" },
    ...extra,
  } as TinyNode;
}

describe("buttonsOf", () => {
  test("the boolean format:button fields of the root object ($ref into $defs), by propertyOrder", () => {
    expect(buttonsOf(controlSchema)).toEqual(["reset", "stop"]);
    expect(buttonsOf({ type: "object", properties: { go: { type: "boolean", format: "button" }, n: { type: "string", format: "button" } } })).toEqual(["go"]);
    expect(buttonsOf(null)).toEqual([]);
  });
});

describe("flowView", () => {
  test("nodes carry label, display name, position, status, ports decoded and the last hop error; edges come from source nodes", () => {
    const a = node(
      "h.m.counter-1",
      {
        spec: { module: "m", component: "counter", edges: [{ id: "e1", port: "out", to: "h.m.debug-2:in" }] },
        status: {
          status: "OK",
          error: false,
          ports: [{ name: "_control", label: "Control", position: 0, source: true, schema: b64(controlSchema), configuration: b64({ count: 4, reset: true }) }],
        },
      } as Partial<TinyNode>,
      { "tinysystems.io/node-label": "Count", "tinysystems.io/component-pos-x": "40", "tinysystems.io/component-pos-y": "160" },
    );
    const b = node("h.m.debug-2", {}, { "tinysystems.io/component-pos-x": "oops" });
    const v = flowView({
      module: "m",
      items: () => [a, b],
      running: (n) => n === a.metadata.name,
      lastError: (n) => (n === "h.m.debug-2" ? { port: "in", from: "x", message: "boom", at: 1 } : undefined),
    });
    expect(v.nodes[0]).toEqual({
      name: "h.m.counter-1",
      label: "Count",
      shown: '"Count"',
      component: "counter",
      flow: "f",
      x: 40,
      y: 160,
      status: "OK",
      error: false,
      running: true,
      ports: [{ name: "_control", label: "Control", source: true, position: 0, configuration: { count: 4, reset: true }, buttons: ["reset", "stop"] }],
    });
    expect(v.nodes[1]).toMatchObject({ name: "h.m.debug-2", shown: "h.m.debug-2", status: "", running: false, lastError: { message: "boom" } });
    expect(v.nodes[1]!.x).toBeUndefined(); // a position that is not a number is left to the page's layout
    expect(v.edges).toEqual([{ id: "e1", from: "h.m.counter-1", fromPort: "out", to: "h.m.debug-2", toPort: "in" }]);
  });
});
