/**
 * `group_by` — "Group By" (Go common-module `components/groupby`): buckets `items` by the value at
 * the dot path `groupByPath` (`labels.app`: object keys only, no indexes) and emits
 * `{context, groups: [{key, items, count}], total}` on `out`, groups sorted by key in Go's string
 * order; returns the downstream result. A key is the value as Go's `%v` prints it (`3`, `1e+06`,
 * `true`, `map[a:1]`); a missing path, a `null`, or a path through anything but an object groups
 * under `""`. An empty `groupByPath` fails the hop.
 */
import { compareGoStrings, defineComponent, fail, goSprint, omitEmpty, source, target, TinyError, Type } from "tinyhost";

/** Go writes `context` with `omitempty`: a null context is left out of the output. */
const OMIT_CONTEXT = { interfaces: ["context" as const] };

/** `groupByPath` is empty (Go: "groupByPath is required"). code `"GROUP_BY_PATH"`. */
export class GroupByPathError extends TinyError<"GROUP_BY_PATH"> {
  constructor() {
    super("GROUP_BY_PATH", "groupByPath is required");
  }
}

// Go `groupby` port types; `$id`s are the Go type names (a configurable string is Go's def `String`).
const In = Type.Object(
  {
    context: Type.Optional(Type.Unknown({ $id: "Context", configurable: true, title: "Context", description: "Arbitrary data passed through to output" })),
    items: Type.Union([Type.Array(Type.Unknown({ $id: "Item" })), Type.Null()], { configurable: true, title: "Items", description: "Array of items to group" }),
    groupByPath: Type.String({
      $id: "String",
      configurable: true,
      title: "Group By Path",
      description: "JSON path to group by (e.g., 'labels.app', 'namespace', 'kind')",
    }),
  },
  { $id: "InMessage" },
);

const Group = Type.Object(
  {
    key: Type.Optional(Type.String({ title: "Key", description: "The group key value" })),
    items: Type.Optional(Type.Union([Type.Array(Type.Unknown({ $id: "Item" })), Type.Null()], { title: "Items", description: "Items in this group" })),
    count: Type.Optional(Type.Integer({ title: "Count", description: "Number of items in group" })),
  },
  { $id: "Group" },
);

const Out = Type.Object(
  {
    context: Type.Optional(Type.Unknown({ $id: "Context", title: "Context" })),
    groups: Type.Optional(Type.Union([Type.Array(Group), Type.Null()], { title: "Groups", description: "Grouped items" })),
    total: Type.Optional(Type.Integer({ title: "Total", description: "Total number of items" })),
  },
  { $id: "OutMessage" },
);

/** The key of `item` at `path` (Go `extractPath` on JSON decoded into `any`). */
function keyOf(item: unknown, path: readonly string[]): string {
  let current = item;
  for (const part of path) {
    if (current === null || current === undefined) return "";
    if (typeof current !== "object" || Array.isArray(current)) return ""; // Go: not a map (and not a struct)
    const o = current as Record<string, unknown>;
    current = Object.hasOwn(o, part) ? o[part] : undefined;
  }
  return current === null || current === undefined ? "" : goSprint(current);
}

export default defineComponent({
  info: {
    name: "group_by",
    description: "Group By",
    info: "Groups an array of items by a specified field path. Input: items array + groupByPath (e.g., 'labels.app'). Output: array of groups sorted by key, each with key, items, and count.",
    tags: ["SDK", "Array", "Aggregate"],
  },
  ports: () => [
    target("in", In, { label: "In", position: "left", default: { context: null, items: null, groupByPath: "" } }),
    source("out", Out, {
      label: "Out",
      position: "right",
      default: {
        groups: [
          { key: "group-a", items: [], count: 2 },
          { key: "group-b", items: [], count: 1 },
        ],
        total: 3,
      },
    }),
  ],
  handle(_ctx, output, _port, data) {
    if (data.groupByPath === "") return fail(new GroupByPathError());
    const items = data.items ?? [];
    const path = data.groupByPath.split(".");
    const groups = new Map<string, unknown[]>();
    for (const item of items) {
      const key = keyOf(item, path);
      const group = groups.get(key);
      if (group) group.push(item);
      else groups.set(key, [item]);
    }
    const keys = [...groups.keys()].sort(compareGoStrings);
    const out = { context: data.context, groups: keys.map((key) => ({ key, items: groups.get(key)!, count: groups.get(key)!.length })), total: items.length };
    return output("out", omitEmpty(out, OMIT_CONTEXT));
  },
});
