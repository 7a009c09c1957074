// drainListeners (issue 21): the host's shutdown drain closes only the listeners its nodes own,
// lets their in-flight requests finish, refuses new connections, and answers what outlives the
// bound 503. Real Bun.serve listeners on free ports; the flows are plain promises.
import { afterEach, describe, expect, test } from "bun:test";
import { ok, type Result } from "../../../src/core/result.ts";
import { HttpListener } from "../../../src/sdk/http/listener.ts";
import { drainListeners } from "../../../src/manager/open-listeners.ts";

const open: HttpListener[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((l) => l.close(false)));
});

/** A listener whose every request answers 200 `done <path>` after `ms`. */
function listener(owner: AbortSignal | undefined, ms: number): HttpListener {
  const l = new HttpListener({
    port: 0,
    readTimeout: 0,
    writeTimeout: 0,
    maxBodyBytes: () => 1024,
    context: () => null,
    onRequest: async (req): Promise<Result> => {
      await Bun.sleep(ms);
      return ok({ statusCode: 200, contentType: "text/plain", body: `done ${req.path}` });
    },
    ...(owner ? { owner } : {}),
  });
  open.push(l);
  return l;
}

const get = (l: HttpListener, path: string) =>
  fetch(`http://127.0.0.1:${l.port}${path}`).then(
    async (r) => `${r.status} ${await r.text()}`,
    (e: { code?: string }) => `refused ${e.code ?? "?"}`,
  );

describe("drainListeners", () => {
  test("in-flight requests of the owned listeners finish, new connections are refused, other owners' listeners keep serving", async () => {
    const mine = new AbortController().signal;
    const a = listener(mine, 300);
    const other = listener(new AbortController().signal, 0);
    const unowned = listener(undefined, 0);
    const inFlight = [get(a, "/1"), get(a, "/2")];
    await Bun.sleep(100);
    const drained = drainListeners(new Set([mine]), 5_000);
    await Bun.sleep(50);
    expect(await get(a, "/late")).toStartWith("refused");
    expect(await Promise.all(inFlight)).toEqual(["200 done /1", "200 done /2"]);
    expect(await drained).toEqual({ listeners: 1, requests: 2, cancelled: 0 });
    expect(await get(other, "/x")).toBe("200 done /x");
    expect(await get(unowned, "/y")).toBe("200 done /y");
  });

  test("a request still running at the bound is answered 503 http_server stopped and counted", async () => {
    const mine = new AbortController().signal;
    const a = listener(mine, 5_000);
    const slow = get(a, "/slow");
    await Bun.sleep(100);
    expect(await drainListeners(new Set([mine]), 200)).toEqual({ listeners: 1, requests: 1, cancelled: 1 });
    expect(await slow).toBe("503 http_server stopped");
  });
});
