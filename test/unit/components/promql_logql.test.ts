/**
 * promql_query and logql_query: the cases of their Go tests (promql_test.go: instant vector, range
 * newest-as-value, error envelope, retryability by status; logql_test.go's parse) plus what each
 * sends (method, endpoint, form, auth, tenant) to a local server, and settings validation. Against
 * a real server: test/integration/promql-logql.test.ts.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { isPermanent, isRetryable, testComponent } from "tinyhost";
import logql, { parseEntries, queryRangeUrl } from "../../../components/logql_query.ts";
import promql, { buildQuery, parseSeries } from "../../../components/promql_query.ts";

process.env.TINYHOST_LOG_LEVEL ??= "silent";

describe("promql_query parse (Go promql_test.go)", () => {
  test("an instant vector: each series with its labels and value", () => {
    const { series, truncated } = parseSeries(`{"status":"success","data":{"resultType":"vector","result":[
      {"metric":{"pod":"api-1"},"value":[1785000000,"0.75"]},{"metric":{"pod":"api-2"},"value":[1785000000,"0.20"]}]}}`);
    expect(truncated).toBe(false);
    expect(series).toEqual([
      { labels: { pod: "api-1" }, value: 0.75 },
      { labels: { pod: "api-2" }, value: 0.2 },
    ]);
  });

  test("a range matrix: points oldest first, the newest promoted to value, times as RFC 3339", () => {
    const { series } = parseSeries(`{"status":"success","data":{"resultType":"matrix","result":[
      {"metric":{"pod":"api-1"},"values":[[1785000000,"0.1"],[1785000060,"0.5"],[1785000120.5,"0.9"]]}]}}`);
    expect(series).toEqual([
      {
        labels: { pod: "api-1" },
        value: 0.9,
        points: [
          { at: "2026-07-25T17:20:00Z", value: 0.1 },
          { at: "2026-07-25T17:21:00Z", value: 0.5 },
          { at: "2026-07-25T17:22:00Z", value: 0.9 },
        ],
      },
    ]);
  });

  test("an error envelope under 200 and a body that is not JSON are permanent errors naming the cause", () => {
    expect(() => parseSeries(`{"status":"error","error":"parse error: unexpected end of input"}`)).toThrow(
      "metrics API error: parse error: unexpected end of input",
    );
    try {
      parseSeries("<html>");
    } catch (err) {
      expect((err as Error).message).toStartWith("metrics API returned a body that is not JSON");
      expect(isPermanent(err)).toBe(true);
    }
  });

  test("more than 500 series or points is truncated; NaN and ±Inf samples are null; a scalar is one series", () => {
    const many = {
      status: "success",
      data: { resultType: "vector", result: Array.from({ length: 501 }, (_, i) => ({ metric: { i: String(i) }, value: [1, "1"] })) },
    };
    expect(parseSeries(JSON.stringify(many))).toMatchObject({ truncated: true });
    expect(parseSeries(JSON.stringify(many)).series).toHaveLength(500);
    const long = { status: "success", data: { resultType: "matrix", result: [{ metric: {}, values: Array.from({ length: 501 }, (_, i) => [i, "1"]) }] } };
    expect(parseSeries(JSON.stringify(long)).truncated).toBe(true);
    const odd = parseSeries(
      `{"status":"success","data":{"resultType":"vector","result":[{"metric":{"a":"1"},"value":[1,"NaN"]},{"metric":{"a":"2"},"value":[1,"+Inf"]},{"metric":null,"value":[1,"x"]}]}}`,
    );
    expect(odd.series.map((s) => [s.labels, s.value])).toEqual([
      [{ a: "1" }, null],
      [{ a: "2" }, null],
      [{}, 0],
    ]);
    expect(parseSeries(`{"status":"success","data":{"resultType":"scalar","result":[1785000000,"2"]}}`).series).toEqual([{ labels: {}, value: 2 }]);
  });

  test("the range step keeps ≤ 500 points and is at least 15 s; an explicit step wins", () => {
    const now = Date.UTC(2026, 0, 1);
    expect(buildQuery("http://p/", { query: "up", rangeMinutes: 0, stepSeconds: 0 }, now).url).toBe("http://p/api/v1/query");
    const day = buildQuery("http://p", { query: "up", rangeMinutes: 24 * 60, stepSeconds: 0 }, now);
    expect(day.url).toBe("http://p/api/v1/query_range");
    expect(Object.fromEntries(day.form)).toEqual({ query: "up", start: String(now / 1000 - 86400), end: String(now / 1000), step: "172" });
    expect(buildQuery("http://p", { query: "up", rangeMinutes: 10, stepSeconds: 0 }, now).form.get("step")).toBe("15");
    expect(buildQuery("http://p", { query: "up", rangeMinutes: 10, stepSeconds: 7 }, now).form.get("step")).toBe("7");
  });
});

describe("logql_query parse", () => {
  test("lines of all streams, newest first, with their stream labels", () => {
    const entries = parseEntries(`{"status":"success","data":{"resultType":"streams","result":[
      {"stream":{"pod":"a"},"values":[["1785000030000000000","a2"],["1785000010000000000","a1"]]},
      {"stream":null,"values":[["1785000020000000000","b1"],["bad"],[1,2]]}]}}`);
    expect(entries).toEqual([
      { at: "2026-07-25T17:20:30Z", line: "a2", labels: { pod: "a" } },
      { at: "2026-07-25T17:20:20Z", line: "b1", labels: {} },
      { at: "2026-07-25T17:20:10Z", line: "a1", labels: { pod: "a" } },
    ]);
  });

  test("an error envelope and a body that is not JSON are permanent", () => {
    expect(() => parseEntries(`{"status":"error","error":"too many outstanding requests"}`)).toThrow("loki error: too many outstanding requests");
    expect(() => parseEntries("oops")).toThrow("loki returned a body that is not JSON");
  });

  test("the query_range URL carries Go's parameter order and a nanosecond window", () => {
    expect(queryRangeUrl("http://l:3100/", '{a="b"}', 1, 10, 1_000)).toBe(
      "http://l:3100/loki/api/v1/query_range?direction=backward&end=1000000000&limit=10&query=%7Ba%3D%22b%22%7D&start=-59000000000",
    );
  });
});

describe("what promql_query sends, and how its failures are classified", () => {
  const requests: { method: string; path: string; body: string; headers: Headers }[] = [];
  let status = 200;
  let body = `{"status":"success","data":{"resultType":"vector","result":[]}}`;
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(req) {
      requests.push({ method: req.method, path: new URL(req.url).pathname, body: await req.text(), headers: req.headers });
      return new Response(body, { status });
    },
  });
  afterAll(() => server.stop(true));
  const base = `http://127.0.0.1:${server.port}/prom`;

  test("POSTs the form with Basic auth (username + token), the tenant header and extra headers", async () => {
    const h = await testComponent(promql, {
      settings: {
        baseURL: base,
        orgID: "t1",
        timeoutSeconds: 5,
        headers: [
          { key: "X-Key", value: "v" },
          { key: "", value: "ignored" },
        ],
      },
    });
    requests.length = 0;
    await h.send("request", { query: "up == 1", username: "inst", token: "tok" });
    expect(requests[0]).toMatchObject({ method: "POST", path: "/prom/api/v1/query", body: "query=up+%3D%3D+1" });
    expect(requests[0]!.headers.get("content-type")).toBe("application/x-www-form-urlencoded");
    expect(requests[0]!.headers.get("authorization")).toBe("Basic " + Buffer.from("inst:tok").toString("base64"));
    expect(requests[0]!.headers.get("x-scope-orgid")).toBe("t1");
    expect(requests[0]!.headers.get("x-key")).toBe("v");
    await h.send("request", { query: "up", token: "tok" });
    expect(requests[1]!.headers.get("authorization")).toBe("Bearer tok");
    await h.send("request", { query: "up", username: "only-user" });
    expect(requests[2]!.headers.get("authorization")).toBeNull();
    expect(h.emitted.at(-1)).toEqual({ port: "result", data: { series: [], count: 0, truncated: false } });
    await h.stop();
  });

  test("400, 401, 422 are permanent; 429, 500, 503 retryable (Go TestClassifyRetryability); the body is cut at 400 characters", async () => {
    const h = await testComponent(promql, { settings: { baseURL: base, timeoutSeconds: 5 } });
    for (const [code, retry] of [
      [400, false],
      [401, false],
      [422, false],
      [429, true],
      [500, true],
      [503, true],
    ] as const) {
      status = code;
      body = "x".repeat(500);
      const r = await h.send("request", { query: "up" });
      expect(r.kind).toBe("fail");
      if (r.kind !== "fail") continue;
      expect(r.error.message).toBe(`metrics API ${code}: ${"x".repeat(400)}`);
      expect({ code, retryable: isRetryable(r.error) && !isPermanent(r.error) }).toEqual({ code, retryable: retry });
    }
    status = 200;
    body = `{"status":"success","data":{"resultType":"vector","result":[]}}`;
    await h.stop();
  });

  test("an empty query is permanent, before any request; settings without a usable base URL fail the reconcile", async () => {
    const h = await testComponent(promql, { settings: { baseURL: base, timeoutSeconds: 5, enableErrorPort: true } });
    requests.length = 0;
    await h.send("request", { context: 1, query: "  " });
    expect(requests).toEqual([]);
    expect(h.emitted[0]).toEqual({ port: "error", data: { context: 1, error: 'query is required: field "query" is empty', retryable: false } });
    await h.stop();
    for (const [baseURL, message] of [
      ["", "base URL is required"],
      ["ftp://x", 'base URL must be http:// or https://, got "ftp://x"'],
    ] as const) {
      const bad = await testComponent(promql, { settings: { baseURL, timeoutSeconds: 5 } });
      expect(bad.status().error).toBe(true);
      expect(bad.status().status).toContain(message);
      await bad.stop();
    }
    const lq = await testComponent(logql, { settings: { baseURL: "loki:3100", timeoutSeconds: 5 } });
    expect(lq.status().status).toContain('base URL must be http:// or https://, got "loki:3100"');
    await lq.stop();
  });
});
