import { wireFlowA } from "../../support/flow-a.ts";
import { afterEach, describe, expect, test } from "bun:test";
import {
  defineComponent,
  fail,
  ok,
  target,
  testComponent,
  Type,
  type ComponentHarness,
  type ExposePortRequest,
  type ModuleClient,
  type Result,
  type TinyNode,
} from "tinyhost";
import { Scheduler } from "../../../src/runtime/scheduler/index.ts";
import { EdgeTimeoutError } from "../../../src/runtime/runner/errors.ts";
import httpServer, { METADATA_PORT, METADATA_START } from "../../../components/http_server.ts";
import router from "../../../components/router.ts";

process.env.TINYHOST_LOG_LEVEL ??= "silent";

const START = { context: { env: "dev" }, autoHostName: true, readTimeout: 60, writeTimeout: 10 };
const b64 = (v: unknown) => Buffer.from(JSON.stringify(v)).toString("base64");
const unb64 = (s: string) => JSON.parse(Buffer.from(s, "base64").toString("utf8"));

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!();
});

interface PortStatus {
  name: string;
  label: string;
  position: number;
  source: boolean;
  schema: string;
  configuration: string;
}

function portOf(ports: PortStatus[] | undefined, name: string): PortStatus | undefined {
  return ports?.find((p) => p.name === name);
}

/** Polls `read` until it returns a value that is not undefined (bounded). */
async function until<T>(read: () => T | undefined, what: string, ms = 3000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = read();
    if (v !== undefined) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await Bun.sleep(10);
  }
}

/** The listen address the `_control` port shows once the server runs. */
function listenAddr(status: () => { ports?: PortStatus[] }): Promise<string[]> {
  return until(() => {
    const c = portOf(status().ports, "_control");
    const v = c && (unb64(c.configuration) as { status: string; listenAddr: string[] | null });
    return v && v.status === "Running" && v.listenAddr && v.listenAddr.length > 0 ? v.listenAddr : undefined;
  }, "server running");
}

async function harness(settings?: unknown): Promise<{ h: ComponentHarness; base: string }> {
  const h = await testComponent(httpServer, settings === undefined ? {} : { settings });
  cleanups.push(() => h.stop());
  void h.send("start", START);
  const [addr] = await listenAddr(() => h.status() as { ports?: PortStatus[] });
  return { h, base: `http://127.0.0.1:${new URL(addr!).port}` };
}

describe("http_server and http_request listings (Go http-module server.go, client.go GetInfo)", () => {
  test("http_server is listed as Go's components-info lists it: tags HTTP, Server and the derived sync_rpc, Go's info", async () => {
    const { platformListing } = await import("../../../src/cli/platform-listing.ts");
    const listed = platformListing(httpServer);
    expect(listed.tags).toEqual(["HTTP", "Server", "sync_rpc"]);
    expect(httpServer.info.tags).toEqual(["HTTP", "Server"]); // TinyModule status: the authored tags, as Go's controller
    expect(listed.info).toStartWith(
      "HTTP request handler. The server does NOT run until a message arrives on the Start port — wire a signal (or cron) into Start",
    );
    expect(listed.info).toEndWith("(context cancellation alone will NOT stop it — the runtime is distributed and durable).");
  });

  test("http_request keeps tags HTTP, Client (no sync_rpc) and Go's info", async () => {
    const { platformListing } = await import("../../../src/cli/platform-listing.ts");
    const client = (await import("../../../components/http_request.ts")).default;
    expect(platformListing(client).tags).toEqual(["HTTP", "Client"]);
    expect(client.info.info).toContain(
      "Auth fields set the Authorization header (bearer wins over basic; an explicit Authorization header overrides both). Blocks until HTTP response received.",
    );
  });
});

describe("http_server ports", () => {
  test("declares the Go ports with labels, positions and directions", async () => {
    const h = await testComponent(httpServer);
    cleanups.push(() => h.stop());
    const ports = h.status().ports as PortStatus[];
    expect(ports.map((p) => [p.name, p.label, p.position, p.source])).toEqual([
      ["_control", "Dashboard", 0, true],
      ["_settings", "Settings", 0, false],
      ["request", "Request", 1, true],
      ["response", "Response", 1, false],
      ["start", "Start", 3, false],
    ]);
  });

  test("start defaults to autoHostName true, readTimeout 60, writeTimeout 10", async () => {
    const h = await testComponent(httpServer);
    cleanups.push(() => h.stop());
    expect(unb64(portOf(h.status().ports as PortStatus[], "start")!.configuration)).toEqual({ autoHostName: true, readTimeout: 60, writeTimeout: 10 });
    expect(unb64(portOf(h.status().ports as PortStatus[], "response")!.configuration)).toEqual({ statusCode: 200, contentType: "", body: "" });
    expect(unb64(portOf(h.status().ports as PortStatus[], "_control")!.configuration)).toEqual({ status: "Not running", listenAddr: null });
  });

  test("response publishes statusCode 100–599 default 200 and the content type select", async () => {
    const h = await testComponent(httpServer);
    cleanups.push(() => h.stop());
    const schema = unb64(portOf(h.status().ports as PortStatus[], "response")!.schema) as {
      $defs: Record<string, { properties?: Record<string, Record<string, unknown>>; required?: string[] }>;
    };
    const root = Object.values(schema.$defs).find((d) => d.properties?.statusCode)!;
    expect(root.required).toEqual(["statusCode", "contentType"]);
    expect(root.properties!.statusCode).toMatchObject({ type: "integer", minimum: 100, maximum: 599, default: 200 });
    expect(root.properties!.contentType!.enum).toEqual([
      "application/json",
      "application/xml",
      "text/xml",
      "application/x-www-form-urlencoded",
      "multipart/form-data",
      "text/html",
      "text/plain",
    ]);
  });

  test("stop and status ports appear only when enabled in settings", async () => {
    const h = await testComponent(httpServer, { settings: { enableStopPort: true, enableStatusPort: true, maxBodySize: 0 } });
    cleanups.push(() => h.stop());
    const ports = h.status().ports as PortStatus[];
    expect(portOf(ports, "stop")).toMatchObject({ label: "Stop", position: 3, source: false });
    expect(portOf(ports, "status")).toMatchObject({ label: "Status", position: 2, source: true });
  });
});

describe("http_server request path", () => {
  test("a GET is emitted as a Go request and answered with the downstream response", async () => {
    const { h, base } = await harness();
    h.respond("request", () => ok({ statusCode: 201, contentType: "application/json", headers: [{ key: "X-Trace", value: "t1" }], body: '{"hi":1}' }));
    const res = await fetch(`${base}/hooks/github/?a=1&a=2&b=x+y`, { headers: { "X-Zeta": "z", Accept: "text/plain" } });
    expect(res.status).toBe(201);
    expect(res.headers.get("content-type")).toBe("application/json");
    expect(res.headers.get("x-trace")).toBe("t1");
    expect(await res.text()).toBe('{"hi":1}');
    const req = h.emitted.find((e) => e.port === "request")!.data as Record<string, unknown>;
    expect(req).toMatchObject({
      context: { env: "dev" },
      path: "/hooks/github/",
      pathSegments: ["hooks", "github"],
      requestURI: "/hooks/github/?a=1&a=2&b=x+y",
      requestParams: { a: ["1", "2"], b: ["x y"] },
      method: "GET",
      realIP: "127.0.0.1",
      body: "",
      scheme: "http",
    });
    const keys = (req.headers as Array<{ key: string }>).map((x) => x.key);
    expect(keys).toEqual([...keys].sort());
    expect(keys).toContain("X-Zeta");
    expect(keys).not.toContain("Host");
    expect(Object.keys(req)).toEqual([
      "context",
      "path",
      "pathSegments",
      "requestURI",
      "requestParams",
      "host",
      "method",
      "realIP",
      "headers",
      "body",
      "scheme",
      "podName",
    ]);
  });

  test("a HEAD is emitted with method HEAD and answered with the response's status and headers, without its body", async () => {
    const { h, base } = await harness();
    h.respond("request", () => ok({ statusCode: 202, contentType: "application/json", headers: [{ key: "X-Trace", value: "t2" }], body: '{"hi":1}' }));
    const res = await fetch(`${base}/x`, { method: "HEAD" });
    expect(res.status).toBe(202);
    expect(res.headers.get("content-type")).toBe("application/json");
    expect(res.headers.get("x-trace")).toBe("t2");
    expect(await res.text()).toBe("");
    expect((h.emitted.find((e) => e.port === "request")!.data as { method: string }).method).toBe("HEAD");
  });

  test("a response object with an out-of-range statusCode gives 500 naming the field", async () => {
    const { h, base } = await harness();
    h.respond("request", () => ok({ statusCode: 42, contentType: "text/plain", body: "x" }));
    const res = await fetch(`${base}/`);
    expect(res.status).toBe(500);
    expect(await res.text()).toBe("invalid response: statusCode must be an integer 100–599, got 42");
  });

  test("a chain that returns nothing gives 500 saying no response arrived", async () => {
    const { h, base } = await harness();
    h.respond("request", () => ok(undefined));
    const res = await fetch(`${base}/`);
    expect(res.status).toBe(500);
    expect(await res.text()).toContain("no response");
  });

  test("a chain error gives 500 with the error text", async () => {
    const { h, base } = await harness();
    h.respond("request", () => fail(new Error("database is down")));
    const res = await fetch(`${base}/`);
    expect(res.status).toBe(500);
    expect(await res.text()).toBe("database is down");
  });

  test("an edge timeout in the chain gives 504", async () => {
    const { h, base } = await harness();
    h.respond("request", () => fail(new EdgeTimeoutError("e1", "x.m.y-1:in", 100)));
    const res = await fetch(`${base}/`);
    expect(res.status).toBe(504);
  });

  test("a body over maxBodySize is refused with 413 and never reaches the flow", async () => {
    const { h, base } = await harness({ enableStopPort: false, enableStatusPort: false, maxBodySize: 1 });
    h.respond("request", () => ok({ statusCode: 200, contentType: "text/plain", body: "ok" }));
    const res = await fetch(`${base}/upload`, { method: "POST", body: "x".repeat(1024 * 1024 + 1) });
    expect(res.status).toBe(413);
    expect(await res.text()).toBe("request body exceeds the 1048576 byte limit (maxBodySize)");
    expect(h.emitted.filter((e) => e.port === "request")).toHaveLength(0);
    const small = await fetch(`${base}/upload`, { method: "POST", body: "x".repeat(1000) });
    expect(small.status).toBe(200);
    const exact = await fetch(`${base}/upload`, { method: "POST", body: "x".repeat(1024 * 1024) });
    expect(exact.status).toBe(200);
  });

  test("a chunked body (no Content-Length) is cut off at maxBodySize with the same 413, and one within it reaches the flow whole", async () => {
    const { h, base } = await harness({ enableStopPort: false, enableStatusPort: false, maxBodySize: 1 });
    h.respond("request", (data) => ok({ statusCode: 200, contentType: "text/plain", body: String((data as { body: string }).body.length) }));
    /** A request body streamed in 64 KiB chunks, `total` bytes in all (fetch sends it chunked). */
    const stream = (total: number) => {
      let sent = 0;
      return new ReadableStream<Uint8Array>({
        pull(c) {
          if (sent >= total) return c.close();
          const n = Math.min(65536, total - sent);
          sent += n;
          c.enqueue(new Uint8Array(n).fill(120));
        },
      });
    };
    const big = await fetch(`${base}/upload`, { method: "POST", body: stream(3 * 1024 * 1024) });
    expect(big.status).toBe(413);
    expect(await big.text()).toBe("request body exceeds the 1048576 byte limit (maxBodySize)");
    expect(h.emitted.filter((e) => e.port === "request")).toHaveLength(0);
    const fits = await fetch(`${base}/upload`, { method: "POST", body: stream(700_000) });
    expect(fits.status).toBe(200);
    expect(await fits.text()).toBe("700000");
  });

  test("raising maxBodySize while the server runs applies to the next request", async () => {
    const { h, base } = await harness({ enableStopPort: false, enableStatusPort: false, maxBodySize: 1 });
    h.respond("request", () => ok({ statusCode: 200, contentType: "text/plain", body: "ok" }));
    const body = "x".repeat(1024 * 1024 + 10);
    expect((await fetch(`${base}/upload`, { method: "POST", body })).status).toBe(413);
    await h.settings({ enableStopPort: false, enableStatusPort: false, maxBodySize: 2 });
    expect((await fetch(`${base}/upload`, { method: "POST", body })).status).toBe(200);
  });
});

describe("http_server lifecycle", () => {
  const NODE = "f1.mod.http-server-ab12c";

  function fakeClient(): ModuleClient & { exposed: ExposePortRequest[]; disclosed: number[] } {
    const exposed: ExposePortRequest[] = [];
    const disclosed: number[] = [];
    return {
      namespace: "test",
      mode: "local",
      exposed,
      disclosed,
      async exposePort(req) {
        exposed.push(req);
        return [`${req.autoHostName}-ws7.example.app`];
      },
      async disclosePort(port) {
        disclosed.push(port);
      },
    };
  }

  function node(metadata: Record<string, string>, settings = { enableStopPort: true, enableStatusPort: false, maxBodySize: 0 }): TinyNode {
    return {
      metadata: { name: NODE, namespace: "test", generation: 1 },
      spec: { module: "mod", component: "http_server", ports: [{ from: "", port: "_settings", configuration: b64(settings) }], edges: [] },
      status: { metadata },
    };
  }

  async function pod(client: ModuleClient, metadata: Record<string, string>): Promise<Scheduler> {
    const s = new Scheduler({ module: "mod", debounceMs: 5, readyTimeoutMs: 100, client });
    s.isLeader = true;
    s.install(httpServer);
    await s.update(node(metadata));
    cleanups.push(() => s.stopAll());
    return s;
  }

  const metadataOf = (s: Scheduler) => s.runner(NODE)!.node.status!.metadata!;
  const statusOf = (s: Scheduler) => () => s.readStatus(NODE) as { ports?: PortStatus[] };

  test("start exposes the bound port with the auto hostname and persists port and http-start", async () => {
    const client = fakeClient();
    const s = await pod(client, {});
    void s.handle({ edgeId: "", from: "signal", to: `${NODE}:start`, data: { ...START, hostnames: ["api.example.com"] }, depth: 0 });
    const addr = await listenAddr(statusOf(s));
    expect(addr).toEqual(["http-server-ab12c-ws7.example.app"]);
    const port = await until(() => metadataOf(s)[METADATA_PORT], "port metadata");
    expect(client.exposed).toEqual([{ autoHostName: "http-server-ab12c", hostnames: ["api.example.com"], port: Number(port) }]);
    expect(JSON.parse(metadataOf(s)[METADATA_START]!)).toEqual({
      context: { env: "dev" },
      autoHostName: true,
      hostnames: ["api.example.com"],
      readTimeout: 60,
      writeTimeout: 10,
    });
  });

  test("an exposePort failure (e.g. a conflict) shows on the _control status, with the in-cluster address", async () => {
    const client = { ...fakeClient(), exposePort: async () => Promise.reject(new Error("cannot expose port 1: host a.com path / is taken")) };
    const s = await pod(client, {});
    void s.handle({ edgeId: "", from: "signal", to: `${NODE}:start`, data: START, depth: 0 });
    const port = await until(() => metadataOf(s)[METADATA_PORT], "port metadata");
    const control = () => unb64(portOf(statusOf(s)().ports, "_control")!.configuration) as { status: string; listenAddr: string[] | null };
    await until(() => (control().status.startsWith("Running") ? true : undefined), "server running");
    expect(control()).toEqual({ status: "Running (not exposed: cannot expose port 1: host a.com path / is taken)", listenAddr: [`http://localhost:${port}`] });
  });

  test("a restarted pod re-hosts on the persisted port from metadata", async () => {
    const first = await pod(fakeClient(), {});
    void first.handle({ edgeId: "", from: "signal", to: `${NODE}:start`, data: START, depth: 0 });
    await listenAddr(statusOf(first));
    const port = await until(() => metadataOf(first)[METADATA_PORT], "port metadata");
    const saved = { ...metadataOf(first) };
    await first.stopAll();
    const down = await fetch(`http://127.0.0.1:${port}/`).then(
      () => "up",
      () => "down",
    );
    expect(down).toBe("down");

    const client = fakeClient();
    const second = await pod(client, saved); // a new process: same node, metadata from the old status
    await listenAddr(statusOf(second));
    expect(client.exposed[0]!.port).toBe(Number(port));
    const res = await fetch(`http://127.0.0.1:${port}/`);
    expect(res.status).toBe(500); // serving (no chain wired → no response)
  });

  test("the stop port clears http-start and stops the server", async () => {
    const s = await pod(fakeClient(), {});
    void s.handle({ edgeId: "", from: "signal", to: `${NODE}:start`, data: START, depth: 0 });
    await listenAddr(statusOf(s));
    const port = await until(() => metadataOf(s)[METADATA_PORT], "port metadata");
    const r = await s.handle({ edgeId: "", from: "signal", to: `${NODE}:stop`, data: {}, depth: 0 });
    expect(r.kind).toBe("empty");
    await until(() => (metadataOf(s)[METADATA_START] === undefined ? true : undefined), "http-start cleared");
    expect(
      await fetch(`http://127.0.0.1:${port}/`).then(
        () => "up",
        () => "down",
      ),
    ).toBe("down");
    const c = unb64(portOf(statusOf(s)().ports, "_control")!.configuration);
    expect(c).toEqual({ status: "Not running", listenAddr: null });
  });

  test("deleting the node on the leader stops the server and discloses the port", async () => {
    const client = fakeClient();
    const s = await pod(client, {});
    void s.handle({ edgeId: "", from: "signal", to: `${NODE}:start`, data: START, depth: 0 });
    await listenAddr(statusOf(s));
    const port = Number(await until(() => metadataOf(s)[METADATA_PORT], "port metadata"));
    await s.destroy(NODE);
    expect(client.disclosed).toEqual([port]);
    expect(
      await fetch(`http://127.0.0.1:${port}/`).then(
        () => "up",
        () => "down",
      ),
    ).toBe("down");
  });
});

/** `hang`: never answers; records when its hop signal aborts. */
const hang = defineComponent({
  info: { name: "hang", description: "Hang", info: "waits for cancellation" },
  state: () => ({ started: Promise.withResolvers<void>(), cancelled: Promise.withResolvers<string>() }),
  ports: () => [target("in", Type.Object({ method: Type.String() }), { default: { method: "" } })],
  handle(ctx) {
    ctx.self.started.resolve();
    ctx.signal.addEventListener("abort", () => ctx.self.cancelled.resolve(String((ctx.signal.reason as Error)?.message ?? ctx.signal.reason)));
    return new Promise<Result>(() => undefined);
  },
});

describe("http_server cancellation", () => {
  const M = "mod";
  const H = `f.${M}.http-server-00003`;
  const X = `f.${M}.hang-00004`;

  async function flow(
    start: object,
  ): Promise<{ s: Scheduler; base: string; hung: { started: { promise: Promise<void> }; cancelled: { promise: Promise<string> } } }> {
    const s = new Scheduler({ module: M, debounceMs: 5, readyTimeoutMs: 200 });
    s.isLeader = true;
    s.install(httpServer);
    s.install(hang);
    cleanups.push(() => s.stopAll());
    await s.update({
      metadata: { name: X },
      spec: { module: M, component: "hang", ports: [{ from: `${H}:request`, port: "in", configuration: b64({ method: "{{$.method}}" }) }] },
    });
    await s.update({
      metadata: { name: H },
      spec: { module: M, component: "http_server", edges: [{ id: "e", port: "request", to: `${X}:in` }] },
      status: { metadata: {} },
    });
    void s.handle({ edgeId: "", from: "signal", to: `${H}:start`, data: start, depth: 0 });
    const [addr] = await listenAddr(() => s.readStatus(H) as { ports?: PortStatus[] });
    return { s, base: `http://127.0.0.1:${new URL(addr!).port}`, hung: s.runner(X)!.instance.self as never };
  }

  test("a client that disconnects cancels its flow", async () => {
    const { base, hung } = await flow(START);
    const abort = new AbortController();
    const p = fetch(`${base}/slow`, { signal: abort.signal }).catch(() => "aborted");
    await hung.started.promise;
    abort.abort();
    expect(await p).toBe("aborted");
    expect(typeof (await hung.cancelled.promise)).toBe("string");
  });

  test("a flow slower than writeTimeout is cancelled and answered 504", async () => {
    const { base, hung } = await flow({ ...START, writeTimeout: 1 });
    const res = await fetch(`${base}/slow`);
    expect(res.status).toBe(504);
    expect(await res.text()).toBe("the flow did not respond within 1s (writeTimeout)");
    expect(await hung.cancelled.promise).toContain("writeTimeout");
  });
});

describe("http_server with router (Flow A)", () => {
  test("GET and POST take their routes, anything else the default, each answered by its edge's Response", async () => {
    const s = new Scheduler({ module: "mod", debounceMs: 5, readyTimeoutMs: 200 });
    s.isLeader = true;
    s.install(httpServer);
    s.install(router);
    cleanups.push(() => s.stopAll());
    const { H } = await wireFlowA(
      s,
      "mod",
      {
        get: { statusCode: 200, contentType: "application/json", body: '{"uri":"{{$.context.requestURI}}"}' },
        post: { statusCode: 201, contentType: "application/json", body: "{{$.context.body}}" },
        fallback: { statusCode: 404, contentType: "text/plain", body: "no route for {{$.context.method}} {{$.context.requestURI}}" },
      },
      { enableStopPort: true },
    );
    void s.handle({ edgeId: "", from: "signal", to: `${H}:start`, data: START, depth: 0 });
    const [base] = await listenAddr(() => s.readStatus(H) as { ports?: PortStatus[] });
    const get = await fetch(`${base}/x?y=1`);
    expect([get.status, await get.text()]).toEqual([200, '{"uri":"/x?y=1"}']);
    const post = await fetch(`${base}/x`, { method: "POST", body: '{"a":1}' });
    expect([post.status, await post.text()]).toEqual([201, '{"a":1}']);
    const del = await fetch(`${base}/x`, { method: "DELETE" });
    expect([del.status, await del.text()]).toEqual([404, "no route for DELETE /x"]);
  });
});
