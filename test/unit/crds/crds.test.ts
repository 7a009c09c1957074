/**
 * The CRD manifests in crds/: identity (group, version, scope, names, subresource), the schema
 * details that make them compatible with the Go SDK's CRDs (required lists, byte fields,
 * defaults, bounds, printer columns), and agreement with the TypeScript constants.
 * runtime-spec §8.
 */
import { describe, expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { API_VERSION, GROUP, KIND, PLURAL, RESOURCES, VERSION } from "../../../src/core/api/v1alpha1.ts";
import { at, crdPath, loadCrd, schemaOf, type SchemaNode } from "./crd-schema.ts";

const KINDS = Object.values(KIND);

describe("CRD identity", () => {
  test("there is one manifest per kind, named like the Go repo's config/crd/bases", () => {
    expect(KINDS).toHaveLength(7);
    for (const kind of KINDS) expect(existsSync(crdPath(PLURAL[kind]))).toBe(true);
  });

  test("every CRD is apiextensions.k8s.io/v1 named <plural>.operator.tinysystems.io with matching names", () => {
    for (const kind of KINDS) {
      const plural = PLURAL[kind];
      const crd = loadCrd(plural);
      expect(crd.apiVersion).toBe("apiextensions.k8s.io/v1");
      expect(crd.kind).toBe("CustomResourceDefinition");
      expect(crd.metadata.name).toBe(`${plural}.${GROUP}`);
      expect(crd.spec.group).toBe(GROUP);
      expect(crd.spec.names).toEqual({ kind, listKind: `${kind}List`, plural, singular: kind.toLowerCase() });
    }
  });

  test("every CRD is Namespaced with one served, stored v1alpha1 version that has a status subresource", () => {
    for (const kind of KINDS) {
      const crd = loadCrd(PLURAL[kind]);
      expect(crd.spec.scope).toBe("Namespaced");
      expect(crd.spec.versions).toHaveLength(1);
      const v = crd.spec.versions[0]!;
      expect(v.name).toBe(VERSION);
      expect(v.served).toBe(true);
      expect(v.storage).toBe(true);
      expect(v.subresources).toEqual({ status: {} });
    }
  });

  test("the resource descriptors agree with the manifests", () => {
    expect(API_VERSION).toBe("operator.tinysystems.io/v1alpha1");
    for (const kind of KINDS) {
      const crd = loadCrd(PLURAL[kind]);
      expect(RESOURCES[kind]).toEqual({
        group: crd.spec.group,
        version: crd.spec.versions[0]!.name,
        plural: crd.spec.names.plural,
        namespaced: crd.spec.scope === "Namespaced",
        kind: crd.spec.names.kind,
      });
    }
  });

  test("every root schema declares apiVersion, kind, metadata, spec and status objects", () => {
    for (const kind of KINDS) {
      const root = schemaOf(PLURAL[kind]);
      expect(root.type).toBe("object");
      expect(at(root, "apiVersion").type).toBe("string");
      expect(at(root, "kind").type).toBe("string");
      expect(at(root, "metadata").type).toBe("object");
      expect(at(root, "spec").type).toBe("object");
      expect(at(root, "status").type).toBe("object");
    }
  });
});

describe("TinyNode schema", () => {
  const node = schemaOf("tinynodes");

  test("spec requires module and component, and nothing else", () => {
    expect(at(node, "spec").required?.sort()).toEqual(["component", "module"]);
  });

  test("an edge requires id, port, to and flowID", () => {
    expect(at(node, "spec.edges.[]").required?.sort()).toEqual(["flowID", "id", "port", "to"]);
  });

  test("a port configuration requires only port and has from, flowID, schema, configuration", () => {
    const item = at(node, "spec.ports.[]");
    expect(item.required).toEqual(["port"]);
    expect(Object.keys(item.properties ?? {}).sort()).toEqual(["configuration", "flowID", "from", "port", "schema"]);
  });

  test("retryPolicy requires maxAttempts, bounded 1..10 with default 1", () => {
    const policy = at(node, "spec.edges.[].retryPolicy");
    expect(policy.required).toEqual(["maxAttempts"]);
    const max = at(policy, "maxAttempts");
    expect(max).toMatchObject({ type: "integer", minimum: 1, maximum: 10, default: 1 });
    expect(at(policy, "backoffCoefficient").type).toBe("string");
    for (const f of ["initialDelayMs", "maxDelayMs", "timeoutMs"]) expect(at(policy, f).type).toBe("integer");
    expect(at(policy, "nonRetryableErrorCodes.[]").type).toBe("string");
  });

  test("status requires module and component; module requires name and version; component description and info", () => {
    expect(at(node, "status").required?.sort()).toEqual(["component", "module"]);
    expect(at(node, "status.module").required?.sort()).toEqual(["name", "version"]);
    expect(Object.keys(at(node, "status.module").properties ?? {}).sort()).toEqual(["name", "sdkVersion", "version"]);
    expect(at(node, "status.component").required?.sort()).toEqual(["description", "info"]);
  });

  test("every status port requires all six fields", () => {
    expect(at(node, "status.ports.[]").required?.sort()).toEqual(["configuration", "label", "name", "position", "schema", "source"]);
  });

  test("status has observedGeneration (int64), metadata (string map), error, lastUpdateTime (date-time), status", () => {
    expect(at(node, "status.observedGeneration")).toMatchObject({ type: "integer", format: "int64" });
    expect(at(node, "status.metadata")).toMatchObject({ type: "object", additionalProperties: { type: "string" } });
    expect(at(node, "status.error").type).toBe("boolean");
    expect(at(node, "status.lastUpdateTime")).toMatchObject({ type: "string", format: "date-time" });
    expect(at(node, "status.status").type).toBe("string");
  });
});

describe("byte fields", () => {
  const BYTE_FIELDS: [string, string][] = [
    ["tinynodes", "spec.ports.[].schema"],
    ["tinynodes", "spec.ports.[].configuration"],
    ["tinynodes", "status.ports.[].schema"],
    ["tinynodes", "status.ports.[].configuration"],
    ["tinymodules", "status.components.[].ports.[].schema"],
    ["tinywidgetpages", "spec.widgets.[].schemaPatch"],
    ["tinywidgetpages", "spec.widgets.[].schema"],
    ["tinywidgetpages", "spec.widgets.[].data"],
    ["tinyscenarios", "spec.ports.[].data"],
  ];

  test("TinyComponent input and output are plain JSON strings (SDK v0.13.130), not byte fields", () => {
    for (const path of ["spec.input", "spec.output"]) {
      const field = at(schemaOf("tinycomponents"), path) as { type?: string; format?: string };
      expect({ path, type: field.type, format: field.format }).toEqual({ path, type: "string", format: undefined });
    }
  });

  test("every Go []byte field is type string, format byte", () => {
    for (const [plural, path] of BYTE_FIELDS) {
      expect({ plural, path, ...at(schemaOf(plural), path) }).toMatchObject({ plural, path, type: "string", format: "byte" });
    }
  });

  test("no other field is format byte", () => {
    const found: string[] = [];
    const walk = (plural: string, n: SchemaNode, path: string) => {
      if (n.format === "byte") found.push(`${plural}:${path}`);
      for (const [k, c] of Object.entries(n.properties ?? {})) walk(plural, c, path ? `${path}.${k}` : k);
      if (n.items) walk(plural, n.items, `${path}.[]`);
    };
    for (const kind of KINDS) walk(PLURAL[kind], schemaOf(PLURAL[kind]), "");
    expect(found.sort()).toEqual(BYTE_FIELDS.map(([p, f]) => `${p}:${f}`).sort());
  });
});

describe("other kinds", () => {
  test("TinyModule status requires addr, components, name, version; a component name, description, info; a port name, source", () => {
    const m = schemaOf("tinymodules");
    expect(at(m, "status").required?.sort()).toEqual(["addr", "components", "name", "version"]);
    expect(at(m, "status.components.[]").required?.sort()).toEqual(["description", "info", "name"]);
    expect(at(m, "status.components.[].ports.[]").required?.sort()).toEqual(["name", "source"]);
    expect(at(m, "spec.image").type).toBe("string");
  });

  test("TinyScenario ports require port", () => {
    expect(at(schemaOf("tinyscenarios"), "spec.ports.[]").required).toEqual(["port"]);
  });

  test("TinyFlow spec and status declare no fields", () => {
    const f = schemaOf("tinyflows");
    expect(at(f, "spec").properties).toBeUndefined();
    expect(at(f, "status").properties).toBeUndefined();
  });

  test("TinyProject spec has only description", () => {
    expect(Object.keys(at(schemaOf("tinyprojects"), "spec").properties ?? {})).toEqual(["description"]);
  });

  test("TinyComponent requires component, input, output, script and defaults runtime to js", () => {
    const c = schemaOf("tinycomponents");
    expect(at(c, "spec").required?.sort()).toEqual(["component", "input", "output", "script"]);
    expect(at(c, "spec.runtime")).toMatchObject({ type: "string", default: "js" });
    expect(Object.keys(at(c, "status").properties ?? {}).sort()).toEqual(["installed", "module", "observedGeneration", "reason"]);
  });

  test("TinyComponent prints Component, Runtime, Installed and Reason columns", () => {
    expect(loadCrd("tinycomponents").spec.versions[0]!.additionalPrinterColumns).toEqual([
      { jsonPath: ".spec.component", name: "Component", type: "string" },
      { jsonPath: ".spec.runtime", name: "Runtime", type: "string" },
      { jsonPath: ".status.installed", name: "Installed", type: "boolean" },
      { jsonPath: ".status.reason", name: "Reason", type: "string" },
    ]);
  });

  test("no other CRD declares printer columns (as in the Go CRDs)", () => {
    for (const kind of KINDS.filter((k) => k !== "TinyComponent")) {
      expect({ kind, cols: loadCrd(PLURAL[kind]).spec.versions[0]!.additionalPrinterColumns }).toEqual({ kind, cols: undefined });
    }
  });

  test("no schema preserves unknown fields (the Go CRDs never do)", () => {
    for (const kind of KINDS) {
      expect(JSON.stringify(schemaOf(PLURAL[kind]))).not.toContain("x-kubernetes-preserve-unknown-fields");
    }
  });
});
