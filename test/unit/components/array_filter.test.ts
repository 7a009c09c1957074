// array_filter: the cases of Go's common-module components/arrayfilter/arrayfilter_test.go, plus its
// ports, Go's error texts, the expression dialect and its agent-tool call.
import { describe, expect, test } from "bun:test";
import { ok, testComponent, type Result } from "tinyhost";
import arrayFilter from "../../../components/array_filter.ts";
import { platformListing } from "../../../src/cli/platform-listing.ts";
import { Scheduler } from "../../../src/runtime/scheduler/index.ts";

process.env.TINYHOST_LOG_LEVEL ??= "silent";

const errorOf = (r: Result) => (r.kind === "fail" ? { code: (r.error as Error & { code?: string }).code, message: r.error.message } : undefined);

const pods = () => [
  { name: "api-1", hasProblem: false, restarts: 0 },
  { name: "api-2", hasProblem: true, restarts: 7 },
  { name: "web-1", hasProblem: true, restarts: 1 },
];

async function run(request: unknown, settings: unknown = {}) {
  const h = await testComponent(arrayFilter, { settings });
  const r = await h.send("request", request);
  await h.stop();
  return { r, emitted: h.emitted };
}

describe("array_filter ports", () => {
  test("Go's names, labels, positions and defaults; tagged agent_tool as Go tags it", async () => {
    expect(arrayFilter.info).toMatchObject({ name: "array_filter", description: "Array Filter", tags: ["SDK", "ARRAY", "agent_tool"] });
    expect(arrayFilter.ports().map((p) => [p.name, p.label, p.source, p.position, p.configuration])).toEqual([
      ["request", "Request", false, "left", { array: null, query: "" }],
      ["result", "Result", true, "right", { items: null, count: 0, total: 0 }],
      ["_settings", "Settings", false, "top", { skipUnevaluable: false, enableErrorPort: false }],
    ]);
    expect(platformListing(arrayFilter).tags).toEqual(["SDK", "ARRAY", "agent_tool"]); // once, info unchanged
    expect(platformListing(arrayFilter).info).toBe(arrayFilter.info.info);
    const h = await testComponent(arrayFilter, { settings: { enableErrorPort: true } });
    expect(h.status().ports!.find((p) => p.name === "error")).toMatchObject({ label: "Error", source: true, position: 2 });
    await h.stop();
  });
});

describe("array_filter", () => {
  test("keeps matching items in their original order (TestKeepsMatchingItems)", async () => {
    const { r, emitted } = await run({ array: pods(), query: "$.hasProblem" });
    expect(r.kind).not.toBe("fail");
    expect(emitted).toEqual([{ port: "result", data: { items: [pods()[1], pods()[2]], count: 2, total: 3 } }]);
  });

  test("comparisons and numbers (TestComparisonsAndNumbers)", async () => {
    const { emitted } = await run({ array: pods(), query: "$.restarts > 3" });
    expect(emitted[0]!.data).toMatchObject({ count: 1, total: 3 });
  });

  test("nothing matching is an answer: items is an empty list, not null (TestNoMatchesIsAnAnswer)", async () => {
    const { r, emitted } = await run({ array: pods(), query: "$.name == 'nope'" });
    expect(r.kind).not.toBe("fail");
    expect(emitted[0]!.data).toEqual({ items: [], count: 0, total: 3 });
  });

  test("an item the predicate cannot be evaluated against fails loudly by default (TestUnevaluableItemFailsLoudlyByDefault)", async () => {
    const { r, emitted } = await run({ array: [{ name: "api-1" }], query: "$.hasPrblem" });
    expect(errorOf(r)).toEqual({
      code: "ARRAY_FILTER_QUERY",
      message:
        'query "$.hasPrblem" could not be evaluated against item 0: predicate answered <nil> (<nil>), not true or false — check the field name, or turn on skipUnevaluable if the array is ragged',
    });
    expect(emitted).toEqual([]);
  });

  test("skipUnevaluable treats such items as not matching (TestSkipUnevaluableWhenAsked)", async () => {
    const { emitted } = await run({ array: [{ name: "api-1", hasProblem: true }, { name: "api-2" }], query: "$.hasProblem" }, { skipUnevaluable: true });
    expect(emitted[0]!.data).toEqual({ items: [{ name: "api-1", hasProblem: true }], count: 1, total: 2 });
  });

  test("a predicate answering a string or a number is refused (TestNonBooleanPredicateIsRefused)", async () => {
    expect(errorOf((await run({ array: pods(), query: "$.name" })).r)?.message).toContain("predicate answered api-1 (string), not true or false");
    expect(errorOf((await run({ array: pods(), query: "$.restarts" })).r)?.message).toContain("predicate answered 0 (float64), not true or false");
  });

  test("an empty query is refused, even for an empty array (TestEmptyQueryIsRefused)", async () => {
    for (const request of [{ array: pods() }, { array: [], query: "" }]) {
      expect(errorOf((await run(request)).r)?.message).toBe("query is required — a filter with no predicate is the array it was given");
    }
  });

  test("an empty or missing array is fine (TestEmptyArrayIsFine)", async () => {
    expect((await run({ array: [], query: "$.hasProblem" })).emitted[0]!.data).toEqual({ items: [], count: 0, total: 0 });
    expect((await run({ query: "$.hasProblem" })).emitted[0]!.data).toEqual({ items: [], count: 0, total: 0 });
  });

  test("the context is carried (TestContextIsCarried)", async () => {
    const { emitted } = await run({ context: { runId: "r1" }, array: pods(), query: "$.hasProblem" });
    expect(emitted[0]!.data).toMatchObject({ context: { runId: "r1" } });
  });

  test("with the error port on, failures are emitted there and the run goes on (TestErrorPortRoutesInsteadOfFailing)", async () => {
    const h = await testComponent(arrayFilter, { settings: { enableErrorPort: true } });
    h.respond("error", () => ok("caught"));
    const r = await h.send("request", { context: 9, array: pods() });
    expect(r).toEqual(ok("caught"));
    expect(h.emitted).toEqual([{ port: "error", data: { context: 9, error: "query is required — a filter with no predicate is the array it was given" } }]);
  });

  test("a query that does not parse fails at the first item, and not for an empty array (Go evaluates it per item)", async () => {
    expect(errorOf((await run({ array: pods(), query: "$.a ==" })).r)?.message).toStartWith('query "$.a ==" could not be evaluated against item 0: ');
    expect((await run({ array: [], query: "$.a ==" })).emitted[0]!.data).toEqual({ items: [], count: 0, total: 0 });
    expect((await run({ array: pods(), query: "$.a ==" }, { skipUnevaluable: true })).emitted[0]!.data).toEqual({ items: [], count: 0, total: 3 });
  });

  test("the edge-expression dialect: functions, string operators, regex and scalar items via $", async () => {
    expect((await run({ array: ["a", "bb", "ccc"], query: "length($) > 1" })).emitted[0]!.data).toMatchObject({ items: ["bb", "ccc"] });
    expect((await run({ array: [{ n: "api-1" }, { n: "web" }], query: "$.n =~ '^api'" })).emitted[0]!.data).toMatchObject({ items: [{ n: "api-1" }] });
  });

  test("called as an agent tool: request in, result out", async () => {
    const s = new Scheduler({ module: "common" });
    s.install(arrayFilter);
    const r = await s.handle({
      edgeId: "",
      from: "",
      to: "array_filter",
      data: new TextEncoder().encode('{"array":[1,5,9],"query":"$ > 4"}'),
      depth: 0,
      mode: "rpc",
    });
    expect(r).toEqual(ok({ items: [5, 9], count: 2, total: 3 }));
  });
});
