/**
 * `transform` (Go package `modify`) — "Modify": re-emits `{context}` on `out` and returns the
 * downstream result (components.md §1.2). The mapping happens on the edges; the component exists so
 * a reshaping edge can sit between two ports of the same node (e.g. http_server `request` →
 * transform → http_server `response`).
 */
import { contextField, defineComponent, source, target, Type } from "tinyhost";

/** `in` (Go `InMessage`: context required in the editor, configurable; a missing one decodes as null). */
const In = Type.Object({ context: contextField("Arbitrary message to be modified") }, { $id: "InMessage" });
/** `out`: the message under `context` (Go `OutMessage`). */
const Out = Type.Object({ context: Type.Optional(contextField("Passthrough — the message, unchanged")) }, { $id: "OutMessage" });

export default defineComponent({
  info: {
    name: "transform",
    description: "Modify",
    info: "Data transformer for connecting output back to input on the SAME node (e.g., http_server request→response loops). AVOID using modify between DIFFERENT nodes - configure data mapping directly on the edge instead. Edge configuration can set literal values and map fields without needing modify in between.",
    tags: ["SDK"],
  },
  ports: () => [
    target("in", In, { label: "In", position: "left", default: { context: null } }),
    source("out", Out, { label: "Out", position: "right", default: { context: null } }),
  ],
  handle: (_ctx, output, _port, data) => output("out", { context: data.context ?? null }),
});
