import { describe, expect, test } from "bun:test";
import { join, resolve } from "node:path";
import { examples, staleFiles } from "../../../examples/generate.ts";
import { readManifestDir } from "../../../src/local/manifests.ts";
import { collectDesired } from "../../../src/local/desired.ts";
import { flowHashPrefix } from "../../../src/core/api/naming.ts";
import { decodeBase64Json } from "../../../src/core/api/bytes.ts";

const ROOT = resolve(import.meta.dir, "../../../examples");

describe("examples", () => {
  test("the committed YAML is what examples/generate.ts writes", () => {
    expect(staleFiles(ROOT)).toEqual([]);
  });

  for (const [dir, desc] of Object.entries(examples())) {
    test(`${dir}: platform-shaped manifests (names, labels, edges on sources, configurations on targets)`, () => {
      const set = collectDesired(readManifestDir(join(ROOT, dir)), new Map());
      expect(set.errors).toEqual([]);
      expect(set.projects.map((p) => p.object.metadata.name)).toEqual([desc.project]);
      expect(set.flows.map((f) => f.object.metadata.name)).toEqual([desc.flow]);
      const prefix = flowHashPrefix(desc.project, desc.flow);
      for (const { node } of set.nodes.values()) {
        expect(node.metadata.name).toMatch(new RegExp(`^${prefix}\\.${desc.module}\\.[a-z0-9-]+-[0-9a-f]{5}$`));
        expect(node.metadata.labels).toEqual({ "tinysystems.io/flow-name": desc.flow, "tinysystems.io/project-name": desc.project });
        for (const e of node.spec.edges ?? []) {
          expect(e.id).toBe(`${node.metadata.name}_${e.port}-${e.to.replace(":", "_")}`);
          const target = set.nodes.get(e.to.split(":")[0]!)!.node;
          const cfg = target.spec.ports!.find((p) => p.from === `${node.metadata.name}:${e.port}` && p.port === e.to.split(":")[1]);
          expect(cfg).toBeDefined();
          expect(decodeBase64Json(cfg!.configuration, "configuration")).toBeDefined();
        }
      }
      expect([...set.nodes.values()].reduce((n, e) => n + (e.node.spec.edges?.length ?? 0), 0)).toBe(desc.edges!.length);
    });
  }
});
