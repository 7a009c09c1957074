/**
 * `tinyhost run` with the standard OTLP variables exports a span per TinyNode reconcile, carrying
 * the module as service.name, to an in-process OTLP/HTTP receiver.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { base64Json, sanitizeResourceName } from "../../src/core/api/index.ts";
import { createKubeClient } from "../../src/k8s/client/index.ts";
import { tinyNodes } from "../../src/k8s/controllers/index.ts";
import { getControlPlane } from "../support/control-plane.ts";
import { startModuleProcess, type ModuleProcess } from "../support/module-process.ts";
import { waitUntil } from "../support/process.ts";

interface ExportedSpan {
  name: string;
  service: string;
}

const spans: ExportedSpan[] = [];
const receiver = Bun.serve({
  hostname: "127.0.0.1",
  port: 0,
  async fetch(req) {
    if (new URL(req.url).pathname !== "/v1/traces") return new Response("not found", { status: 404 });
    const body = (await req.json()) as {
      resourceSpans?: { resource?: { attributes?: { key: string; value: { stringValue?: string } }[] }; scopeSpans?: { spans?: { name: string }[] }[] }[];
    };
    for (const rs of body.resourceSpans ?? []) {
      const service = rs.resource?.attributes?.find((a) => a.key === "service.name")?.value.stringValue ?? "";
      for (const ss of rs.scopeSpans ?? []) for (const s of ss.spans ?? []) spans.push({ name: s.name, service });
    }
    return Response.json({});
  },
});

let proc: ModuleProcess | undefined;
afterAll(async () => {
  await proc?.stop(9000);
  receiver.stop(true);
});

const MODULE = "tracing-module";

beforeAll(() => {
  spans.length = 0;
});

test("a TinyNode reconcile is exported as a span named after the node, with the module as service.name", async () => {
  const cp = await getControlPlane();
  const ns = await cp.newNamespace("op-tracing");
  const kube = await createKubeClient({ kubeconfig: cp.tokenKubeconfig, env: {} });
  const dir = mkdtempSync(join(process.env.TINYHOST_TEST_TMP ?? tmpdir(), "op-tracing-"));
  proc = await startModuleProcess({
    hostname: "tracing-pod-0",
    name: MODULE,
    namespace: ns,
    kubeconfig: cp.tokenKubeconfig,
    logDir: dir,
    env: {
      RECORDER_FILE: join(dir, "recorder.jsonl"),
      OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${receiver.port}`,
    },
  });
  const name = `a1b2c3d4.${sanitizeResourceName(MODULE)}.recorder-t1`;
  await kube.create(tinyNodes, {
    metadata: { name, namespace: ns },
    spec: { module: MODULE, component: "recorder", ports: [{ port: "_settings", configuration: base64Json({ label: "x" }) }] },
  });
  await waitUntil("the reconcile span of the node", async () => spans.some((s) => s.name === `reconcile TinyNode ${ns}/${name}`), 20_000, 200);
  const span = spans.find((s) => s.name === `reconcile TinyNode ${ns}/${name}`)!;
  expect(span.service).toBe(MODULE);
});
