import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { isRetryable, ok, testComponent } from "tinyhost";
import httpRequest from "../../../components/http_request.ts";

process.env.TINYHOST_LOG_LEVEL ??= "silent";

const unb64 = (s: string) => JSON.parse(Buffer.from(s, "base64").toString("utf8"));

/** Local target server: echoes what it received, or misbehaves on purpose by path. */
let server: ReturnType<typeof Bun.serve>;
let base = "";
beforeAll(() => {
  server = Bun.serve({
    port: 0,
    async fetch(req) {
      const url = new URL(req.url);
      if (url.pathname === "/slow") {
        await Bun.sleep(3000);
        return new Response("late");
      }
      if (url.pathname === "/big") return new Response("x".repeat(5000));
      if (url.pathname === "/teapot") return new Response("short and stout", { status: 418 });
      if (url.pathname === "/busy") return new Response("try later", { status: 503 });
      const echo = {
        method: req.method,
        auth: req.headers.get("authorization"),
        type: req.headers.get("content-type"),
        custom: req.headers.get("x-custom"),
        body: await req.text(),
      };
      return new Response(JSON.stringify(echo), { status: 201, headers: { "x-reply": "r1", "content-type": "application/json" } });
    },
  });
  base = `http://127.0.0.1:${server.port}`;
});
afterAll(() => void server.stop(true));

const request = (over: Record<string, unknown>) => ({
  context: { id: 7 },
  method: "GET",
  timeout: 5,
  url: `${base}/echo`,
  contentType: "text/plain",
  headers: [],
  body: "",
  ...over,
});

describe("http_request ports", () => {
  test("declares request (left), response (right), _settings; error (bottom) only with enableErrorPort", async () => {
    const plain = await testComponent(httpRequest);
    expect(plain.status().ports!.map((p) => [p.name, p.label, p.position, p.source])).toEqual([
      ["_settings", "Settings", 0, false],
      ["request", "Request", 3, false],
      ["response", "Response", 1, true],
    ]);
    const withError = await testComponent(httpRequest, { settings: { enableErrorPort: true, maxResponseBytes: 1000 } });
    expect(withError.status().ports!.find((p) => p.name === "error")).toMatchObject({ label: "Error", position: 2, source: true });
  });

  test("request defaults to GET, 10 s, application/json; settings default to a 10 MiB cap", async () => {
    const h = await testComponent(httpRequest);
    const ports = h.status().ports!;
    expect(unb64(ports.find((p) => p.name === "request")!.configuration)).toEqual({
      method: "GET",
      timeout: 10,
      url: "",
      contentType: "application/json",
      body: "",
    });
    expect(unb64(ports.find((p) => p.name === "_settings")!.configuration)).toEqual({ enableErrorPort: false, maxResponseBytes: 10485760 });
    const schema = unb64(ports.find((p) => p.name === "request")!.schema) as {
      $defs: Record<string, { required?: string[]; properties?: Record<string, Record<string, unknown>> }>;
    };
    const root = Object.values(schema.$defs).find((d) => d.properties?.method)!;
    expect(root.required).toEqual(["method", "timeout", "url", "contentType"]);
    expect(root.properties!.method!.enum).toEqual(["GET", "POST", "PATCH", "PUT", "DELETE"]);
  });
});

describe("http_request exchange", () => {
  test("a successful call emits context and the response (status, headers, body) and returns the downstream result", async () => {
    const h = await testComponent(httpRequest);
    h.respond("response", () => ok("handled"));
    const r = await h.send(
      "request",
      request({ method: "POST", body: "hello", bearerToken: "tok", basicAuthUser: "u", headers: [{ key: "X-Custom", value: "c1" }] }),
    );
    expect(r).toEqual({ kind: "ok", value: "handled" });
    const out = h.emitted[0]!.data as {
      context: unknown;
      response: { status: string; statusCode: number; headers: Array<{ key: string; value: string }>; body: string };
    };
    expect(out.context).toEqual({ id: 7 });
    expect(out.response.statusCode).toBe(201);
    expect(out.response.status).toBe("201 Created");
    expect(out.response.headers).toContainEqual({ key: "X-Reply", value: "r1" });
    expect(JSON.parse(out.response.body)).toEqual({ method: "POST", auth: "Bearer tok", type: "text/plain", custom: "c1", body: "hello" });
  });

  test("basic auth is sent when no bearer token is given, and an explicit Authorization header wins", async () => {
    const h = await testComponent(httpRequest);
    await h.send("request", request({ basicAuthUser: "ada", basicAuthPassword: "pw" }));
    await h.send("request", request({ basicAuthUser: "ada", headers: [{ key: "Authorization", value: "Custom x" }] }));
    const auths = h.emitted.map((e) => JSON.parse((e.data as { response: { body: string } }).response.body).auth);
    expect(auths).toEqual([`Basic ${Buffer.from("ada:pw").toString("base64")}`, "Custom x"]);
  });

  test("a timeout goes to the error port marked retryable", async () => {
    const h = await testComponent(httpRequest, { settings: { enableErrorPort: true } });
    await h.send("request", request({ url: `${base}/slow`, timeout: 1 }));
    expect(h.emitted.map((e) => e.port)).toEqual(["error"]);
    expect(h.emitted[0]!.data).toMatchObject({
      context: { id: 7 },
      retryable: true,
      error: `Get "${base}/slow": context deadline exceeded`,
      response: { statusCode: 0 },
    });
  });

  test("a response larger than maxResponseBytes fails permanently", async () => {
    const h = await testComponent(httpRequest, { settings: { enableErrorPort: false, maxResponseBytes: 1000 } });
    const r = await h.send("request", request({ url: `${base}/big` }));
    expect(h.emitted).toEqual([]);
    expect(r.kind).toBe("fail");
    if (r.kind !== "fail") return;
    expect(r.error.message).toBe("response body exceeds the 1000 byte cap (maxResponseBytes setting)");
    expect(isRetryable(r.error)).toBe(false);
  });

  test("a 4xx fails with the body as error text, not retryable", async () => {
    const h = await testComponent(httpRequest);
    const r = await h.send("request", request({ url: `${base}/teapot` }));
    expect(r.kind === "fail" && [r.error.message, isRetryable(r.error)]).toEqual(["short and stout", false]);
  });

  test("a 5xx on the error port carries the response and retryable true", async () => {
    const h = await testComponent(httpRequest, { settings: { enableErrorPort: true } });
    h.respond("error", () => ok("caught"));
    const r = await h.send("request", request({ url: `${base}/busy` }));
    expect(r).toEqual({ kind: "ok", value: "caught" });
    expect(h.emitted[0]!.data).toMatchObject({
      error: "try later",
      retryable: true,
      response: { statusCode: 503, status: "503 Service Unavailable", body: "try later" },
    });
  });

  test("a refused connection is retryable", async () => {
    const h = await testComponent(httpRequest);
    const r = await h.send("request", request({ url: "http://127.0.0.1:1/" }));
    expect(r.kind === "fail" && isRetryable(r.error)).toBe(true);
  });

  test("a non-http URL is refused without a request", async () => {
    const h = await testComponent(httpRequest);
    const r = await h.send("request", request({ url: "file:///etc/hostname" }));
    expect(r.kind === "fail" && r.error.message).toBe('Get "file:///etc/hostname": unsupported protocol scheme "file"');
  });
});
