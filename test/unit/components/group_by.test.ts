// group_by: Go's common-module components/groupby has no tests; these pin its behaviour as read —
// dot paths through objects, keys as Go's %v prints them, groups sorted by key in Go's order.
import { describe, expect, test } from "bun:test";
import { fail, ok, testComponent, type Result } from "tinyhost";
import groupBy from "../../../components/group_by.ts";

process.env.TINYHOST_LOG_LEVEL ??= "silent";

const errorOf = (r: Result) => (r.kind === "fail" ? { code: (r.error as Error & { code?: string }).code, message: r.error.message } : undefined);

async function group(items: unknown, groupByPath: string, context?: unknown) {
  const h = await testComponent(groupBy);
  const r = await h.send("in", context === undefined ? { items, groupByPath } : { context, items, groupByPath });
  await h.stop();
  return { r, out: h.emitted.map((e) => e.data) };
}

describe("group_by ports", () => {
  test("Go's names, labels, positions and example output", () => {
    expect(groupBy.info).toMatchObject({ name: "group_by", description: "Group By", tags: ["SDK", "Array", "Aggregate"] });
    expect(groupBy.ports().map((p) => [p.name, p.label, p.source, p.position, p.configuration])).toEqual([
      ["in", "In", false, "left", { context: null, items: null, groupByPath: "" }],
      [
        "out",
        "Out",
        true,
        "right",
        {
          groups: [
            { key: "group-a", items: [], count: 2 },
            { key: "group-b", items: [], count: 1 },
          ],
          total: 3,
        },
      ],
    ]);
  });
});

describe("group_by", () => {
  const pods = [
    { name: "a", labels: { app: "web" } },
    { name: "b", labels: { app: "api" } },
    { name: "c", labels: { app: "web" } },
    { name: "d", labels: {} },
  ];

  test("groups by a dot path, sorted by key, each with its items in input order and a count", async () => {
    const { out } = await group(pods, "labels.app", { run: 1 });
    expect(out).toEqual([
      {
        context: { run: 1 },
        groups: [
          { key: "", items: [pods[3]], count: 1 },
          { key: "api", items: [pods[1]], count: 1 },
          { key: "web", items: [pods[0], pods[2]], count: 2 },
        ],
        total: 4,
      },
    ]);
  });

  test("returns the downstream result; a null context is left out (Go omitempty)", async () => {
    const h = await testComponent(groupBy);
    h.respond("out", () => ok("next"));
    expect(await h.send("in", { items: [1], groupByPath: "x" })).toEqual(ok("next"));
    expect(h.emitted[0]!.data).toEqual({ groups: [{ key: "", items: [1], count: 1 }], total: 1 });
    h.respond("out", () => fail(new Error("down")));
    expect(errorOf(await h.send("in", { items: [1], groupByPath: "x" }))?.message).toBe("down");
  });

  test("keys are Go's %v of the value: numbers in %g form, booleans, objects and lists", async () => {
    const items = [{ v: 3 }, { v: 1000000 }, { v: 1.5 }, { v: true }, { v: { b: 1, a: [2, null] } }, { v: [1, "x"] }, { v: "3" }];
    const { out } = await group(items, "v");
    expect((out[0] as { groups: { key: string; count: number }[] }).groups.map((g) => [g.key, g.count])).toEqual([
      ["1.5", 1],
      ["1e+06", 1],
      ["3", 2], // the number 3 and the string "3" share a key, as in Go
      ["[1 x]", 1],
      ["map[a:[2 <nil>] b:1]", 1],
      ["true", 1],
    ]);
  });

  test("a missing field, a null, or a path through a list, a string or a number groups under an empty key", async () => {
    const items = [{ a: null }, {}, { a: [{ b: 1 }] }, { a: "s" }, { a: 5 }, "plain", null, 7];
    const { out } = await group(items, "a.b");
    expect(out[0]).toEqual({ groups: [{ key: "", items, count: 8 }], total: 8 });
  });

  test("keys sort in Go's byte order (upper case first; U+FFFF before an emoji)", async () => {
    const items = ["b", "B", "a", "\u{1F600}", "\uFFFF"].map((k) => ({ k }));
    const { out } = await group(items, "k");
    expect((out[0] as { groups: { key: string }[] }).groups.map((g) => g.key)).toEqual(["B", "a", "b", "\uFFFF", "\u{1F600}"]);
  });

  test("only own fields are read: __proto__ and constructor are ordinary keys", async () => {
    const items = [JSON.parse('{"__proto__": {"x": "p"}}'), { constructor: "c" }, {}];
    expect(((await group(items, "__proto__.x")).out[0] as { groups: { key: string }[] }).groups.map((g) => g.key)).toEqual(["", "p"]);
    expect(((await group(items, "constructor")).out[0] as { groups: { key: string }[] }).groups.map((g) => g.key)).toEqual(["", "c"]);
  });

  test("an empty or missing items list gives no groups and total 0", async () => {
    expect((await group([], "a")).out[0]).toEqual({ groups: [], total: 0 });
    expect((await group(null, "a")).out[0]).toEqual({ groups: [], total: 0 });
  });

  test("an empty groupByPath fails the hop", async () => {
    const { r, out } = await group([1], "");
    expect(errorOf(r)).toEqual({ code: "GROUP_BY_PATH", message: "groupByPath is required" });
    expect(out).toEqual([]);
  });
});
