import { describe, expect, test } from "bun:test";
import { parseManifestFile, yamlErrorText } from "../../../src/local/manifests.ts";
import { portExpressionProblems } from "../../../src/local/port-expressions.ts";
import { chooseModuleName } from "../../../src/local/host.ts";

const b64 = (v: unknown) => Buffer.from(JSON.stringify(v)).toString("base64");

const node = (name: string, module: string, ports = "") => `apiVersion: operator.tinysystems.io/v1alpha1
kind: TinyNode
metadata:
  name: ${name}
spec:
  module: ${module}
  component: relay
${ports}`;

describe("expressions in port configurations are checked at load", () => {
  test("a syntax error names file, line of the configuration, node, port entry, field and the error; the node still loads", () => {
    const ports = `  ports:
    - port: _settings
      configuration: ${b64({ step: 1 })}
    - from: h.m.pulse-1:out
      port: in
      configuration: ${b64({ context: { n: "{{$.n +}}" } })}
`;
    const r = parseManifestFile("relay.yaml", node("h.m.relay-1", "m", ports));
    expect(r.nodes.map((n) => n.node.metadata.name)).toEqual(["h.m.relay-1"]);
    expect(r.errors.map((e) => [e.code, e.severity, e.message])).toEqual([
      [
        "EXPRESSION_SYNTAX",
        "error",
        'relay.yaml:13: node h.m.relay-1: spec.ports[1] (port "in" from h.m.pulse-1:out): expression "{{$.n +}}": unexpected end of expression at position 5 (in field "context.n")',
      ],
    ]);
  });

  test("valid expressions, literals and empty configurations pass", () => {
    expect(
      portExpressionProblems([
        { port: "in", from: "a.m.b-1:out", configuration: b64({ x: "{{$.a + 1}}", y: "lit {{$.b}} eral", z: [1, "{{}}"] }) },
        { port: "_settings", configuration: "" },
        { port: "_settings" },
      ]),
    ).toEqual([]);
  });

  test("a node-own configuration (no from) is named by its port only", () => {
    expect(portExpressionProblems([{ port: "_settings", configuration: b64("{{(}}") }]).map((p) => p.problem)).toEqual([
      'spec.ports[0] (port "_settings"): expression "{{(}}": unexpected end of expression at position 1 (in field "$")',
    ]);
  });
});

describe("spec.module must match the module segment of the node's name", () => {
  test("a mismatch is a warning naming file, line, node, both values and the expected name; the node still loads", () => {
    const r = parseManifestFile("n.yaml", node("h.tinyhost.relay-1", "other-module"));
    expect(r.nodes).toHaveLength(1);
    expect(r.errors.map((e) => [e.code, e.severity, e.message])).toEqual([
      [
        "MODULE_MISMATCH",
        "warning",
        'n.yaml:6: node h.tinyhost.relay-1: spec.module "other-module" does not match the module segment "tinyhost" of the node\'s name (a node of module "other-module" is named <hash>.other-module.<component>-<suffix>); ownership and routing follow the name, so fix one of them',
      ],
    ]);
  });

  test("a module equal to the segment once sanitized (tinysystems/demo → tinysystems-demo) matches", () => {
    expect(parseManifestFile("n.yaml", node("h.tinysystems-demo.relay-1", "tinysystems/demo")).errors).toEqual([]);
  });

  test("without --name, the module is taken from a node whose name carries it, not from a mismatched one that sorts first", () => {
    const nodes = [
      ...parseManifestFile("a.yaml", node("h.tinyhost.relay-1", "other")).nodes,
      ...parseManifestFile("b.yaml", node("h.tinyhost.relay-2", "tinyhost")).nodes,
    ];
    expect(chooseModuleName(undefined, nodes)).toBe("tinyhost");
    expect(chooseModuleName(undefined, nodes.slice(0, 1))).toBe("other"); // nothing better known
    expect(chooseModuleName("given", nodes)).toBe("given");
  });

  test("without --name, a module none of whose components tinyhost has (a Go module of the export) is not taken over the user's, whatever the file order", () => {
    const k8s = parseManifestFile(
      "k8s.yaml",
      node("h.kubernetes-module-v0.pod-watch-1", "kubernetes-module-v0").replace("component: relay", "component: pod_watch"),
    ).nodes;
    const mine = parseManifestFile("router.yaml", node("h.tinyhost.relay-1", "tinyhost")).nodes;
    const known = (c: string) => c === "relay";
    expect(chooseModuleName(undefined, [...k8s, ...mine], known)).toBe("tinyhost");
    expect(chooseModuleName(undefined, [...k8s, ...mine])).toBe("kubernetes-module-v0"); // nothing known: file order
    expect(chooseModuleName(undefined, k8s, known)).toBe("kubernetes-module-v0"); // nothing better
  });
});

describe("yamlErrorText", () => {
  test("drops the trailing 'at line L, column C:' and quotes the offending line instead of the code frame", () => {
    const message = "Nested mappings are not allowed in compact mappings at line 2, column 4:\n\na: b: c\n   ^\n";
    expect(yamlErrorText(message, "x: 1\na: b: c\n", 2)).toBe('Nested mappings are not allowed in compact mappings: "a: b: c"');
  });

  test("an error past the last line points at the end of the file and the last line written", () => {
    expect(yamlErrorText('Missing closing "quote at line 3, column 1:\n\nk: "x\n\n^\n', 'a: 1\nk: "x\n', 3)).toBe(
      'Missing closing "quote (at the end of the file, after line 2: "k: \\"x")',
    );
  });

  test("without a line the reason alone is kept", () => {
    expect(yamlErrorText("Something odd at line 0, column 0:", "", 0)).toBe("Something odd");
  });
});
