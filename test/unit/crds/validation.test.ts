/**
 * Realistic manifests against the CRDs' openAPIV3Schema, validated with Ajv as a model of the API
 * server (the real apiserver test lives in test/integration/crds.test.ts). A manifest must both
 * validate and lose no field to structural pruning.
 */
import { describe, expect, test } from "bun:test";
import { parse } from "yaml";
import { compileCrdSchema, prunedPaths, schemaOf } from "./crd-schema.ts";

/** The router node of Flow A, verbatim from components.md §6.1 (base64 values are that note's). */
const ROUTER_NODE_YAML = `
apiVersion: operator.tinysystems.io/v1alpha1
kind: TinyNode
metadata:
  name: 3f9c2e1a.tinysystems-common-module-v0.router-4be1c
  namespace: tinysystems
  labels:
    tinysystems.io/flow-name: hello-api-k3x9q
    tinysystems.io/project-name: demo
  annotations:
    tinysystems.io/component-pos-x: "540"
    tinysystems.io/component-pos-y: "150"
    tinysystems.io/node-label: "Route by method"
spec:
  module: tinysystems-common-module-v0
  component: router
  ports:
    - port: _settings
      configuration: eyJyb3V0ZXMiOlsiR0VUIiwiUE9TVCJdLCJlbmFibGVEZWZhdWx0UG9ydCI6dHJ1ZX0=
    - from: 3f9c2e1a.tinysystems-http-module-v0.http-server-9d07f:request
      port: input
      flowID: 3f9c2e1a
      configuration: eyJjb250ZXh0Ijoie3skfX0iLCJjb25kaXRpb25zIjpbeyJyb3V0ZSI6IkdFVCIsImNvbmRpdGlvbiI6Int7JC5tZXRob2QgPT0gJ0dFVCd9fSJ9LHsicm91dGUiOiJQT1NUIiwiY29uZGl0aW9uIjoie3skLm1ldGhvZCA9PSAnUE9TVCd9fSJ9XX0=
      schema: eyIkZGVmcyI6eyJDb250ZXh0Ijp7InR5cGUiOiJvYmplY3QiLCJjb25maWd1cmFibGUiOnRydWUsInBhdGgiOiIkLmNvbnRleHQiLCJwcm9wZXJ0aWVzIjp7Im1ldGhvZCI6eyJ0eXBlIjoic3RyaW5nIn0sInJlcXVlc3RVUkkiOnsidHlwZSI6InN0cmluZyJ9fX19fQ==
  edges:
    - id: 3f9c2e1a.tinysystems-common-module-v0.router-4be1c_out_get-3f9c2e1a.tinysystems-http-module-v0.http-server-9d07f_response
      port: out_get
      to: 3f9c2e1a.tinysystems-http-module-v0.http-server-9d07f:response
      flowID: 3f9c2e1a
    - id: 3f9c2e1a.tinysystems-common-module-v0.router-4be1c_out_post-3f9c2e1a.tinysystems-http-module-v0.http-server-9d07f_response
      port: out_post
      to: 3f9c2e1a.tinysystems-http-module-v0.http-server-9d07f:response
      flowID: 3f9c2e1a
    - id: 3f9c2e1a.tinysystems-common-module-v0.router-4be1c_default-3f9c2e1a.tinysystems-http-module-v0.http-server-9d07f_response
      port: default
      to: 3f9c2e1a.tinysystems-http-module-v0.http-server-9d07f:response
      flowID: 3f9c2e1a
      retryPolicy:
        maxAttempts: 1
        timeoutMs: 8000
`;

const b64 = (v: unknown) => Buffer.from(JSON.stringify(v)).toString("base64");

/** The status the module leader writes for that node after a reconcile (runtime-spec §5.1). */
function routerStatus() {
  const port = (name: string, source: boolean) => ({
    name,
    label: name,
    position: source ? 1 : 3,
    source,
    schema: b64({ type: "object" }),
    configuration: b64({}),
  });
  return {
    observedGeneration: 1,
    module: { name: "tinysystems/common-module-v0", version: "0.1.4", sdkVersion: "0.1.3" },
    component: { description: "Router", info: "Routes messages by condition", tags: ["SDK"] },
    ports: [port("_settings", false), port("default", true), port("input", false), port("out_get", true), port("out_post", true)],
    status: "OK",
    error: false,
    metadata: { "_state/hits": Buffer.from("3").toString("base64") },
    lastUpdateTime: "2026-11-29T07:20:51Z",
  };
}

function routerNode(): Record<string, any> {
  return parse(ROUTER_NODE_YAML) as Record<string, any>;
}

const validateNode = compileCrdSchema(schemaOf("tinynodes"));

describe("TinyNode manifests", () => {
  test("the components.md §6.1 router node validates", () => {
    const ok = validateNode(routerNode());
    expect(validateNode.errors ?? []).toEqual([]);
    expect(ok).toBe(true);
  });

  test("the router node loses no field to pruning", () => {
    expect(prunedPaths(schemaOf("tinynodes"), routerNode())).toEqual([]);
  });

  test("the router node with a written status validates and loses nothing", () => {
    const n = { ...routerNode(), status: routerStatus() };
    expect(validateNode(n)).toBe(true);
    expect(prunedPaths(schemaOf("tinynodes"), n)).toEqual([]);
  });

  test("a retry policy with every field validates and loses nothing", () => {
    const n = routerNode();
    n.spec.edges[0].retryPolicy = {
      maxAttempts: 10,
      initialDelayMs: 250,
      backoffCoefficient: "1.5",
      maxDelayMs: 4000,
      nonRetryableErrorCodes: ["quota_exceeded", "validation"],
      timeoutMs: 30000,
    };
    expect(validateNode(n)).toBe(true);
    expect(prunedPaths(schemaOf("tinynodes"), n)).toEqual([]);
  });

  test("maxAttempts 11 is rejected", () => {
    const n = routerNode();
    n.spec.edges[2].retryPolicy.maxAttempts = 11;
    expect(validateNode(n)).toBe(false);
    expect(validateNode.errors?.[0]?.instancePath).toBe("/spec/edges/2/retryPolicy/maxAttempts");
  });

  test("maxAttempts 0 is rejected", () => {
    const n = routerNode();
    n.spec.edges[2].retryPolicy.maxAttempts = 0;
    expect(validateNode(n)).toBe(false);
  });

  test("a retry policy without maxAttempts gets the default 1", () => {
    const validate = compileCrdSchema(schemaOf("tinynodes"), { useDefaults: true });
    const n = routerNode();
    n.spec.edges[2].retryPolicy = { timeoutMs: 8000 };
    expect(validate(n)).toBe(true);
    expect(n.spec.edges[2].retryPolicy).toEqual({ timeoutMs: 8000, maxAttempts: 1 });
  });

  test("a node without spec.module is rejected", () => {
    const n = routerNode();
    delete n.spec.module;
    expect(validateNode(n)).toBe(false);
    expect(validateNode.errors?.[0]?.params).toEqual({ missingProperty: "module" });
  });

  test("an edge without flowID is rejected", () => {
    const n = routerNode();
    delete n.spec.edges[0].flowID;
    expect(validateNode(n)).toBe(false);
  });

  test("a configuration that is not base64 is rejected", () => {
    const n = routerNode();
    n.spec.ports[0].configuration = "not base64 !!";
    expect(validateNode(n)).toBe(false);
    expect(validateNode.errors?.[0]?.instancePath).toBe("/spec/ports/0/configuration");
  });

  test("a status port without schema is rejected", () => {
    const status = routerStatus();
    delete (status.ports[0] as Partial<(typeof status.ports)[0]>).schema;
    expect(validateNode({ ...routerNode(), status })).toBe(false);
  });

  test("a status without module is rejected", () => {
    const { module: _m, ...status } = routerStatus();
    expect(validateNode({ ...routerNode(), status })).toBe(false);
  });

  test("an unknown spec field would be pruned", () => {
    const n = routerNode();
    n.spec.module_version = "1.0.0";
    expect(prunedPaths(schemaOf("tinynodes"), n)).toEqual(["spec.module_version"]);
  });
});

describe("other kinds", () => {
  test("a TinyModule with its leader-written status validates and loses nothing", () => {
    const m = {
      apiVersion: "operator.tinysystems.io/v1alpha1",
      kind: "TinyModule",
      metadata: { name: "tinyhost", namespace: "tinysystems" },
      spec: { image: "tinyhost:0.1.0" },
      status: {
        addr: "tinyhost-manager-service:8483",
        name: "tinyhost",
        version: "0.1.0",
        sdkVersion: "0.1.0",
        components: [
          {
            name: "router",
            description: "Router",
            info: "Routes messages",
            tags: ["SDK"],
            ports: [{ name: "input", label: "Input", source: false, position: 3, schema: b64({ type: "object" }) }],
            examples: ["route GET to out_get"],
          },
        ],
      },
    };
    const validate = compileCrdSchema(schemaOf("tinymodules"));
    expect(validate(m)).toBe(true);
    expect(prunedPaths(schemaOf("tinymodules"), m)).toEqual([]);
  });

  test("a TinyModule status without components is rejected", () => {
    const validate = compileCrdSchema(schemaOf("tinymodules"));
    expect(validate({ metadata: {}, status: { addr: "a:1", name: "x", version: "1" } })).toBe(false);
  });

  test("a TinyWidgetPage with port and content widgets validates and loses nothing", () => {
    const p = {
      metadata: { generateName: "main-", annotations: { "tinysystems.io/page-name": "Main", "tinysystems.io/page-sort-idx": "0" } },
      spec: {
        widgets: [
          {
            port: "3f9c2e1a.tinysystems-common-module-v0.router-4be1c:_control",
            name: "Control",
            schemaPatch: b64([]),
            gridX: 0,
            gridY: 0,
            gridW: 6,
            gridH: 4,
          },
          { name: "Notes", schema: b64({ type: "string" }), data: b64("hello"), gridX: 6, gridY: 0, gridW: 6, gridH: 4 },
        ],
      },
    };
    expect(compileCrdSchema(schemaOf("tinywidgetpages"))(p)).toBe(true);
    expect(prunedPaths(schemaOf("tinywidgetpages"), p)).toEqual([]);
  });

  test("a TinyScenario validates, and one without port is rejected", () => {
    const validate = compileCrdSchema(schemaOf("tinyscenarios"));
    expect(validate({ metadata: {}, spec: { ports: [{ port: "a.b.c-1:in", data: b64({ n: 1 }) }] } })).toBe(true);
    expect(validate({ metadata: {}, spec: { ports: [{ data: b64({ n: 1 }) }] } })).toBe(false);
  });

  test("TinyFlow spec fields are pruned, TinyProject description is kept", () => {
    expect(prunedPaths(schemaOf("tinyflows"), { metadata: {}, spec: { anything: 1 } })).toEqual(["spec.anything"]);
    expect(prunedPaths(schemaOf("tinyprojects"), { metadata: {}, spec: { description: "# Demo" } })).toEqual([]);
  });

  test("a TinyComponent without runtime validates and gets runtime js", () => {
    const validate = compileCrdSchema(schemaOf("tinycomponents"), { useDefaults: true });
    const c: Record<string, any> = {
      metadata: { name: "summarise-pods" },
      spec: {
        component: "summarise_pods",
        script: "export default (i) => i",
        input: JSON.stringify({ type: "object" }),
        output: JSON.stringify({ type: "object" }),
      },
    };
    expect(validate(c)).toBe(true);
    expect(c.spec.runtime).toBe("js");
  });

  test("a TinyComponent without script is rejected", () => {
    const validate = compileCrdSchema(schemaOf("tinycomponents"));
    expect(validate({ metadata: {}, spec: { component: "x", input: "{}", output: "{}" } })).toBe(false);
  });
});
