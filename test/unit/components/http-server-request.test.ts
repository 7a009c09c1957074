import { describe, expect, test } from "bun:test";
import { buildServerRequest, pathSegments, scanHeaders } from "../../../src/sdk/http/server-request.ts";

/** A peer-address source that counts how often it is asked (Bun's requestIP is a native call). */
function peer(address: string | undefined) {
  const fn = () => {
    fn.calls++;
    return address;
  };
  fn.calls = 0;
  return fn;
}

function build(headers: Record<string, string>, address: string | undefined, tls = false) {
  const req = new Request("http://example.test/a/b?x=1", { headers });
  const p = peer(address);
  return { request: buildServerRequest(req, scanHeaders(req.headers), "", p, tls, null), peerCalls: () => p.calls };
}

describe("http_server request: realIP (Echo RealIP)", () => {
  test("the first X-Forwarded-For entry decides, trimmed and unbracketed, and the peer address is not read", () => {
    const { request, peerCalls } = build({ "X-Forwarded-For": " [2001:db8::1] , 10.0.0.2", "X-Real-IP": "10.9.9.9" }, "::ffff:127.0.0.1");
    expect(request.realIP).toBe("2001:db8::1");
    expect(peerCalls()).toBe(0);
  });

  test("a single X-Forwarded-For value is taken as sent", () => {
    expect(build({ "X-Forwarded-For": "203.0.113.7" }, "127.0.0.1").request.realIP).toBe("203.0.113.7");
  });

  test("X-Real-IP decides when there is no X-Forwarded-For, without reading the peer address", () => {
    const { request, peerCalls } = build({ "X-Real-IP": "[2001:db8::2]" }, "127.0.0.1");
    expect(request.realIP).toBe("2001:db8::2");
    expect(peerCalls()).toBe(0);
  });

  test("without forwarding headers the peer address is used, IPv4-mapped IPv6 shown as IPv4", () => {
    const { request, peerCalls } = build({}, "::ffff:192.0.2.4");
    expect(request.realIP).toBe("192.0.2.4");
    expect(peerCalls()).toBe(1);
    expect(build({}, "2001:db8::9").request.realIP).toBe("2001:db8::9");
    expect(build({}, undefined).request.realIP).toBe("");
  });
});

describe("http_server request: scheme, host and headers", () => {
  test("scheme: TLS → https, else X-Forwarded-Proto, X-Forwarded-Protocol, X-Forwarded-Ssl on, X-Url-Scheme, else http", () => {
    expect(build({ "X-Forwarded-Proto": "http" }, "", true).request.scheme).toBe("https");
    expect(build({ "X-Forwarded-Proto": "https", "X-Url-Scheme": "ftp" }, "").request.scheme).toBe("https");
    expect(build({ "X-Forwarded-Protocol": "wss" }, "").request.scheme).toBe("wss");
    expect(build({ "X-Forwarded-Ssl": "on" }, "").request.scheme).toBe("https");
    expect(build({ "X-Forwarded-Ssl": "off", "X-Url-Scheme": "gopher" }, "").request.scheme).toBe("gopher");
    expect(build({}, "").request.scheme).toBe("http");
  });

  test("Host moves out of the header list into host; the rest are canonical and sorted", () => {
    const { request } = build({ Host: "api.example.test", "x-zeta": "z", accept: "*/*", "content-type": "text/plain" }, "");
    expect(request.host).toBe("api.example.test");
    expect(request.headers).toEqual([
      { key: "Accept", value: "*/*" },
      { key: "Content-Type", value: "text/plain" },
      { key: "X-Zeta", value: "z" },
    ]);
  });

  test("the scan reports Content-Length and Transfer-Encoding for the body decision", () => {
    const h = new Headers({ "content-length": "12", "transfer-encoding": "chunked" });
    const scan = scanHeaders(h);
    expect(scan.contentLength).toBe("12");
    expect(scan.transferEncoding).toBe(true);
    expect(scanHeaders(new Headers()).contentLength).toBeUndefined();
  });
});

describe("pathSegments", () => {
  test("splits on / and drops empty parts", () => {
    expect(pathSegments("/hooks//github/")).toEqual(["hooks", "github"]);
    expect(pathSegments("/")).toEqual([]);
    expect(pathSegments("")).toEqual([]);
    expect(pathSegments("a/b")).toEqual(["a", "b"]);
  });
});

describe("http_server request: query parameters named like Object.prototype members", () => {
  test("constructor, toString, hasOwnProperty and __proto__ are ordinary parameters, repeated values kept in order", async () => {
    const { queryValues } = await import("../../../src/sdk/http/server-request.ts");
    const q = queryValues("?constructor=1&toString=2&hasOwnProperty=3&__proto__=4&constructor=5");
    expect(JSON.parse(JSON.stringify(q))).toEqual({ constructor: ["1", "5"], toString: ["2"], hasOwnProperty: ["3"], ["__proto__"]: ["4"] });
    expect(Object.getPrototypeOf(q)).toBe(Object.prototype);
    expect(Object.keys(q)).toEqual(["constructor", "toString", "hasOwnProperty", "__proto__"]);
  });
});
