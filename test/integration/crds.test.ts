/**
 * The CRDs of crds/ on a real apiserver: all seven Established, a realistic TinyNode round-trips
 * unchanged, the status subresource is separate from spec, and the schema rejects bad values.
 */
import { describe, expect, test } from "bun:test";
import { getControlPlane } from "../support/control-plane.ts";

const GROUP = "operator.tinysystems.io";
const PLURALS = ["tinynodes", "tinymodules", "tinyflows", "tinyprojects", "tinywidgetpages", "tinyscenarios", "tinycomponents"];
const b64 = (v: unknown) => Buffer.from(JSON.stringify(v)).toString("base64");

/** A router node of the hello-api flow, built like components.md §6.1. */
function routerNode(ns: string) {
  const name = "a1b2c3d4.tinyhost.router-x7k2p";
  return {
    apiVersion: `${GROUP}/v1alpha1`,
    kind: "TinyNode",
    metadata: {
      name,
      namespace: ns,
      labels: {
        "tinysystems.io/flow-name": "hello-flow",
        "tinysystems.io/project-name": "hello-project",
        "tinysystems.io/module-version-major": "0",
      },
      annotations: { "tinysystems.io/component-pos-x": "320", "tinysystems.io/component-pos-y": "120" },
    },
    spec: {
      module: "tinyhost",
      component: "router",
      ports: [
        {
          port: "_settings",
          configuration: b64({ routes: ["GET", "POST"], enableDefaultPort: true }),
        },
        {
          from: "a1b2c3d4.tinyhost.http_server-q9w8e:request",
          port: "input",
          flowID: "hello-flow",
          configuration: b64({
            context: "{{$}}",
            condition: "{{$.request.method}}",
          }),
          schema: b64({ $ref: "#/$defs/Input", $defs: { Input: { type: "object" } } }),
        },
      ],
      edges: [
        {
          id: "e-get",
          port: "GET",
          to: "a1b2c3d4.tinyhost.transform-m3n4b:in",
          flowID: "hello-flow",
          retryPolicy: { maxAttempts: 3, initialDelayMs: 100, backoffCoefficient: "2.0", maxDelayMs: 1000 },
        },
        { id: "e-default", port: "default", to: "a1b2c3d4.tinyhost.http_server-q9w8e:response", flowID: "hello-flow" },
      ],
    },
  };
}

describe("CRDs on a real apiserver", () => {
  test("all seven CRDs are Established and served", async () => {
    const cp = await getControlPlane();
    for (const plural of PLURALS) {
      const res = await cp.request("GET", `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${plural}.${GROUP}`);
      expect(res.status).toBe(200);
      const crd = (await res.json()) as { status: { conditions: { type: string; status: string }[] } };
      expect(crd.status.conditions.find((c) => c.type === "Established")?.status).toBe("True");
    }
    const discovery = (await (await cp.request("GET", `/apis/${GROUP}/v1alpha1`)).json()) as { resources: { name: string }[] };
    const served = discovery.resources.map((r) => r.name);
    for (const plural of PLURALS) {
      expect(served).toContain(plural);
      expect(served).toContain(`${plural}/status`);
    }
  });

  test("a realistic TinyNode is created and read back equal", async () => {
    const cp = await getControlPlane();
    const ns = await cp.newNamespace("crd-node");
    const node = routerNode(ns);
    const created = await cp.request("POST", `/apis/${GROUP}/v1alpha1/namespaces/${ns}/tinynodes`, node);
    expect(created.status).toBe(201);
    const read = (await (await cp.request("GET", `/apis/${GROUP}/v1alpha1/namespaces/${ns}/tinynodes/${node.metadata.name}`)).json()) as typeof node & {
      metadata: { generation: number };
    };
    expect(read.spec).toEqual(node.spec);
    expect(read.metadata.labels).toEqual(node.metadata.labels);
    expect(read.metadata.annotations).toEqual(node.metadata.annotations);
    expect(read.metadata.generation).toBe(1);
    const settings = read.spec.ports[0]!.configuration;
    expect(JSON.parse(Buffer.from(settings, "base64").toString())).toEqual({ routes: ["GET", "POST"], enableDefaultPort: true });
  });

  test("status is a subresource: a status write does not change spec or generation", async () => {
    const cp = await getControlPlane();
    const ns = await cp.newNamespace("crd-status");
    const node = routerNode(ns);
    await cp.request("POST", `/apis/${GROUP}/v1alpha1/namespaces/${ns}/tinynodes`, node);
    const path = `/apis/${GROUP}/v1alpha1/namespaces/${ns}/tinynodes/${node.metadata.name}`;
    const status = {
      status: {
        observedGeneration: 1,
        module: { name: "tinyhost", version: "0.1.0", sdkVersion: "0.1.0" },
        component: { description: "Router", info: "Routes messages", tags: ["SDK"] },
        ports: [{ name: "input", label: "Input", position: 3, source: false, schema: b64({}), configuration: b64({}) }],
        status: "OK",
        error: false,
        metadata: { "_state/count": Buffer.from("41").toString("base64") },
        lastUpdateTime: new Date().toISOString().replace(/\.\d+Z$/, "Z"),
      },
      spec: { module: "changed-by-status-write", component: "router" },
    };
    const res = await cp.request("PATCH", `${path}/status`, status, "application/merge-patch+json");
    expect(res.status).toBe(200);
    const read = (await (await cp.request("GET", path)).json()) as {
      spec: { module: string };
      metadata: { generation: number };
      status: { status: string; metadata: Record<string, string> };
    };
    expect(read.spec.module).toBe("tinyhost");
    expect(read.metadata.generation).toBe(1);
    expect(read.status.status).toBe("OK");
    expect(read.status.metadata["_state/count"]).toBe(Buffer.from("41").toString("base64"));
  });

  test("the schema rejects a retry policy outside 1..10 and a non-base64 configuration", async () => {
    const cp = await getControlPlane();
    const ns = await cp.newNamespace("crd-invalid");
    const bad = routerNode(ns);
    bad.spec.edges[0]!.retryPolicy!.maxAttempts = 11;
    const r1 = await cp.request("POST", `/apis/${GROUP}/v1alpha1/namespaces/${ns}/tinynodes`, bad);
    expect(r1.status).toBe(422);
    expect(await r1.text()).toContain("maxAttempts");
    const bad2 = routerNode(ns);
    bad2.spec.ports[0]!.configuration = "not base64 !!";
    const r2 = await cp.request("POST", `/apis/${GROUP}/v1alpha1/namespaces/${ns}/tinynodes`, bad2);
    expect(r2.status).toBe(422);
  });
});
