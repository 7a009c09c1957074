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
    context: Type.Optional(Type.Unknown({ $id: "Context", configurable: true, title: "Context", description: "Message to be send further with each item" })),
    // Go `[]ItemContext`: a missing or null array decodes as a nil slice (null), split into nothing.
    array: Type.Union([Type.Array(Type.Unknown({ $id: "ItemContext" })), Type.Null()], {
      shared: true,
      title: "Array",
      description: "Array of items to be split",
    }),
  },
  { $id: "InMessage" },
);

const Out = Type.Object(
  {
    context: Type.Optional(Type.Unknown({ $id: "Context" })),
    item: Type.Optional(Type.Unknown({ $id: "ItemContext", shared: true })),
    index: Type.Optional(Type.Integer({ title: "Index", description: "0-based position of this item in the source array" })),
    total: Type.Optional(Type.Integer({ title: "Total", description: "Number of items in the source array" })),
  },
  { $id: "OutMessage" },
);

export default defineComponent({
  info: {
    name: "array_split",
    description: "Split Array",
    info: "Array iterator. Input: context + array. Emits one message per array element on Out, each containing {context, item, index, total} — index is the element's 0-based position, total the array length, context the incoming message's context passed through unchanged per item. Elements are processed sequentially - next item sent after previous Out completes. Use to process lists item by item. For map-reduce, pair with `collect`: route each item through the per-item work, map index/total (and a group key unique per source message) into collect, and it reassembles the array once all items arrive.",
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
