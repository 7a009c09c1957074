import { describe, expect, test } from "bun:test";
import { displayNames, NameRewriter, nodeLabel, shortName } from "../../../src/local/node-names.ts";

const node = (name: string, label?: string) => ({
  metadata: { name, ...(label !== undefined ? { annotations: { "tinysystems.io/node-label": label } } : {}) },
});

describe("display names", () => {
  test("a unique label is shown quoted; a shared one gets the name's last segment; no label keeps the full name", () => {
    const names = displayNames([
      node("a1.m.debug-11111", "Up"),
      node("a1.m.debug-22222", "Down"),
      node("a1.m.x-1", "Twin"),
      node("a1.m.x-2", "Twin"),
      node("a1.m.raw-3"),
      node("a1.m.blank-4", "  "),
    ]);
    expect(Object.fromEntries(names)).toEqual({
      "a1.m.debug-11111": '"Up"',
      "a1.m.debug-22222": '"Down"',
      "a1.m.x-1": '"Twin" (x-1)',
      "a1.m.x-2": '"Twin" (x-2)',
      "a1.m.raw-3": "a1.m.raw-3",
      "a1.m.blank-4": "a1.m.blank-4",
    });
  });

  test("nodeLabel trims and treats blank as none; shortName is the last dot segment", () => {
    expect(nodeLabel(node("n", " Count ticks "))).toBe("Count ticks");
    expect(nodeLabel(node("n", ""))).toBeUndefined();
    expect(shortName("37f065ad.tinyhost.counter-f5e37")).toBe("counter-f5e37");
    expect(shortName("plain")).toBe("plain");
  });
});

describe("NameRewriter", () => {
  const r = new NameRewriter();
  r.set(
    new Map([
      ["a1.m.debug-1", '"Up"'],
      ["a1.m.debug-12", '"Down"'],
      ["a1.m.raw-3", "a1.m.raw-3"],
    ]),
  );

  test("replaces whole node names, also in node:port addresses, longest name first", () => {
    expect(r.rewrite("error: node a1.m.debug-12 port in (from a1.m.debug-1:out): boom")).toBe('error: node "Down" port in (from "Up":out): boom');
    // Inside a quoted string the label loses its own quotes (no `""Up":out"`).
    expect(r.rewrite('error: node a1.m.debug-12: configuration of port in (from "a1.m.debug-1:out") is invalid')).toBe(
      'error: node "Down": configuration of port in (from "Up:out") is invalid',
    );
  });

  test("leaves a name inside a longer token alone", () => {
    expect(r.rewrite("file /x/a1.m.debug-1.yaml and xa1.m.debug-1 and a1.m.debug-1-b")).toBe("file /x/a1.m.debug-1.yaml and xa1.m.debug-1 and a1.m.debug-1-b");
  });

  test("name() gives the display name, or the name itself when it has none", () => {
    expect(r.name("a1.m.debug-1")).toBe('"Up"');
    expect(r.name("a1.m.raw-3")).toBe("a1.m.raw-3");
    expect(r.name("other")).toBe("other");
  });
});
