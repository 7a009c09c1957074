/**
 * The HTTP row of the side-by-side benchmark in pods (bench/pods.ts phase `http`, issue 31 item 7):
 * a tinyhost gateway pod runs, per runtime under test, `signal → http_server` and a `transform`;
 * each HTTP request goes Traefik (by Host header) → the gateway's http_server → `relay → relay →
 * relay` of the runtime under test (over NATS) → the gateway's `transform` → the http_server's
 * `response`, whose Response travels back up the chain as the reply and becomes the HTTP answer.
 * The Go peer has no HTTP component, so the front door is the same tinyhost pod for both; the
 * chain is the runtime under test. The bench pods carry no chart labels, so ExposePort finds no
 * release: {@link gatewayExposure} writes the Service and Ingress by hand for the port the
 * http_server bound (read from its TinyNode's `status.metadata.port`).
 */
import { base64Json, type TinyNode } from "../../src/core/api/index.ts";
import { mixedFlow, type MixedNodeSpec } from "../../test/support/go-peer.ts";
import { percentile } from "./result.ts";

/** Nodes of one gateway flow, by role. */
export interface GatewayFlow {
  nodes: TinyNode[];
  /** The `signal` node (start it with `_control {send: true}`). */
  signal: string;
  /** The `http_server` node (its `status.metadata.port` is the bound port). */
  server: string;
}

/**
 * The TinyNodes of one gateway flow: `signal`, `http_server`, `transform` on module `gateway`
 * (tinyhost's compiled-in components) and three `relay`s on module `chain` (both runtimes have it:
 * test/go/peer/components.go and bench/fixtures/peer-components/relay.ts); flow prefix `prefix`
 * (8 hex). The request's path travels as `data`; the answer is 200 JSON of it.
 */
export function gatewayFlow(namespace: string, prefix: string, gateway: string, chain: string): GatewayFlow {
  const n = (module: string, component: string, id: string): MixedNodeSpec => ({ module, component, id });
  const sig = n(gateway, "signal", "s");
  const srv = n(gateway, "http_server", "h");
  const t = n(gateway, "transform", "t");
  const [a, b, c] = ["a", "b", "c"].map((id) => n(chain, "relay", id)) as [MixedNodeSpec, MixedNodeSpec, MixedNodeSpec];
  const nodes = mixedFlow(
    namespace,
    prefix,
    [sig, srv, a, b, c, t],
    [
      { from: sig, to: srv, toPort: "start", configuration: { autoHostName: true, readTimeout: 60, writeTimeout: 10 } },
      { from: srv, port: "request", to: a, configuration: { data: "{{$.path}}" } },
      { from: a, to: b },
      { from: b, to: c },
      { from: c, to: t, configuration: { context: "{{$.data}}" } },
      { from: t, to: srv, toPort: "response", configuration: { statusCode: 200, contentType: "application/json", body: "{{string($.context)}}" } },
    ],
  );
  const server = nodes[1]!;
  server.spec.ports!.push({ port: "_settings", configuration: base64Json({ enableStatusPort: false, enableStopPort: false, maxBodySize: 1 }) });
  return { nodes, signal: nodes[0]!.metadata.name!, server: server.metadata.name! };
}

/**
 * A Service (`<name>`, port 80 → `port` on the pods labelled `selector`) and an Ingress routing
 * Host `host` to it — what ExposePort would write on a chart release.
 * @returns [path, body] pairs to POST in order.
 */
export function gatewayExposure(namespace: string, name: string, selector: Record<string, string>, port: number, host: string): [string, unknown][] {
  return [
    [`/api/v1/namespaces/${namespace}/services`, { metadata: { name }, spec: { selector, ports: [{ name: "http", port: 80, targetPort: port }] } }],
    [
      `/apis/networking.k8s.io/v1/namespaces/${namespace}/ingresses`,
      {
        metadata: { name },
        spec: {
          rules: [{ host, http: { paths: [{ path: "/", pathType: "Prefix", backend: { service: { name, port: { number: 80 } } } }] } }],
        },
      },
    ],
  ];
}

/** What one HTTP drive measured. */
export interface HttpDrive {
  /** Completed requests per second. */
  rate: number;
  /** Latency percentiles, ms. */
  p50: number;
  p99: number;
}

/**
 * `n` GETs of `url` with Host `host`, `window` in flight (each a loop of sequential fetches on
 * keep-alive connections); every answer must be 200 with the body `expect`.
 * @throws Error naming the host, status and body of the first wrong answer, or the fetch error.
 */
export async function driveHttp(url: string, host: string, n: number, window: number, expect: string): Promise<HttpDrive> {
  const lat = new Float64Array(n);
  let next = 0;
  let wrong: string | undefined;
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: window }, async () => {
      while (next < n && wrong === undefined) {
        const i = next++;
        const s = performance.now();
        try {
          const res = await fetch(url, { headers: { host }, signal: AbortSignal.timeout(30_000) });
          const body = await res.text();
          lat[i] = performance.now() - s;
          if (res.status !== 200 || body !== expect) wrong ??= `HTTP ${res.status} ${body.slice(0, 200)}`;
        } catch (err) {
          wrong ??= (err as Error).message;
        }
      }
    }),
  );
  const secs = (performance.now() - t0) / 1000;
  if (wrong !== undefined) throw new Error(`GET ${url} (Host ${host}): ${wrong}`);
  const sorted = Array.from(lat).sort((a, b) => a - b);
  return { rate: n / secs, p50: percentile(sorted, 50), p99: percentile(sorted, 99) };
}
