/**
 * `transform` (Go package `modify`) — "Modify": re-emits `{context}` on `out` and returns the
 * downstream result (components.md §1.2). The mapping happens on the edges; the component exists so
 * a reshaping edge can sit between two ports of the same node (e.g. http_server `request` →
 * transform → http_server `response`).
 */
import { defineComponent, source, target, Type } from "tinyhost";
import { contextField } from "../src/components-lib/fields.ts";
import { publishAs } from "../src/components-lib/published-schema.ts";

/** What `in` accepts: Go decodes a missing context as null. */
const InAccepted = Type.Object({ context: Type.Optional(Type.Unknown()) });
/** `in` as the editor shows it (Go `InMessage`: context required, configurable). */
const InPublished = Type.Object({ context: contextField("Arbitrary message to be modified") });
/** `out`: the message under `context`. */
const Out = Type.Object({ context: Type.Optional(contextField("Modified message")) });

export default defineComponent({
  info: {
    name: "transform",
    description: "Modify",
    info: "Sends a new message after an incoming message is received: the edge into In shapes the context, Out re-emits it under `context` and returns the downstream result.",
    tags: ["SDK"],
  },
  ports: () => [
    publishAs(target("in", InAccepted, { label: "In", position: "left", default: { context: null } }), InPublished),
    source("out", Out, { label: "Out", position: "right", default: { context: null } }),
  ],
  handle: (_ctx, output, _port, data) => output("out", { context: data.context ?? null }),
});
