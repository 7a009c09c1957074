import { describe, expect, test } from "bun:test";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseManifestFile, parseWithYamlPackage, readManifestDir } from "../../../src/local/manifests.ts";
import { fastDocuments } from "../../../src/local/manifest-fast.ts";

const b64 = (v: unknown) => Buffer.from(JSON.stringify(v)).toString("base64");

const NODE = (name: string, extra = "") => `apiVersion: operator.tinysystems.io/v1alpha1
kind: TinyNode
metadata:
  name: ${name}
  labels:
    tinysystems.io/flow-name: f
spec:
  module: mod
  component: relay
  ports:
    - port: _settings
      configuration: ${b64({ step: 1 })}
${extra}`;

describe("parseManifestFile", () => {
  test("reads every TinyProject, TinyFlow and TinyNode of a multi-document file with its line", () => {
    const text = `apiVersion: operator.tinysystems.io/v1alpha1
kind: TinyProject
metadata: { name: p }
---
apiVersion: operator.tinysystems.io/v1alpha1
kind: TinyFlow
metadata: { name: f }
---
${NODE("abc.mod.relay-1")}---
${NODE("abc.mod.relay-2")}`;
    const r = parseManifestFile("flow.yaml", text);
    expect(r.errors).toEqual([]);
    expect(r.projects.map((p) => p.object.metadata.name)).toEqual(["p"]);
    expect(r.flows.map((f) => f.object.metadata.name)).toEqual(["f"]);
    expect(r.nodes.map((n) => [n.node.metadata.name, n.line])).toEqual([
      ["abc.mod.relay-1", 9],
      ["abc.mod.relay-2", 22],
    ]);
    expect(r.nodes[0]!.node.spec.ports![0]!.configuration).toBe(b64({ step: 1 }));
  });

  test("an empty document (a trailing ---, ---/--- with comments only, an explicit null) is skipped as kubectl skips it, on both parsers", () => {
    for (const text of [
      `${NODE("abc.mod.relay-1")}---\n`,
      `${NODE("abc.mod.relay-1")}---\n# nothing\n---\n`,
      `${NODE("abc.mod.relay-1")}---\n---\n`,
      `${NODE("abc.mod.relay-1")}---\n~\n`,
    ]) {
      for (const r of [parseManifestFile("f.yaml", text), parseWithYamlPackage("f.yaml", text)]) {
        expect(r.errors).toEqual([]);
        expect(r.nodes.map((n) => n.node.metadata.name)).toEqual(["abc.mod.relay-1"]);
      }
    }
    expect(fastDocuments(`${NODE("abc.mod.relay-1")}---\n`)?.length).toBe(1); // the fast path reads it itself
  });

  test("a TinyNode without metadata.name is an error naming metadata.name, not a crash", () => {
    const noName = "apiVersion: operator.tinysystems.io/v1alpha1\nkind: TinyNode\nmetadata:\n  labels: {a: b}\nspec:\n  module: mod\n  component: relay\n";
    const noMeta = "apiVersion: operator.tinysystems.io/v1alpha1\nkind: TinyNode\nspec:\n  module: mod\n  component: relay\n";
    for (const parse of [parseManifestFile, parseWithYamlPackage]) {
      const a = parse("bad.yaml", noName);
      expect(a.errors.map((e) => e.message)).toEqual(["bad.yaml:4: a TinyNode needs metadata.name (<flow-prefix>.<module>.<component>-<suffix>), got none"]);
      const b = parse("bad.yaml", noMeta);
      expect(b.errors.map((e) => e.message)).toEqual([
        "bad.yaml:1: a TinyNode needs metadata.name (<flow-prefix>.<module>.<component>-<suffix>), got no metadata",
      ]);
    }
  });

  test("a YAML syntax error names the file and the line and rejects the whole file", () => {
    const r = parseManifestFile("bad.yaml", `${NODE("abc.mod.relay-1")}---\nkind: TinyNode\nmetadata: {name: [unclosed\n`);
    expect(r.syntaxError).toBe(true);
    expect(r.nodes).toEqual([]);
    expect(r.errors[0]!.code).toBe("YAML_SYNTAX");
    expect(r.errors[0]!.message).toMatch(/^bad\.yaml:\d+:\d+: /);
    expect(r.errors[0]!.line).toBeGreaterThanOrEqual(15);
    // The yaml package's message ends in "at line L, column C:" and a code frame; ours quotes the line instead.
    expect(r.errors[0]!.message).toEndWith('(at the end of the file, after line 15: "metadata: {name: [unclosed")');
  });

  test("a YAML syntax error inside a file quotes its line and gives line and column, in one line", () => {
    const r = parseManifestFile("bad.yaml", "apiVersion: operator.tinysystems.io/v1alpha1\nkind: TinyNode\nmetadata:\n  name: a: b\n");
    expect(r.errors.map((e) => e.message)).toEqual(['bad.yaml:4:9: Nested mappings are not allowed in compact mappings: "name: a: b"']);
    expect(r.errors[0]!.column).toBe(9);
  });

  test("an alias bomb is refused like a syntax error naming the file; readManifestDir still reads the other files", () => {
    const bomb = [
      "a: &a [x, x, x, x, x, x, x, x, x]",
      "b: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a]",
      "c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b]",
      "d: [*c, *c, *c, *c, *c, *c, *c, *c, *c]",
      "",
    ].join("\n");
    const r = parseManifestFile("bomb.yaml", bomb);
    expect(r.syntaxError).toBe(true);
    expect(r.errors.map((e) => [e.code, e.message])).toEqual([["YAML_SYNTAX", "bomb.yaml:1: Excessive alias count indicates a resource exhaustion attack"]]);
    const dir = mkdtempSync(join(tmpdir(), "tinyhost-manifests-"));
    writeFileSync(join(dir, "a-bomb.yaml"), bomb);
    writeFileSync(join(dir, "b-node.yaml"), NODE("f.mod.relay-b"));
    const files = readManifestDir(dir);
    expect(files.map((f) => [f.file, f.errors.length, f.nodes.map((n) => n.node.metadata.name)])).toEqual([
      [join(dir, "a-bomb.yaml"), 1, []],
      [join(dir, "b-node.yaml"), 0, ["f.mod.relay-b"]],
    ]);
  });

  test("a node without spec.component is refused naming file, the line of its spec, node and field", () => {
    const text = NODE("abc.mod.relay-1").replace("  component: relay\n", "");
    const r = parseManifestFile("n.yaml", text);
    expect(r.nodes).toEqual([]);
    expect(r.rejectedNodes).toEqual(["abc.mod.relay-1"]);
    expect(r.errors[0]!.code).toBe("MANIFEST_INVALID");
    expect(r.errors[0]!.message).toBe("n.yaml:8: node abc.mod.relay-1: spec.component must be a non-empty string, got null");
  });

  test("invalid base64 in a port configuration names the field and its line", () => {
    const text = NODE("abc.mod.relay-1").replace(b64({ step: 1 }), "not*base64");
    const r = parseManifestFile("n.yaml", text);
    expect(r.errors).toHaveLength(1);
    expect(r.errors[0]!.line).toBe(12);
    expect(r.errors[0]!.message).toContain("node abc.mod.relay-1: spec.ports[0].configuration: not valid base64");
  });

  test("a node name with fewer than three dot-separated parts is refused", () => {
    const r = parseManifestFile("n.yaml", NODE("relay-1"));
    expect(r.errors[0]!.message).toContain('node relay-1: node name "relay-1" is invalid');
  });

  test("an edge whose to is not node:port is refused naming the edge field", () => {
    const r = parseManifestFile("n.yaml", `${NODE("abc.mod.relay-1")}  edges:\n    - id: e1\n      port: out\n      to: nowhere\n`);
    expect(r.errors[0]!.message).toContain('spec.edges[0].to must be "<node>:<port>", got "nowhere"');
    expect(r.errors[0]!.line).toBe(16);
  });

  test("an edge retryPolicy field that is not what the CRD declares is refused naming the field and value, as the apiserver would", () => {
    const edge = (policy: string) =>
      `${NODE("abc.mod.relay-1")}  edges:\n    - id: e1\n      port: out\n      to: abc.mod.relay-2:in\n      retryPolicy: ${policy}\n`;
    const cases: [string, string][] = [
      ['{timeoutMs: "30d", maxAttempts: 2}', 'spec.edges[0].retryPolicy.timeoutMs must be an integer (ms) within the 64-bit range, got "30d"'],
      ["{timeoutMs: 1e300, maxAttempts: 2}", "spec.edges[0].retryPolicy.timeoutMs must be an integer (ms) within the 64-bit range, got 1e+300"],
      ['{initialDelayMs: "NaN", maxAttempts: 2}', 'spec.edges[0].retryPolicy.initialDelayMs must be an integer (ms) within the 64-bit range, got "NaN"'],
      ["{maxDelayMs: 1.5, maxAttempts: 2}", "spec.edges[0].retryPolicy.maxDelayMs must be an integer (ms) within the 64-bit range, got 1.5"],
      ["{maxAttempts: 11}", "spec.edges[0].retryPolicy.maxAttempts must be an integer from 1 to 10, got 11"],
      ["{maxAttempts: 2, backoffCoefficient: 2}", "spec.edges[0].retryPolicy.backoffCoefficient must be a decimal string, got 2"],
      ["{maxAttempts: 2, nonRetryableErrorCodes: BAD}", 'spec.edges[0].retryPolicy.nonRetryableErrorCodes must be a list of strings, got "BAD"'],
      ["[1]", "spec.edges[0].retryPolicy must be a mapping, got [1]"],
    ];
    for (const [policy, message] of cases) {
      const r = parseManifestFile("n.yaml", edge(policy));
      expect(r.nodes).toEqual([]);
      expect(r.errors[0]?.message).toContain(message);
    }
    const ok = parseManifestFile(
      "n.yaml",
      edge('{timeoutMs: 2592000000, initialDelayMs: 0, maxDelayMs: -1, maxAttempts: 10, backoffCoefficient: "1.5", nonRetryableErrorCodes: [X]}'),
    );
    expect(ok.errors).toEqual([]);
    expect(ok.nodes).toHaveLength(1);
  });

  test("other kinds are skipped with a note, not an error", () => {
    const r = parseManifestFile("x.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: cm}\n");
    expect(r.errors).toEqual([]);
    expect(r.notes[0]).toContain("skipped ConfigMap cm");
  });

  test("a Tiny kind with the wrong apiVersion is an error", () => {
    const r = parseManifestFile("x.yaml", NODE("abc.mod.relay-1").replace("operator.tinysystems.io/v1alpha1", "v1"));
    expect(r.errors[0]!.message).toBe('x.yaml:1: node abc.mod.relay-1: apiVersion must be operator.tinysystems.io/v1alpha1, got "v1"');
  });
});

describe("readManifestDir", () => {
  test("reads *.yaml and *.yml in name order, skipping hidden and other files", () => {
    const dir = mkdtempSync(join(tmpdir(), "tinyhost-manifests-"));
    writeFileSync(join(dir, "b.yml"), NODE("abc.mod.relay-2"));
    writeFileSync(join(dir, "a.yaml"), NODE("abc.mod.relay-1"));
    writeFileSync(join(dir, ".hidden.yaml"), NODE("abc.mod.relay-3"));
    writeFileSync(join(dir, "notes.txt"), "kind: TinyNode");
    const files = readManifestDir(dir);
    expect(files.map((f) => f.file)).toEqual([join(dir, "a.yaml"), join(dir, "b.yml")]);
    expect(files.flatMap((f) => f.nodes.map((n) => n.node.metadata.name))).toEqual(["abc.mod.relay-1", "abc.mod.relay-2"]);
  });
});
