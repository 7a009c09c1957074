// HttpListener answers (src/sdk/http/listener.ts): a flow that has answered by the time it returns
// is written at once and never registered in flight; a flow answering later, failing, or throwing
// gets the same answers as before the synchronous path existed.
import { afterEach, describe, expect, test } from "bun:test";
import { ok, type Result } from "../../../src/core/result.ts";
import { HttpListener, type ListenerOptions } from "../../../src/sdk/http/listener.ts";

const open: HttpListener[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((l) => l.close(false)));
});

function listener(onRequest: ListenerOptions["onRequest"]): HttpListener {
  const l = new HttpListener({ port: 0, readTimeout: 0, writeTimeout: 5, maxBodyBytes: () => 1024, context: () => null, onRequest });
  open.push(l);
  return l;
}

const get = async (l: HttpListener, path: string) => {
  const r = await fetch(`http://127.0.0.1:${l.port}${path}`);
  return `${r.status} ${r.headers.get("content-type")} ${await r.text()}`;
};

const answer = (path: string): Result => ok({ statusCode: 201, contentType: "application/json", body: `{"path":"${path}"}` });

describe("HttpListener answers", () => {
  test("a flow already answered: the Response is written, nothing is left in flight", async () => {
    let inFlightDuring = -1;
    const l: HttpListener = listener((req) => {
      inFlightDuring = l.inFlight;
      return Promise.resolve(answer(req.path));
    });
    expect(await get(l, "/now")).toBe('201 application/json {"path":"/now"}');
    expect(inFlightDuring).toBe(0);
    expect(l.inFlight).toBe(0);
  });

  test("a flow answering later is in flight until it answers, then written the same way", async () => {
    const { promise, resolve } = Promise.withResolvers<Result>();
    const l = listener(() => promise);
    const res = get(l, "/later");
    for (let i = 0; i < 100 && l.inFlight === 0; i++) await Bun.sleep(5);
    expect(l.inFlight).toBe(1);
    resolve(answer("/later"));
    expect(await res).toBe('201 application/json {"path":"/later"}');
    expect(l.inFlight).toBe(0);
  });

  test("every method and path reaches the flow (one catch-all route); HEAD gets the status and headers without the body", async () => {
    const seen: string[] = [];
    const l = listener((req) => {
      seen.push(`${req.method} ${req.requestURI}`);
      return Promise.resolve(answer(req.path));
    });
    for (const [method, path] of [
      ["GET", "/"],
      ["POST", "/a/b/c?x=1"],
      ["PROPFIND", "/dav/"],
      ["DELETE", "/*"],
      ["OPTIONS", "/x"],
    ] as const) {
      const r = await fetch(`http://127.0.0.1:${l.port}${path}`, { method });
      expect(`${r.status} ${await r.text()}`).toBe(`201 {"path":"${new URL(path, "http://h").pathname}"}`);
    }
    const head = await fetch(`http://127.0.0.1:${l.port}/h`, { method: "HEAD" });
    expect([head.status, head.headers.get("content-type"), await head.text()]).toEqual([201, "application/json", ""]);
    expect(seen).toEqual(["GET /", "POST /a/b/c?x=1", "PROPFIND /dav/", "DELETE /*", "OPTIONS /x", "HEAD /h"]);
  });

  test("a rejected flow, an already-rejected one and a throwing one answer 500 with the error text", async () => {
    const late = listener(async () => {
      await Bun.sleep(1);
      throw new Error("late boom");
    });
    const rejected = listener(() => Promise.reject(new Error("rejected boom")));
    const thrown = listener(() => {
      throw new Error("thrown boom");
    });
    expect(await get(late, "/")).toBe("500 text/plain; charset=UTF-8 late boom");
    expect(await get(rejected, "/")).toBe("500 text/plain; charset=UTF-8 rejected boom");
    expect(await get(thrown, "/")).toBe("500 text/plain; charset=UTF-8 thrown boom");
  });
});
