import { describe, expect, test } from "bun:test";
import { NodeLookupError, resolveNode } from "../../../src/console/resolve.ts";

const n = (name: string, label?: string) => ({ metadata: { name, ...(label ? { annotations: { "tinysystems.io/node-label": label } } : {}) } });
const nodes = [n("h.m.counter-f5e37", "Count ticks"), n("h.m.debug-1", "Up"), n("h.m.debug-2", "Up"), n("h.m.ticker-9")];

describe("resolveNode", () => {
  test("a full name, a unique label or a unique name segment names the node", () => {
    expect(resolveNode("h.m.ticker-9", nodes)).toBe("h.m.ticker-9");
    expect(resolveNode("Count ticks", nodes)).toBe("h.m.counter-f5e37");
    expect(resolveNode("counter-f5e37", nodes)).toBe("h.m.counter-f5e37");
  });

  test("a label shared by two nodes is ambiguous and lists both", () => {
    expect(() => resolveNode("Up", nodes)).toThrow(
      new NodeLookupError("AMBIGUOUS_NODE", `"Up" is the label of 2 nodes (h.m.debug-1, h.m.debug-2): give the full name`),
    );
  });

  test("an unknown name lists the nodes there are", () => {
    try {
      resolveNode("Count", nodes);
      throw new Error("resolved");
    } catch (err) {
      expect((err as NodeLookupError).code).toBe("UNKNOWN_NODE");
      expect((err as Error).message).toContain(`"Count ticks" (h.m.counter-f5e37)`);
    }
  });
});
