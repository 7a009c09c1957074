// http_request's exchange (src/sdk/http/fetch.ts) against Go's net/http client defaults, which the
// Go component uses (net/http client.go, transport.go): redirects (limit, methods, bodies, headers
// across hosts, Referer), compressed responses, response size bounds, non-UTF-8 bodies, timeouts
// and TLS errors. Every rule against a real local server.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { isRetryable } from "../../../src/core/errors.ts";
import { performRequest, type OutboundRequest } from "../../../src/sdk/http/fetch.ts";
import { generatePki } from "../../support/pki.ts";

interface Seen {
  method: string;
  path: string;
  headers: Record<string, string>;
  body: string;
}

/** A server on 127.0.0.1 that records every request and answers by path. */
function recordingServer(route: (url: URL, req: Request) => Response | Promise<Response>) {
  const seen: Seen[] = [];
  const server = Bun.serve({
    port: 0,
    async fetch(req) {
      const url = new URL(req.url);
      seen.push({ method: req.method, path: url.pathname + url.search, headers: Object.fromEntries(req.headers), body: await req.text() });
      return route(url, req);
    },
  });
  return { server, seen, base: `http://127.0.0.1:${server.port}` };
}

const redirect = (to: string, status = 302) => new Response(null, { status, headers: { Location: to } });

const A = recordingServer((url) => {
  const m = /^\/hop\/(\d+)$/.exec(url.pathname);
  if (m) return Number(m[1]) === 0 ? new Response("done") : redirect(`/hop/${Number(m[1]) - 1}`);
  const s = /^\/status\/(\d+)$/.exec(url.pathname);
  if (s) return redirect("/landing", Number(s[1]));
  if (url.pathname === "/to") return redirect(url.searchParams.get("u")!);
  if (url.pathname === "/nolocation") return new Response("moved, nowhere", { status: 302 });
  if (url.pathname === "/badlocation") return redirect("http://[::1");
  if (url.pathname === "/gzip")
    return new Response(gzipSync("hello, compressed world"), { headers: { "Content-Encoding": "gzip", "Content-Type": "text/plain" } });
  if (url.pathname === "/bomb") return new Response(gzipSync(Buffer.alloc(64 * 1024 * 1024)), { headers: { "Content-Encoding": "gzip" } });
  if (url.pathname === "/endless") {
    return new Response(new ReadableStream({ pull: (c) => c.enqueue(new Uint8Array(64 * 1024)) }));
  }
  if (url.pathname === "/latin1")
    return new Response(Buffer.from("caf\xe9 \xff\xfeA", "latin1"), { headers: { "Content-Type": "text/plain; charset=ISO-8859-1" } });
  if (url.pathname === "/trickle") {
    return new Response(
      new ReadableStream({
        // A byte at once, so the headers are out before any timeout; then one every 200 ms, forever.
        async pull(c) {
          c.enqueue(new TextEncoder().encode("."));
          await Bun.sleep(200);
        },
      }),
    );
  }
  return new Response("landed");
});
// Another host name for the same machine: `localhost` is not 127.0.0.1 and not a subdomain of it.
const B = recordingServer(() => new Response("other host"));
const bBase = `http://localhost:${B.server.port}`;

afterAll(() => {
  A.server.stop(true);
  B.server.stop(true);
});

const req = (over: Partial<OutboundRequest>): OutboundRequest => ({
  method: "GET",
  timeout: 10,
  url: `${A.base}/`,
  bearerToken: "",
  basicAuthUser: "",
  basicAuthPassword: "",
  headers: [],
  contentType: "",
  body: "",
  ...over,
});
const MAX = 10 * 1024 * 1024;
const run = (over: Partial<OutboundRequest>, max = MAX) => performRequest(req(over), max, new AbortController().signal);

describe("redirects (Go net/http client.go)", () => {
  test("9 redirects are followed; the 10th fails with Go's `stopped after 10 redirects`, retryable, after exactly 10 requests", async () => {
    A.seen.length = 0;
    const okay = await run({ url: `${A.base}/hop/9` });
    expect([okay.error, okay.response.body]).toEqual([undefined, "done"]);
    expect(A.seen).toHaveLength(10);
    A.seen.length = 0;
    const over = await run({ url: `${A.base}/hop/10` });
    expect(over.error?.message).toBe('Get "/hop/0": stopped after 10 redirects');
    expect(isRetryable(over.error!)).toBe(true);
    expect(A.seen).toHaveLength(10);
  });

  test("301, 302 and 303 turn a POST (or PUT) into a GET without the body and its Content-Type; HEAD stays HEAD", async () => {
    for (const status of [301, 302, 303]) {
      for (const method of ["POST", "PUT"]) {
        A.seen.length = 0;
        const r = await run({
          method,
          url: `${A.base}/status/${status}`,
          body: '{"a":1}',
          contentType: "application/json",
          headers: [{ key: "X-Custom", value: "kept" }],
        });
        expect(r.response.body).toBe("landed");
        expect(A.seen.map((s) => `${s.method} ${s.path} ${JSON.stringify(s.body)} ${s.headers["content-type"]} ${s.headers["x-custom"]}`)).toEqual([
          `${method} /status/${status} "{\\"a\\":1}" application/json kept`,
          'GET /landing "" undefined kept',
        ]);
      }
      A.seen.length = 0;
      await run({ method: "HEAD", url: `${A.base}/status/${status}` });
      expect(A.seen.map((s) => s.method)).toEqual(["HEAD", "HEAD"]);
    }
  });

  test("307 and 308 keep the method, the body and its headers", async () => {
    for (const status of [307, 308]) {
      A.seen.length = 0;
      await run({ method: "POST", url: `${A.base}/status/${status}`, body: "payload", contentType: "text/plain" });
      expect(A.seen.map((s) => `${s.method} ${s.path} ${s.body} ${s.headers["content-type"]}`)).toEqual([
        `POST /status/${status} payload text/plain`,
        "POST /landing payload text/plain",
      ]);
    }
  });

  test("Authorization (bearer or basic) and Cookie are dropped when a redirect leaves the host; other headers stay; Referer names the previous URL", async () => {
    A.seen.length = 0;
    B.seen.length = 0;
    await run({
      url: `${A.base}/to?u=${encodeURIComponent(bBase + "/b")}`,
      bearerToken: "s3cret",
      headers: [
        { key: "Cookie", value: "sid=1" },
        { key: "X-Custom", value: "kept" },
      ],
    });
    expect(A.seen[0]!.headers).toMatchObject({ authorization: "Bearer s3cret", cookie: "sid=1" });
    const hop = B.seen[0]!.headers;
    expect([hop.authorization, hop.cookie, hop["x-custom"], hop.referer]).toEqual([
      undefined,
      undefined,
      "kept",
      `${A.base}/to?u=${encodeURIComponent(bBase + "/b")}`,
    ]);
  });

  test("the same host on another port keeps Authorization (Go compares host names, not ports)", async () => {
    const C = recordingServer(() => new Response("same host, other port"));
    try {
      await run({ url: `${A.base}/to?u=${encodeURIComponent(C.base + "/c")}`, basicAuthUser: "u", basicAuthPassword: "p" });
      expect(C.seen[0]!.headers.authorization).toBe("Basic dTpw");
    } finally {
      C.server.stop(true);
    }
  });

  test("once dropped, credentials stay dropped when a later redirect comes back to the first host (Go 1.23.5+, CVE-2024-45336)", async () => {
    A.seen.length = 0;
    const back = `${A.base}/landing`;
    const viaB = recordingServer(() => redirect(back));
    try {
      await run({ url: `${A.base}/to?u=${encodeURIComponent(`http://localhost:${viaB.server.port}/x`)}`, bearerToken: "s3cret" });
      expect(A.seen.map((s) => `${s.path} ${s.headers.authorization}`)).toEqual([
        `/to?u=${encodeURIComponent(`http://localhost:${viaB.server.port}/x`)} Bearer s3cret`,
        "/landing undefined",
      ]);
    } finally {
      viaB.server.stop(true);
    }
  });

  test("a 3xx without Location is the response (no error), as Go returns it", async () => {
    const r = await run({ url: `${A.base}/nolocation` });
    expect([r.error, r.response.statusCode, r.response.body]).toEqual([undefined, 302, "moved, nowhere"]);
  });

  test("a Location that does not parse, or leads to another scheme, fails naming it", async () => {
    expect((await run({ url: `${A.base}/badlocation` })).error?.message).toBe(`Get "${A.base}/badlocation": failed to parse Location header "http://[::1"`);
    expect((await run({ url: `${A.base}/to?u=${encodeURIComponent("ftp://example.com/f")}` })).error?.message).toBe(
      'Get "ftp://example.com/f": unsupported protocol scheme "ftp"',
    );
  });
});

describe("connections", () => {
  test("a response saying Connection: close (any status) or HTTP/1.0 is not reused: every next request gets an answer (oven-sh/bun#35545, #31463)", async () => {
    const { createServer } = await import("node:net");
    for (const [line, header] of [
      ["HTTP/1.1 200 OK", "Connection: close\r\n"],
      ["HTTP/1.1 404 Not Found", "Connection: close\r\n"],
      ["HTTP/1.1 503 Unavailable", "Connection: close, keep-alive\r\n"],
      ["HTTP/1.0 200 OK", ""],
    ] as const) {
      let connections = 0;
      const srv = createServer((sock) => {
        connections++;
        let buf = "";
        sock.on("error", () => {});
        sock.on("data", (d) => {
          buf += d.toString();
          if (!buf.includes("\r\n\r\n")) return;
          buf = "";
          sock.end(`${line}\r\n${header}Content-Length: 2\r\n\r\nhi`);
        });
      });
      await new Promise<void>((r) => srv.listen(0, "127.0.0.1", () => r()));
      const port = (srv.address() as { port: number }).port;
      const statuses: number[] = [];
      for (let i = 0; i < 4; i++) statuses.push((await run({ url: `http://127.0.0.1:${port}/` })).response.statusCode);
      srv.close();
      expect(statuses).toEqual(Array(4).fill(Number(line.split(" ")[1])));
      expect(connections).toBe(4);
    }
  });
});

describe("compressed, large and non-UTF-8 responses (Go's Transport)", () => {
  test("gzip is asked for and decompressed transparently, Content-Encoding and Content-Length removed, as Go's Transport does", async () => {
    A.seen.length = 0;
    const r = await run({ url: `${A.base}/gzip` });
    expect(A.seen[0]!.headers["accept-encoding"]).toBe("gzip");
    expect(r.response.body).toBe("hello, compressed world");
    expect(r.response.headers.map((h) => h.key)).not.toContain("Content-Encoding");
    expect(r.response.headers.map((h) => h.key)).not.toContain("Content-Length");
  });

  test("a caller's own Accept-Encoding gets the body as sent, still encoded (Go does not decompress then)", async () => {
    const r = await run({ url: `${A.base}/gzip`, headers: [{ key: "Accept-Encoding", value: "gzip" }] });
    expect(r.response.headers).toContainEqual({ key: "Content-Encoding", value: "gzip" });
    expect(r.response.body).not.toContain("hello");
  });

  test("a gzip bomb (64 MiB of zeros in ~64 KiB) fails at the cap of decompressed bytes, not retryable", async () => {
    const r = await run({ url: `${A.base}/bomb` }, 1024 * 1024);
    expect(r.error?.message).toBe("response body exceeds the 1048576 byte cap (maxResponseBytes setting)");
    expect(isRetryable(r.error!)).toBe(false);
  });

  test("an endless body stops at the cap with a clear error (the read is abandoned)", async () => {
    const r = await run({ url: `${A.base}/endless` }, 2 * 1024 * 1024);
    expect(r.error?.message).toBe("response body exceeds the 2097152 byte cap (maxResponseBytes setting)");
  });

  test("a body that is not UTF-8 arrives with each invalid byte as U+FFFD (as Go's JSON encoding of the string shows it)", async () => {
    const r = await run({ url: `${A.base}/latin1` });
    expect(r.response.body).toBe("caf\uFFFD \uFFFD\uFFFDA");
  });
});

describe("timeouts and TLS", () => {
  test("the timeout bounds the body read too (Go's Client.Timeout): a trickling body fails with context deadline exceeded, retryable", async () => {
    const t0 = performance.now();
    // 2 s: the headers arrive well inside it even on a loaded machine (at 1 s, load 26 once missed them).
    const r = await run({ url: `${A.base}/trickle`, timeout: 2 });
    expect(r.error?.message).toBe("read response body: context deadline exceeded");
    expect(isRetryable(r.error!)).toBe(true);
    expect(performance.now() - t0).toBeGreaterThanOrEqual(1950);
  });

  test("the timeout spans redirects: a redirect to a slow answer fails as one exchange", async () => {
    const slow = recordingServer(async () => {
      await Bun.sleep(3000);
      return new Response("late");
    });
    try {
      const r = await run({ url: `${A.base}/to?u=${encodeURIComponent(slow.base + "/s")}`, timeout: 1 });
      expect(r.error?.message).toBe(`Get "${slow.base}/s": context deadline exceeded`);
    } finally {
      slow.server.stop(true);
    }
  });

  test("Bun's own 5-minute idle limit is switched off for every hop, so the configured timeout is the only bound (Go's Client has no idle limit)", async () => {
    const real = globalThis.fetch;
    const inits: Array<RequestInit & { timeout?: unknown }> = [];
    globalThis.fetch = ((input: string | URL | Request, init?: RequestInit) => {
      inits.push(init ?? {});
      return real(input, init);
    }) as typeof fetch;
    try {
      await run({ url: `${A.base}/hop/2`, timeout: 600 });
    } finally {
      globalThis.fetch = real;
    }
    expect(inits.map((i) => i.timeout)).toEqual([false, false, false]);
  });

  let dir = "";
  let tlsServer: ReturnType<typeof Bun.serve> | undefined;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "th-http-client-"));
    const pki = await generatePki(dir);
    tlsServer = Bun.serve({ port: 0, tls: { cert: Bun.file(pki.serverCert), key: Bun.file(pki.serverKey) }, fetch: () => new Response("secure") });
  });
  afterAll(() => {
    tlsServer?.stop(true);
    rmSync(dir, { recursive: true, force: true });
  });

  test("a certificate from an unknown authority fails with an error naming the host and the certificate problem, as Go's `tls: failed to verify certificate`", async () => {
    const url = `https://127.0.0.1:${tlsServer!.port}/`;
    const r = await run({ url });
    expect(r.error?.message).toBe(
      `Get "${url}": tls: failed to verify certificate for 127.0.0.1: unable to verify the first certificate (UNABLE_TO_VERIFY_LEAF_SIGNATURE)`,
    );
  });
});
