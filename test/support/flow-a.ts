/**
 * Flow A of components.md §5 (http_server → router → back to http_server's response port) wired
 * into an in-process Scheduler from TinyNode-like objects: base64 port configurations with
 * `{{expressions}}`, edges on the source nodes. Shared by the http_server unit test and
 * bench/http.ts so both exercise the same flow.
 */
import type { Scheduler } from "../../src/runtime/scheduler/index.ts";

const b64 = (v: unknown) => Buffer.from(JSON.stringify(v)).toString("base64");

/** Response configuration (statusCode, contentType, body with expressions) per router branch. */
export interface FlowAResponses {
  get: { statusCode: number; contentType: string; body: string };
  post: { statusCode: number; contentType: string; body: string };
  fallback: { statusCode: number; contentType: string; body: string };
}

/**
 * Creates the router and http_server nodes of Flow A (components must already be installed).
 * @returns the node names: `H` (http_server) and `R` (router).
 */
export async function wireFlowA(
  s: Scheduler,
  module: string,
  responses: FlowAResponses,
  settings: { enableStopPort?: boolean; maxBodySize?: number } = {},
): Promise<{ H: string; R: string }> {
  const H = `f.${module}.http-server-00001`;
  const R = `f.${module}.router-00002`;
  await s.update({
    metadata: { name: R },
    spec: {
      module,
      component: "router",
      ports: [
        { port: "_settings", configuration: b64({ routes: ["GET", "POST"], enableDefaultPort: true }) },
        {
          from: `${H}:request`,
          port: "input",
          configuration: b64({
            context: "{{$}}",
            conditions: [
              { route: "GET", condition: "{{$.method == 'GET'}}" },
              { route: "POST", condition: "{{$.method == 'POST'}}" },
            ],
          }),
        },
      ],
      edges: ["out_get", "out_post", "default"].map((p) => ({ id: `${R}_${p}`, port: p, to: `${H}:response` })),
    },
  });
  await s.update({
    metadata: { name: H },
    spec: {
      module,
      component: "http_server",
      ports: [
        {
          port: "_settings",
          configuration: b64({ enableStopPort: settings.enableStopPort ?? false, enableStatusPort: false, maxBodySize: settings.maxBodySize ?? 1 }),
        },
        { from: `${R}:out_get`, port: "response", configuration: b64(responses.get) },
        { from: `${R}:out_post`, port: "response", configuration: b64(responses.post) },
        { from: `${R}:default`, port: "response", configuration: b64(responses.fallback) },
      ],
      edges: [{ id: `${H}_request`, port: "request", to: `${R}:input` }],
    },
    status: { metadata: {} },
  });
  return { H, R };
}
