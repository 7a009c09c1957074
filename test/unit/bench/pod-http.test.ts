import { afterAll, describe, expect, test } from "bun:test";
import { driveHttp, gatewayExposure, gatewayFlow } from "../../../bench/lib/pod-http.ts";

const decode = (b64: string | undefined) => JSON.parse(Buffer.from(b64 ?? "", "base64").toString("utf8"));

describe("gatewayFlow (bench/lib/pod-http.ts)", () => {
  const f = gatewayFlow("ns", "e0005000", "gw-http-500", "go-hc-500");
  const byName = new Map(f.nodes.map((n) => [n.metadata.name!, n]));
  const edges = f.nodes.flatMap((n) => (n.spec.edges ?? []).map((e) => `${n.metadata.name}:${e.port} → ${e.to}`));

  test("front door and transform on the gateway module, three relays on the chain's", () => {
    expect(f.nodes.map((n) => `${n.spec.module}/${n.spec.component}`).sort()).toEqual(
      ["gw-http-500/signal", "gw-http-500/http_server", "gw-http-500/transform", "go-hc-500/relay", "go-hc-500/relay", "go-hc-500/relay"].sort(),
    );
    expect(f.signal).toBe("e0005000.gw-http-500.signal-s");
    expect(f.server).toBe("e0005000.gw-http-500.http-server-h");
  });

  test("request → relay → relay → relay → transform → response, started by the signal", () => {
    expect(edges).toEqual([
      "e0005000.gw-http-500.signal-s:out → e0005000.gw-http-500.http-server-h:start",
      "e0005000.gw-http-500.http-server-h:request → e0005000.go-hc-500.relay-a:in",
      "e0005000.go-hc-500.relay-a:out → e0005000.go-hc-500.relay-b:in",
      "e0005000.go-hc-500.relay-b:out → e0005000.go-hc-500.relay-c:in",
      "e0005000.go-hc-500.relay-c:out → e0005000.gw-http-500.transform-t:in",
      "e0005000.gw-http-500.transform-t:out → e0005000.gw-http-500.http-server-h:response",
    ]);
    const ports = byName.get(f.server)!.spec.ports!;
    expect(decode(ports.find((p) => p.port === "response")?.configuration)).toEqual({
      statusCode: 200,
      contentType: "application/json",
      body: "{{string($.context)}}",
    });
    expect(decode(ports.find((p) => p.port === "_settings")?.configuration)).toEqual({ enableStatusPort: false, enableStopPort: false, maxBodySize: 1 });
    expect(decode(byName.get("e0005000.go-hc-500.relay-a")!.spec.ports![0]!.configuration)).toEqual({ data: "{{$.path}}" });
  });
});

describe("gatewayExposure (bench/lib/pod-http.ts)", () => {
  test("a Service 80 → the bound port on the selected pods, and an Ingress for the host", () => {
    const [[svcPath, svc], [ingPath, ing]] = gatewayExposure("ns", "gw-go", { role: "gw" }, 37103, "go.gw.test") as [[string, any], [string, any]];
    expect(svcPath).toBe("/api/v1/namespaces/ns/services");
    expect(svc.spec).toEqual({ selector: { role: "gw" }, ports: [{ name: "http", port: 80, targetPort: 37103 }] });
    expect(ingPath).toBe("/apis/networking.k8s.io/v1/namespaces/ns/ingresses");
    expect(ing.spec.rules[0].host).toBe("go.gw.test");
    expect(ing.spec.rules[0].http.paths[0].backend.service).toEqual({ name: "gw-go", port: { number: 80 } });
  });
});

describe("driveHttp (bench/lib/pod-http.ts)", () => {
  let hits = 0;
  const hosts = new Set<string>();
  const server = Bun.serve({
    port: 0,
    fetch(req) {
      hits++;
      hosts.add(req.headers.get("host") ?? "");
      return new Response(new URL(req.url).searchParams.get("wrong") ? "nope" : "/bench");
    },
  });
  afterAll(() => server.stop(true));

  test("sends exactly n requests with the Host header and reports a rate and ordered percentiles", async () => {
    const d = await driveHttp(`http://127.0.0.1:${server.port}/bench`, "x.gw.test", 50, 8, "/bench");
    expect(hits).toBe(50);
    expect([...hosts]).toEqual(["x.gw.test"]);
    expect(d.rate).toBeGreaterThan(0);
    expect(d.p99).toBeGreaterThanOrEqual(d.p50);
  });

  test("a wrong body fails the drive, naming the host and what came back", async () => {
    await expect(driveHttp(`http://127.0.0.1:${server.port}/bench?wrong=1`, "x.gw.test", 5, 2, "/bench")).rejects.toThrow("(Host x.gw.test): HTTP 200 nope");
  });
});
