/**
 * `array_split` — "Split Array" (components.md §1.5): emits one `{context, item, index, total}` per
 * element of `array` on `out`, one after another, each after the previous downstream returned.
 * Stops at the first failed result and returns it; otherwise returns an empty result (the
 * downstream values are not passed up). A `null` array (e.g. an expression that found nothing) is
 * split into nothing, as Go's nil slice is.
 */
import { defineComponent, empty, source, target, Type } from "tinyhost";

// Go `split` port types (common-module `InMessage`, `OutMessage`); `$id`s are the Go type names.
const In = Type.Object(
  {
    context: Type.Optional(Type.Unknown({ $id: "Context", configurable: true, title: "Context", description: "Passed on unchanged with every item" })),
    // Go `[]ItemContext`: a missing or null array decodes as a nil slice (null), split into nothing.
    array: Type.Union([Type.Array(Type.Unknown({ $id: "ItemContext" })), Type.Null()], { shared: true, title: "Array", description: "Items to emit one by one" }),
  },
  { $id: "InMessage" },
);

const Out = Type.Object(
  {
    context: Type.Optional(Type.Unknown({ $id: "Context" })),
    item: Type.Optional(Type.Unknown({ $id: "ItemContext", shared: true })),
    index: Type.Optional(Type.Integer({ title: "Index", description: "0-based position of this item in the array" })),
    total: Type.Optional(Type.Integer({ title: "Total", description: "Number of items in the array" })),
  },
  { $id: "OutMessage" },
);

export default defineComponent({
  info: {
    name: "array_split",
    description: "Split Array",
    info: "Emits one message per array element on Out: {context, item, index, total}. Items go one at a time, the next after the previous Out returned; the first failure stops the iteration and is returned.",
    tags: ["SDK", "ARRAY"],
  },
  ports: () => [
    target("in", In, { label: "In", position: "left", default: { context: null, array: null } }),
    source("out", Out, { label: "Out", position: "right", default: { context: null, item: null, index: 0, total: 0 } }),
  ],
  async handle(_ctx, output, _port, data) {
    const items = data.array ?? [];
    const total = items.length;
    const context = data.context ?? null;
    for (let index = 0; index < total; index++) {
      const r = await output("out", { context, item: items[index] ?? null, index, total });
      if (r.kind === "fail") return r;
    }
    return empty;
  },
});
