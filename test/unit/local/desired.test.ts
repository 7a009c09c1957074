import { describe, expect, test } from "bun:test";
import { collectDesired } from "../../../src/local/desired.ts";
import { DirectorySource } from "../../../src/local/directory-source.ts";
import { LocalNodes } from "../../../src/local/node-api.ts";
import { parseManifestFile, type NodeManifest } from "../../../src/local/manifests.ts";

const node = (name: string, component = "relay", labels = "") => `---
apiVersion: operator.tinysystems.io/v1alpha1
kind: TinyNode
metadata:
  name: ${name}
${labels ? `  labels: ${labels}\n` : ""}spec:
  module: mod
  component: ${component}
`;

function desired(files: Record<string, string>, previous: ReadonlyMap<string, NodeManifest> = new Map()) {
  return collectDesired(
    Object.entries(files).map(([f, text]) => parseManifestFile(f, text)),
    previous,
  );
}

describe("collectDesired", () => {
  test("the first declaration of a node wins; a second one is a DUPLICATE_NODE error naming both files", () => {
    const d = desired({ "a.yaml": node("h.mod.relay-1"), "b.yaml": node("h.mod.relay-1", "sink") });
    expect(d.nodes.get("h.mod.relay-1")!.node.spec.component).toBe("relay");
    expect(d.errors.map((e) => e.code)).toEqual(["DUPLICATE_NODE"]);
    expect(d.errors[0]!.message).toBe(
      "b.yaml:2: node h.mod.relay-1: declared in two files: a.yaml:2 and b.yaml:2; the one in a.yaml is used (files are read in name order and the first declaration wins), this one is ignored — remove one",
    );
  });

  test("two declarations in one file: the message gives both lines and says the first is used", () => {
    const d = desired({ "a.yaml": node("h.mod.relay-1") + node("h.mod.relay-1", "sink") });
    expect(d.nodes.get("h.mod.relay-1")!.node.spec.component).toBe("relay");
    expect(d.errors[0]!.message).toBe(
      "a.yaml:10: node h.mod.relay-1: declared twice in a.yaml, at lines 2 and 10; the first (line 2) is used and this one is ignored — remove one",
    );
  });

  test("a file that no longer parses keeps the nodes it declared before", () => {
    const before = desired({ "a.yaml": node("h.mod.relay-1"), "b.yaml": node("h.mod.relay-2") });
    const after = desired({ "a.yaml": "kind: [broken", "b.yaml": node("h.mod.relay-2") }, before.nodes);
    expect([...after.nodes.keys()].sort()).toEqual(["h.mod.relay-1", "h.mod.relay-2"]);
    expect(after.errors[0]!.code).toBe("YAML_SYNTAX");
  });

  test("a node document that no longer validates keeps its previous version", () => {
    const before = desired({ "a.yaml": node("h.mod.relay-1") + node("h.mod.relay-2") });
    const after = desired({ "a.yaml": node("h.mod.relay-1", '""') + node("h.mod.relay-2", "sink") }, before.nodes);
    expect(after.nodes.get("h.mod.relay-1")!.node.spec.component).toBe("relay");
    expect(after.nodes.get("h.mod.relay-2")!.node.spec.component).toBe("sink");
    expect(after.errors[0]!.node).toBe("h.mod.relay-1");
  });

  test("a deleted file removes its nodes", () => {
    const before = desired({ "a.yaml": node("h.mod.relay-1"), "b.yaml": node("h.mod.relay-2") });
    const after = desired({ "b.yaml": node("h.mod.relay-2") }, before.nodes);
    expect([...after.nodes.keys()]).toEqual(["h.mod.relay-2"]);
  });
});

describe("DirectorySource.apply: what changed is what the in-memory API answers", () => {
  const source = () => new DirectorySource({ dir: "/m", shownDir: "m", nodes: new LocalNodes({ namespace: "ns" }), seed: () => undefined, removeGraceMs: 0 });

  test("reports added, changed (spec or labels) and removed nodes; untouched nodes are not listed", () => {
    const s = source();
    s.apply(desired({ "a.yaml": node("h.mod.a-1") + node("h.mod.b-1") + node("h.mod.c-1") + node("h.mod.d-1") }));
    const diff = s.apply(desired({ "a.yaml": node("h.mod.a-1") + node("h.mod.b-1", "sink") + node("h.mod.d-1", "relay", "{x: y}") + node("h.mod.e-1") }));
    expect(diff).toEqual({ added: ["h.mod.e-1"], changed: ["h.mod.b-1", "h.mod.d-1"], removed: ["h.mod.c-1"] });
  });

  test("the same manifests moved to another file are not a change", () => {
    const s = source();
    s.apply(desired({ "a.yaml": node("h.mod.a-1") }));
    expect(s.apply(desired({ "z.yaml": "\n\n" + node("h.mod.a-1") }))).toEqual({ added: [], changed: [], removed: [] });
  });
});
