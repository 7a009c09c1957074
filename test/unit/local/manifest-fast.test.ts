/**
 * The manifest loader's fast path (src/local/manifest-fast.ts, Bun.YAML) gives exactly what the
 * `yaml` package path gives — values, document and edge lines, errors — on every manifest in the
 * repository and on hand-written edge cases, and leaves to the `yaml` package what it cannot read
 * exactly (duplicate keys, aliases, flow-style edges, multi-line quoted values).
 */
import { describe, expect, test } from "bun:test";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, resolve } from "node:path";
import { fastDocuments, hasDuplicateKey } from "../../../src/local/manifest-fast.ts";
import { parseManifestFile, parseWithYamlPackage } from "../../../src/local/manifests.ts";

const ROOT = resolve(import.meta.dir, "../../..");

function yamlFiles(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (name === "node_modules" || name.startsWith(".")) continue;
    if (statSync(p).isDirectory()) out.push(...yamlFiles(p));
    else if (/\.ya?ml$/.test(name)) out.push(p);
  }
  return out;
}

const plain = (r: ReturnType<typeof parseManifestFile>) => JSON.parse(JSON.stringify({ ...r, errors: r.errors.map((e) => ({ ...e, message: e.message })) }));

const node = (name: string, edges: string) => `apiVersion: operator.tinysystems.io/v1alpha1
kind: TinyNode
metadata:
  name: ${name}
spec:
  module: m
  component: c
${edges}`;

describe("manifest fast path", () => {
  const files = [...yamlFiles(join(ROOT, "examples")), ...yamlFiles(join(ROOT, "test/fixtures"))];
  test("the repository has manifests to compare", () => {
    expect(files.length).toBeGreaterThan(3);
  });
  for (const f of files) {
    test(`same result as the yaml package: ${f.slice(ROOT.length + 1)}`, () => {
      const text = readFileSync(f, "utf8");
      expect(plain(parseManifestFile("f.yaml", text))).toEqual(plain(parseWithYamlPackage("f.yaml", text)));
    });
  }

  const cases: Record<string, string> = {
    "edges as a block sequence at the key's indentation": node(
      "a1b2c3d4.m.c-aaaaa",
      "  edges:\n  - id: e1\n    port: out\n    to: a1b2c3d4.m.c-bbbbb:in\n  # a comment\n  - id: e2\n    port: out\n    to: a1b2c3d4.m.c-ccccc:in\n  ports: []\n",
    ),
    "edges indented, comments and blank lines between documents": `# head\n---\n\n${node("a1b2c3d4.m.c-aaaaa", "  edges:\n    - id: e1\n      port: out\n      to: a1b2c3d4.m.c-bbbbb:in\n")}---\n# a comment first\n\n${node("a1b2c3d4.m.c-bbbbb", "")}`,
    "an empty document after ---": `${node("a1b2c3d4.m.c-aaaaa", "")}---\n# only a comment\n---\n${node("a1b2c3d4.m.c-bbbbb", "")}---\n`,
    "flow-style edges": node("a1b2c3d4.m.c-aaaaa", '  edges: [{id: e1, port: out, to: "a1b2c3d4.m.c-bbbbb:in"}]\n'),
    "a block scalar with dashes": `${node("a1b2c3d4.m.c-aaaaa", "  edges:\n  - id: e1\n    port: out\n    to: a1b2c3d4.m.c-bbbbb:in\n")}  x: |\n    - id: not an edge\n    spec:\n`,
    "a duplicate key": `apiVersion: operator.tinysystems.io/v1alpha1\nkind: TinyNode\nkind: TinyNode\nmetadata:\n  name: a1b2c3d4.m.c-aaaaa\nspec:\n  module: m\n  component: c\n`,
    "a bad name": node("not-a-node-name", ""),
    "a wrong apiVersion": "apiVersion: v1\nkind: TinyNode\nmetadata:\n  name: x\n",
    "a syntax error": "apiVersion: [\n",
    "a list document": "- a\n- b\n",
    "a null document": "~\n",
    aliases: "a: &x {b: 1}\nc: *x\n",
    "a multi-line quoted value": 'apiVersion: "operator.tinysystems.io/\n  v1alpha1"\nkind: TinyFlow\nmetadata:\n  name: f\n',
  };
  for (const [what, text] of Object.entries(cases)) {
    test(`same result as the yaml package: ${what}`, () => {
      expect(plain(parseManifestFile("f.yaml", text))).toEqual(plain(parseWithYamlPackage("f.yaml", text)));
    });
  }

  test("reads the examples itself (no fallback), edge lines included", () => {
    for (const f of yamlFiles(join(ROOT, "examples/hello-api"))) {
      const docs = fastDocuments(readFileSync(f, "utf8"));
      expect(docs).toBeDefined();
      for (const d of docs!) {
        const edges = ((d.raw.spec as { edges?: unknown[] } | undefined)?.edges ?? []).length;
        expect(d.edgeLines(edges).length).toBe(edges);
      }
    }
  });

  test("reads plain block manifests itself, with the edge lines", () => {
    const docs = fastDocuments(cases["edges as a block sequence at the key's indentation"]!);
    expect(docs?.length).toBe(1);
    expect(docs![0]!.line).toBe(1);
    expect(docs![0]!.edgeLines(2)).toEqual([9, 13]);
  });

  test("leaves duplicate keys, aliases and multi-line quoted values to the yaml package", () => {
    expect(fastDocuments(cases["a duplicate key"]!)).toBeUndefined();
    expect(fastDocuments(cases.aliases!)).toBeUndefined();
    expect(fastDocuments(cases["a multi-line quoted value"]!)).toBeUndefined();
    expect(hasDuplicateKey(["a:", "  - b: 1", "    c: 2", "  - b: 3", "d: 4"])).toBe(false);
    expect(hasDuplicateKey(["a:", "  - b: 1", "    b: 2"])).toBe(true);
    expect(hasDuplicateKey(["a:", "  x: 1", "b:", "  x: 2", "---", "a: 1"])).toBe(false);
  });
});
