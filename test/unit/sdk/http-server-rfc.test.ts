// http_server's listener (src/sdk/http/listener.ts) against RFC 9110/9112 and Go's net/http server,
// request by request over raw sockets (test/support/raw-http.ts): methods, statuses, headers,
// Host, request smuggling vectors, keep-alive and pipelining, body limits and read timeouts, and
// clients that read the answer slowly or not at all (Go's WriteTimeout).
// Where Bun's parser decides before any handler runs, the test pins Bun's behaviour and
// docs/security.md "HTTP input" says so.
import { afterEach, describe, expect, test } from "bun:test";
import { ok } from "../../../src/core/result.ts";
import { HttpListener, type ListenerOptions } from "../../../src/sdk/http/listener.ts";
import type { ServerRequest } from "../../../src/sdk/http/server-request.ts";
import { firstBody, firstHeaders, rawExchange, serverSideState, slowReader } from "../../support/raw-http.ts";
import { waitUntil } from "../../support/process.ts";

const open: HttpListener[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((l) => l.close(false)));
});

interface Served {
  l: HttpListener;
  seen: ServerRequest[];
}

/** A listener whose flow records each request and answers `answer(request)` (default 200 "hello"). */
function serve(
  answer: (r: ServerRequest) => unknown = () => ({ statusCode: 200, contentType: "text/plain", body: "hello" }),
  options: Partial<ListenerOptions> = {},
): Served {
  const seen: ServerRequest[] = [];
  const l = new HttpListener({
    port: 0,
    readTimeout: 60,
    writeTimeout: 10,
    maxBodyBytes: () => 1024,
    context: () => null,
    onRequest: async (r) => {
      seen.push(r);
      return ok(answer(r));
    },
    ...options,
  });
  open.push(l);
  return { l, seen };
}

const GET = "GET / HTTP/1.1\r\nHost: x\r\n\r\n";
/** Resolves once `n` complete responses (framed by Content-Length or bodiless) are in `text`. */
const responses = (n: number) => (text: string) =>
  (text.match(/HTTP\/1\.1 \d{3} /g) ?? []).length >= n && /\r\n\r\n/.test(text.slice(text.lastIndexOf("HTTP/1.1 ")));

describe("methods (RFC 9110 §9)", () => {
  test("HEAD gets the GET answer's status and headers, its Content-Length and a Date, and no body (Go counts the bytes the handler wrote)", async () => {
    const { l, seen } = serve();
    const r = await rawExchange(l.port, ["HEAD /h HTTP/1.1\r\nHost: x\r\n\r\n", { pauseMs: 100 }, GET], { done: responses(2) });
    expect(r.statuses).toEqual([200, 200]);
    const head = r.text.slice(0, r.text.indexOf("HTTP/1.1 ", 1));
    const h = firstHeaders(head);
    expect(h.get("content-length")).toBe("5");
    expect(h.get("content-type")).toBe("text/plain");
    expect(h.get("date")).toMatch(/GMT$/);
    expect(head.endsWith("\r\n\r\n")).toBe(true); // nothing after the head: the next bytes are the GET's status line
    expect(seen.map((s) => s.method)).toEqual(["HEAD", "GET"]);
  });

  test("OPTIONS, TRACE, CONNECT, DELETE, PATCH and WebDAV's PROPFIND reach the flow with their method, as Echo's Any route does", async () => {
    const { l, seen } = serve();
    for (const m of ["OPTIONS /a", "TRACE /a", "DELETE /a", "PATCH /a", "PROPFIND /a", "CONNECT example.com:443"]) {
      const r = await rawExchange(l.port, `${m} HTTP/1.1\r\nHost: x\r\n\r\n`, { done: responses(1) });
      expect(r.statuses).toEqual([200]);
    }
    expect(seen.map((s) => s.method)).toEqual(["OPTIONS", "TRACE", "DELETE", "PATCH", "PROPFIND", "CONNECT"]);
  });

  test("pinned (Bun): a method Bun's parser does not know, or a lower-case one, is closed with no answer and never reaches the flow (Go: Echo answers 405)", async () => {
    const { l, seen } = serve();
    for (const line of ["FOO / HTTP/1.1", "get / HTTP/1.1"]) {
      const r = await rawExchange(l.port, `${line}\r\nHost: x\r\n\r\n`);
      expect(r).toMatchObject({ closed: true, text: "" });
    }
    expect(seen).toHaveLength(0);
  });

  test("pinned (Bun): OPTIONS * is refused 400 before the flow (Go answers 200 with Content-Length: 0)", async () => {
    const { l, seen } = serve();
    const r = await rawExchange(l.port, "OPTIONS * HTTP/1.1\r\nHost: x\r\n\r\n");
    expect(r.statuses).toEqual([400]);
    expect(r.closed).toBe(true);
    expect(seen).toHaveLength(0);
  });

  test("pinned (Bun): a GET or HEAD body is not given to the flow (Go passes it) and its bytes are consumed, never parsed as a second request", async () => {
    const { l, seen } = serve();
    const inner = "GET /smuggled HTTP/1.1\r\nHost: x\r\n\r\n";
    for (const m of ["GET", "HEAD"]) {
      await rawExchange(l.port, [`${m} /first HTTP/1.1\r\nHost: x\r\nContent-Length: ${inner.length}\r\n\r\n${inner}`, { pauseMs: 150 }], { waitMs: 400 });
    }
    expect(seen.map((s) => `${s.method} ${s.path} ${JSON.stringify(s.body)}`)).toEqual(['GET /first ""', 'HEAD /first ""']);
  });

  test("CONNECT's authority-form target is the requestURI with an empty path, as Go's Request shows it", async () => {
    const { l, seen } = serve();
    await rawExchange(l.port, "CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n", { done: responses(1) });
    expect(seen.map((s) => [s.requestURI, s.path, s.pathSegments, s.host])).toEqual([["example.com:443", "", [], "example.com:443"]]);
  });

  test("pinned (Bun): an absolute-form target's authority is not visible — host is the Host header's (Go: the target's, RFC 9112 §3.2.2); path and query are the target's", async () => {
    const { l, seen } = serve();
    await rawExchange(l.port, "GET http://other.example/p?q=1 HTTP/1.1\r\nHost: x\r\n\r\n", { done: responses(1) });
    expect(seen.map((s) => [s.host, s.path, s.requestURI])).toEqual([["x", "/p", "/p?q=1"]]);
  });

  test("a request body that is not UTF-8 reaches the flow with each invalid byte as U+FFFD", async () => {
    const { l, seen } = serve();
    await rawExchange(l.port, [Buffer.from("POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 8\r\n\r\ncaf\xe9 \xff\xfeA", "latin1")], { done: responses(1) });
    expect(seen.map((s) => s.body)).toEqual(["caf\uFFFD \uFFFD\uFFFDA"]);
  });

  test("a DELETE or OPTIONS body reaches the flow", async () => {
    const { l, seen } = serve();
    for (const m of ["DELETE", "OPTIONS"]) await rawExchange(l.port, `${m} /d HTTP/1.1\r\nHost: x\r\nContent-Length: 4\r\n\r\nbody`, { done: responses(1) });
    expect(seen.map((s) => s.body)).toEqual(["body", "body"]);
  });
});

describe("status codes the flow chooses (RFC 9110 §15)", () => {
  test("204 and 205 carry no body, 204 no Content-Length; 304 carries no body and no Content-Type (Go's suppressedHeaders304)", async () => {
    let status = 204;
    const { l } = serve(() => ({ statusCode: status, contentType: "application/json", body: "not sent" }));
    for (const s of [204, 205, 304]) {
      status = s;
      const r = await rawExchange(l.port, [GET, { pauseMs: 50 }, "GET /next HTTP/1.1\r\nHost: x\r\n\r\n"], { done: responses(2) });
      expect(r.statuses).toEqual([s, s]); // the second status line follows the first head directly: no body bytes between
      const h = firstHeaders(r.text);
      expect(firstBody(r.text)).toBe("");
      if (s === 204) expect(h.has("content-length")).toBe(false);
      if (s === 304) expect([h.has("content-type"), h.has("content-length")]).toEqual([false, false]);
    }
  });

  test("a 1xx from the flow is not sent (a 101 without an upgrade would make a proxy tunnel the connection): 500 naming the rule", async () => {
    let status = 101;
    const { l } = serve(() => ({ statusCode: status, body: "x" }));
    for (const s of [100, 101, 103]) {
      status = s;
      const r = await rawExchange(l.port, GET, { done: responses(1) });
      expect(r.statuses).toEqual([500]);
      expect(Buffer.from(firstBody(r.text), "latin1").toString("utf8")).toBe(
        `invalid response: statusCode ${s} is informational (1xx) and cannot be the final answer to a request; use 200–599`,
      );
    }
  });
});

describe("response headers (RFC 9110 §6.6, RFC 9112 §6)", () => {
  test("every answer has a Date; a Date or Server the flow sets wins, as in Go", async () => {
    let headers: unknown[] = [];
    const { l } = serve(() => ({ statusCode: 200, body: "hi", headers }));
    expect(firstHeaders((await rawExchange(l.port, GET, { done: responses(1) })).text).get("date")).toMatch(/^\w{3}, \d\d \w{3} \d{4} \d\d:\d\d:\d\d GMT$/);
    headers = [
      { key: "Date", value: "Tue, 01 Dec 2026 00:00:00 GMT" },
      { key: "Server", value: "flow" },
    ];
    const h = firstHeaders((await rawExchange(l.port, GET, { done: responses(1) })).text);
    expect([h.get("date"), h.get("server")]).toEqual(["Tue, 01 Dec 2026 00:00:00 GMT", "flow"]);
  });

  test("framing is the server's: a Content-Length or Transfer-Encoding the flow sets is ignored, and the next response on the connection starts where the body ends", async () => {
    let headers = [{ key: "Content-Length", value: "2" }];
    const { l } = serve(() => ({ statusCode: 200, body: "hello world", headers }));
    for (const h of [[{ key: "Content-Length", value: "2" }], [{ key: "Transfer-Encoding", value: "chunked" }]]) {
      headers = h;
      const r = await rawExchange(l.port, [GET, { pauseMs: 50 }, GET], { done: responses(2) });
      expect(firstHeaders(r.text).get("content-length")).toBe("11");
      expect(firstHeaders(r.text).has("transfer-encoding")).toBe(false);
      expect(firstBody(r.text)).toBe("hello world");
      expect(r.statuses).toEqual([200, 200]);
    }
  });

  test("a Connection: close the flow sets closes the connection after the answer (Go honours it too)", async () => {
    const { l } = serve(() => ({ statusCode: 200, body: "bye", headers: [{ key: "Connection", value: "close" }] }));
    const r = await rawExchange(l.port, GET);
    expect(r.closed).toBe(true);
    expect(firstBody(r.text)).toBe("bye");
  });

  test("a header value with CR/LF is not written (no response splitting): 500", async () => {
    const { l } = serve(() => ({ statusCode: 200, body: "x", headers: [{ key: "X-A", value: "a\r\nSet-Cookie: evil=1" }] }));
    const r = await rawExchange(l.port, GET, { done: responses(1) });
    expect(r.statuses).toEqual([500]);
    expect(r.text).not.toContain("evil=1\r\n");
  });
});

describe("Host (RFC 9112 §3.2)", () => {
  test("HTTP/1.1 without Host → 400 (Bun); more than one Host → 400 too many Host headers; an invalid one → 400 malformed Host header (Go's texts); the flow never runs", async () => {
    const { l, seen } = serve();
    const cases: Array<[string, string]> = [
      ["GET / HTTP/1.1\r\n\r\n", ""],
      ["GET / HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n", "400 Bad Request: too many Host headers"],
      ["GET / HTTP/1.1\r\nHost: a b\r\n\r\n", "400 Bad Request: malformed Host header"],
      ["GET / HTTP/1.1\r\nHost: a/b\r\n\r\n", "400 Bad Request: malformed Host header"],
    ];
    for (const [req, body] of cases) {
      const r = await rawExchange(l.port, req);
      expect(r.statuses).toEqual([400]);
      expect(r.closed).toBe(true);
      expect(firstBody(r.text)).toBe(body);
    }
    expect(seen).toHaveLength(0);
  });

  test("an empty Host, a host:port, an IPv6 literal, and HTTP/1.0 without Host are accepted", async () => {
    const { l, seen } = serve();
    for (const req of [
      "GET / HTTP/1.1\r\nHost:\r\n\r\n",
      "GET / HTTP/1.1\r\nHost: a.example:8080\r\n\r\n",
      "GET / HTTP/1.1\r\nHost: [::1]:80\r\n\r\n",
      "GET / HTTP/1.0\r\n\r\n",
    ]) {
      expect((await rawExchange(l.port, req, { done: responses(1) })).statuses).toEqual([200]);
    }
    expect(seen.map((s) => s.host)).toEqual(["", "a.example:8080", "[::1]:80", ""]);
  });
});

describe("request smuggling vectors (RFC 9112 §6.1, §6.3, §5.2, §2.2)", () => {
  const refused: Array<[string, string]> = [
    ["Content-Length with Transfer-Encoding", "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 4\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n"],
    ["two different Content-Length", "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\nContent-Length: 5\r\n\r\nhello"],
    ["a Content-Length list", "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 5, 5\r\n\r\nhello"],
    ["a signed Content-Length", "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: +5\r\n\r\nhello"],
    ["a negative Content-Length", "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: -1\r\n\r\nhello"],
    ["a hex Content-Length", "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 0x5\r\n\r\nhello"],
    ["an overflowing Content-Length", "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 99999999999999999999999\r\n\r\nhello"],
    ["obs-fold (a continuation line)", "GET / HTTP/1.1\r\nHost: x\r\nX-A: a\r\n b\r\n\r\n"],
    ["a bare LF ending a header line", "GET / HTTP/1.1\r\nHost: x\nX-A: b\r\n\r\n"],
    ["a bare CR in a value", "GET / HTTP/1.1\r\nHost: x\r\nX-A: a\rb\r\n\r\n"],
    ["a NUL in a value", "GET / HTTP/1.1\r\nHost: x\r\nX-A: a\0b\r\n\r\n"],
    ["whitespace before the colon", "GET / HTTP/1.1\r\nHost: x\r\nX-A : a\r\n\r\n"],
    ["Transfer-Encoding gzip, chunked (not supported)", "POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: gzip, chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n"],
    [
      "Transfer-Encoding chunked, identity (chunked not last)",
      "POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked, identity\r\n\r\n5\r\nhello\r\n0\r\n\r\n",
    ],
    ["Transfer-Encoding xchunked", "POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: xchunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n"],
    ["Transfer-Encoding twice", "POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n"],
    ["Transfer-Encoding in HTTP/1.0", "POST / HTTP/1.0\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n"],
    ["an overflowing chunk size", "POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nffffffffffffffffff1\r\nhello\r\n0\r\n\r\n"],
    ["a bare LF after a chunk size", "POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n5\nhello\n0\n\n"],
  ];
  for (const [name, req] of refused) {
    test(`${name}: refused 400 and the connection closed, before the flow`, async () => {
      const { l, seen } = serve();
      const r = await rawExchange(l.port, req + "GET /smuggled HTTP/1.1\r\nHost: x\r\n\r\n");
      expect(r.statuses).toEqual([400]);
      expect(r.closed).toBe(true);
      expect(seen).toHaveLength(0);
    });
  }

  test("a request line ending in a bare LF is refused (Bun answers 505), never parsed leniently", async () => {
    const { l, seen } = serve();
    const r = await rawExchange(l.port, "GET / HTTP/1.1\nHost: x\n\n");
    expect(r.closed).toBe(true);
    expect(r.statuses[0]).toBeGreaterThanOrEqual(400);
    expect(seen).toHaveLength(0);
  });

  test("the same Content-Length twice is accepted as one value (Go does the same) and the body limit still holds", async () => {
    const { l, seen } = serve();
    await rawExchange(l.port, "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nContent-Length: 5\r\n\r\nhello", { done: responses(1) });
    expect(seen[0]!.body).toBe("hello");
    expect(seen[0]!.headers).toContainEqual({ key: "Content-Length", value: "5" });
    const r = await rawExchange(l.port, `POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 1100\r\nContent-Length: 1100\r\n\r\n${"y".repeat(1100)}`);
    expect(r.statuses).toEqual([413]);
    expect(seen).toHaveLength(1);
  });

  test("chunk extensions are accepted and the body reaches the flow", async () => {
    const { l, seen } = serve();
    await rawExchange(l.port, "POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n5;a=b\r\nhello\r\n0\r\n\r\n", { done: responses(1) });
    expect(seen.map((s) => s.body)).toEqual(["hello"]);
  });

  test("pinned (Bun): a trailer section is not parsed — the body reaches the flow, then the trailer is read as a next request and refused 400 with the connection closed; a request placed after the last chunk is never served", async () => {
    const { l, seen } = serve();
    const r = await rawExchange(l.port, "POST /t HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\nX-T: 1\r\n\r\n");
    expect(r.statuses).toEqual([200, 400]);
    expect(r.closed).toBe(true);
    const s = await rawExchange(
      l.port,
      "POST /t HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\nGET /smuggled HTTP/1.1\r\nHost: x\r\n\r\n",
    );
    expect(s.closed).toBe(true);
    expect(seen.map((x) => x.path)).toEqual(["/t", "/t"]);
  });
});

describe("keep-alive and pipelining (RFC 9112 §9)", () => {
  test("pipelined requests are answered in order on one connection, each with its own body", async () => {
    const { l } = serve((r) => ({ statusCode: 200, body: r.path + r.body }));
    const r = await rawExchange(
      l.port,
      "GET /1 HTTP/1.1\r\nHost: x\r\n\r\nPOST /2 HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\nabGET /3 HTTP/1.1\r\nHost: x\r\n\r\n",
      { done: (t) => t.endsWith("/3") },
    );
    expect(r.closed).toBe(false);
    expect(r.statuses).toEqual([200, 200, 200]);
    expect(
      r.text
        .split("\r\n\r\n")
        .slice(1)
        .map((b) => b.replace(/HTTP\/1\.1[\s\S]*$/, "")),
    ).toEqual(["/1", "/2ab", "/3"]);
  });

  test("1,000 back-to-back requests on one keep-alive connection, each sent the moment the last answer arrived, are all answered without a reset (oven-sh/bun#42212)", async () => {
    const { l } = serve(() => ({ statusCode: 200, body: "k" }));
    const { connect } = await import("node:net");
    const socket = connect(l.port, "127.0.0.1");
    let answered = 0;
    let text = "";
    const outcome = await new Promise<string>((resolve) => {
      socket.on("error", (e) => resolve(`error ${e.message}`));
      socket.on("close", () => resolve("closed"));
      socket.on("data", (d) => {
        text += d.toString("latin1");
        const n = (text.match(/HTTP\/1\.1 200 /g) ?? []).length;
        text = text.slice(text.lastIndexOf("HTTP/1.1 200 ") + 1);
        if (n === 0) return;
        answered += n;
        if (answered >= 1000) resolve("done");
        else socket.write(GET);
      });
      socket.write(GET);
    });
    socket.destroy();
    expect([outcome, answered]).toEqual(["done", 1000]);
  });

  test("Connection: close from the client, and HTTP/1.0, close the connection after the answer", async () => {
    const { l } = serve();
    for (const req of ["GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", "GET / HTTP/1.0\r\nHost: x\r\n\r\n"]) {
      const r = await rawExchange(l.port, req);
      expect([r.closed, r.statuses]).toEqual([true, [200]]);
    }
  });

  test("Expect: 100-continue gets a 100 before the body is sent, then the flow's answer", async () => {
    const { l, seen } = serve();
    const r = await rawExchange(l.port, ["POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nExpect: 100-continue\r\n\r\n", { pauseMs: 200 }, "hello"], {
      done: responses(2),
    });
    expect(r.statuses).toEqual([100, 200]);
    expect(seen[0]!.body).toBe("hello");
  });

  test("an idle keep-alive connection is closed after the idle timeout (max(readTimeout, writeTimeout) + 1 s, in Bun's 4 s steps)", async () => {
    const { l } = serve(undefined, { readTimeout: 1, writeTimeout: 0 });
    const t0 = performance.now();
    const r = await rawExchange(l.port, GET, { waitMs: 15_000 });
    expect([r.closed, r.statuses]).toEqual([true, [200]]);
    expect(performance.now() - t0).toBeGreaterThanOrEqual(1500);
  }, 30_000);
});

describe("large and slow input", () => {
  test("a body over the limit is answered 413 with Connection: close, declared or chunked; the unread rest is never parsed as a request", async () => {
    const { l, seen } = serve();
    const inner = "GET /smuggled HTTP/1.1\r\nHost: x\r\n\r\n";
    const big = inner + "x".repeat(1100 - inner.length);
    for (const req of [
      `POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 1100\r\n\r\n${big}`,
      `POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n${(1100).toString(16)}\r\n${big}\r\n0\r\n\r\n`,
    ]) {
      const r = await rawExchange(l.port, req);
      expect(r.statuses).toEqual([413]);
      expect(firstHeaders(r.text).get("connection")).toBe("close");
      expect(r.closed).toBe(true);
    }
    expect(seen).toHaveLength(0);
  });

  test("a client uploading far more than the limit gets the 413 (not a reset) and the server keeps serving", async () => {
    const { l } = serve((r) => ({ statusCode: 200, body: String(r.body.length) }), { maxBodyBytes: () => 1024 * 1024 });
    const res = await fetch(`http://127.0.0.1:${l.port}/`, { method: "POST", body: "z".repeat(20 * 1024 * 1024) });
    expect(res.status).toBe(413);
    expect(await res.text()).toBe("request body exceeds the 1048576 byte limit (maxBodySize)");
    expect(await (await fetch(`http://127.0.0.1:${l.port}/`, { method: "POST", body: "ok" })).text()).toBe("2");
  });

  test("a body still arriving readTimeout seconds after the head is answered 408 naming the setting, and the connection closed (Go's ReadTimeout bounds the body)", async () => {
    const { l, seen } = serve(undefined, { readTimeout: 1, writeTimeout: 30 });
    const drip = Array.from({ length: 40 }, () => ["b", { pauseMs: 100 }]).flat() as Array<string | { pauseMs: number }>;
    const t0 = performance.now();
    const r = await rawExchange(l.port, ["POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 40\r\n\r\n", ...drip], { waitMs: 10_000 });
    expect(r.statuses).toEqual([408]);
    expect(firstBody(r.text)).toBe("request body not received within 1s (readTimeout)");
    expect(r.closed).toBe(true);
    expect(performance.now() - t0).toBeGreaterThanOrEqual(950);
    expect(seen).toHaveLength(0);
  });

  test("a head over Bun's 16 KiB (one header, many headers, or a long URI) is refused 431 (Go's default allows 1 MB)", async () => {
    const { l, seen } = serve();
    for (const req of [
      `GET / HTTP/1.1\r\nHost: x\r\nX-A: ${"a".repeat(20000)}\r\n\r\n`,
      `GET / HTTP/1.1\r\nHost: x\r\n${Array.from({ length: 300 }, (_, i) => `X-${i}: v`).join("\r\n")}\r\n\r\n`,
      `GET /${"a".repeat(20000)} HTTP/1.1\r\nHost: x\r\n\r\n`,
    ]) {
      const r = await rawExchange(l.port, req);
      expect([r.statuses, r.closed]).toEqual([[431], true]);
    }
    expect(seen).toHaveLength(0);
  });

  test("slowloris: a connection that sends nothing, half a head, or a head one byte at a time is closed by Bun's fixed ~10 s head deadline whatever readTimeout says (Go: readTimeout)", async () => {
    const { l, seen } = serve(undefined, { readTimeout: 60, writeTimeout: 60 });
    const drip = "GET / HTTP/1.1\r\nHost: x\r\nX-Slow: " + "a".repeat(100);
    const t0 = performance.now();
    const results = await Promise.all([
      rawExchange(l.port, [], { waitMs: 25_000 }),
      rawExchange(l.port, "GET / HTTP/1.1\r\nHo", { waitMs: 25_000 }),
      rawExchange(
        l.port,
        drip.split("").flatMap((c) => [c, { pauseMs: 150 }]),
        { waitMs: 25_000 },
      ),
    ]);
    expect(results.map((r) => r.closed)).toEqual([true, true, true]);
    expect(performance.now() - t0).toBeLessThan(25_000);
    expect(seen).toHaveLength(0);
  }, 40_000);
});

describe("slow reading of the answer (Go's WriteTimeout bounds the write, not only the handler)", () => {
  const MiB = 1024 * 1024;
  /** A flow answering `mib` MiB (a new string per request, so its memory can be released). */
  const big = (mib: number) => () => ({ statusCode: 200, contentType: "application/octet-stream", body: "x".repeat(mib * MiB) });
  const rssMiB = () => {
    Bun.gc(true);
    return Math.round(process.memoryUsage().rss / MiB);
  };

  test("a client that stops reading a large answer: the connection is closed within Bun's 4 s timer steps after writeTimeout, not at Bun's idle timeout (61 s here), and the unsent answer's memory is released", async () => {
    const { l } = serve(big(48), { readTimeout: 60, writeTimeout: 1 }); // Bun's idle timeout: 61 s
    const before = rssMiB();
    const t0 = performance.now();
    const client = await slowReader(l.port, GET, Infinity);
    await waitUntil("the answer to start", async () => client.bytes() > 0, 10_000);
    const held = rssMiB();
    await waitUntil("the server to close the connection", async () => (await serverSideState(l.port, client.clientPort)) !== "ESTABLISHED", 20_000);
    const closedAfter = performance.now() - t0;
    const after = rssMiB();
    console.log(
      `48 MiB answer, client reading nothing: server closed after ${Math.round(closedAfter)} ms (writeTimeout 1 s); RSS ${before} → ${held} while held → ${after} MiB after the close`,
    );
    expect(closedAfter).toBeGreaterThanOrEqual(950);
    expect(held - after).toBeGreaterThanOrEqual(16); // the part the kernel had not taken was in the process
    client.resume();
    const received = await client.closed;
    expect(received).toBeLessThan(48 * MiB); // cut, not delivered late
  }, 40_000);

  test("a client still reading slowly at writeTimeout is cut too (Go's write deadline is absolute, not an idle time)", async () => {
    const { l } = serve(big(64), { readTimeout: 60, writeTimeout: 2 });
    const t0 = performance.now();
    const client = await slowReader(l.port, GET, 50); // one read every 50 ms: the 64 MiB would take far longer than 2 s
    const received = await Promise.race([client.closed, Bun.sleep(30_000).then(() => -1)]);
    const after = performance.now() - t0;
    console.log(
      `64 MiB answer read in pieces 50 ms apart: cut after ${Math.round(after)} ms with ${(received / MiB).toFixed(1)} MiB received (writeTimeout 2 s)`,
    );
    expect({ cutWithin30s: received !== -1 }).toEqual({ cutWithin30s: true });
    expect(received).toBeGreaterThan(0);
    expect(received).toBeLessThan(64 * MiB);
    expect(after).toBeGreaterThanOrEqual(1950);
  }, 40_000);

  test("an answer read in time arrives whole, and its deadline passing later leaves the next request on the connection alone", async () => {
    let calls = 0;
    const { l } = serve(undefined, {
      readTimeout: 60,
      writeTimeout: 3,
      onRequest: async () => {
        if (++calls === 1) return ok({ statusCode: 200, body: "y".repeat(MiB) });
        await Bun.sleep(2500);
        return ok({ statusCode: 200, body: "second" });
      },
    });
    // The second request is sent 1 s after the first: its flow (2.5 s) runs across the first answer's deadline (3 s).
    const r = await rawExchange(l.port, [GET, { pauseMs: 1000 }, GET], { done: (t) => t.endsWith("second"), waitMs: 15_000 });
    expect(r.statuses).toEqual([200, 200]);
    expect(r.closed).toBe(false);
    expect(firstHeaders(r.text).get("content-length")).toBe(String(MiB));
    expect(firstBody(r.text)).toBe("y".repeat(MiB));
    expect(r.text.endsWith("\r\n\r\nsecond")).toBe(true);
  }, 20_000);

  test("writeTimeout 0: Bun's idle timeout (readTimeout + 1 s) closes a connection whose client stops reading (Go: no bound without WriteTimeout)", async () => {
    const { l } = serve(big(32), { readTimeout: 1, writeTimeout: 0 });
    const client = await slowReader(l.port, GET, Infinity);
    await waitUntil("the answer to start", async () => client.bytes() > 0, 10_000);
    await waitUntil("the server to close the connection", async () => (await serverSideState(l.port, client.clientPort)) !== "ESTABLISHED", 20_000);
    client.resume();
    expect(await client.closed).toBeLessThan(32 * MiB);
  }, 40_000);

  test("a 1 MiB answer to a client that reads it: whole, with or without a write deadline (time per answer printed)", async () => {
    const body = "z".repeat(MiB);
    const timed = serve(() => ({ statusCode: 200, body }), { writeTimeout: 10 }).l; // armed: a deadline timer per answer
    const untimed = serve(() => ({ statusCode: 200, body }), { readTimeout: 0, writeTimeout: 0 }).l; // no timer (as before the write bound)
    const perAnswer = async (port: number, n: number) => {
      const t0 = performance.now();
      for (let i = 0; i < n; i++) expect((await (await fetch(`http://127.0.0.1:${port}/`)).arrayBuffer()).byteLength).toBe(MiB);
      return (performance.now() - t0) / n;
    };
    await perAnswer(timed.port, 10);
    await perAnswer(untimed.port, 10);
    const rounds: string[] = [];
    for (let i = 0; i < 3; i++) rounds.push(`${(await perAnswer(untimed.port, 50)).toFixed(2)} / ${(await perAnswer(timed.port, 50)).toFixed(2)}`);
    console.log(`1 MiB answer, ms per answer without / with the write deadline, 3 rounds of 50: ${rounds.join(", ")}`);
  }, 60_000);
});
