/**
 * `run_start` — "Start Run & Reply" (common-module runstart, components.md §1.19): the front door
 * into a durable run. A message on `in` starts a run (Go `module.BeginRun`, here `beginRun`), sends
 * `{context}` on `out` as the run's first step, then answers on `started` with `{context, runID}`
 * on the caller's own (classic) path — e.g. back to an http_server response, so the caller gets a
 * handle to poll with `run_status` while the run goes on.
 *
 * On the JetStream transport the `out` hop returns as soon as the broker stored it, and the run's
 * steps run on any replica, surviving restarts; without JetStream the run's hops are blocking and
 * `started` follows the chain's end (docs/authoring.md "Durable runs"). Downstream nodes need no
 * label: every hop emitted under the run belongs to it.
 */
import { beginRun, defineComponent, mark, omitEmpty, source, target, Type } from "tinyhost";

const context = (description?: string) =>
  mark(Type.Unknown({ $id: "Context" }), { configurable: true, title: "Context", ...(description ? { description } : {}) });

const Request = Type.Object({ context: Type.Optional(context("Payload to send into the run")) }, { $id: "Request" });
/** Go `OutMessage`: the passthrough under `context`, so downstream reads `$.context.<field>`. */
const Out = Type.Object({ context: Type.Optional(context("Passthrough — the message, unchanged")) }, { $id: "OutMessage" });
const Started = Type.Object(
  {
    context: Type.Optional(context()),
    runID: Type.Optional(Type.String({ title: "Run ID", description: "The run's id — check it with Run Status" })),
  },
  { $id: "Started" },
);

export default defineComponent({
  info: {
    name: "run_start",
    description: "Start Run & Reply",
    info: "Starts a run and immediately returns its id, so a caller — like an HTTP request — gets an instant reply while the work keeps going. Send your payload in on In; wire Started back to your reply (e.g. an HTTP Response) to hand back the run id; everything after Out runs as a run you can watch and retry.",
    tags: ["run", "reply"],
  },
  ports: () => [
    target("in", Request, { label: "In", position: "left", default: { context: null } }),
    source("out", Out, { label: "Out", position: "right", default: { context: null } }),
    source("started", Started, { label: "Started", position: "bottom", default: { runID: "" } }),
  ],
  async handle(ctx, output, _port, data) {
    // The chain after `out` runs under the new run identity; the reply below stays classic.
    const { runId, result } = await beginRun(ctx, () => output("out", { context: data.context }));
    if (result.kind === "fail") return result;
    return output("started", omitEmpty({ context: data.context, runID: runId }, { interfaces: ["context"] }));
  },
});
