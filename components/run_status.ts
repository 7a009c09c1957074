/**
 * `run_status` — "Run Status" (common-module runstatus, components.md §1.20): the polling half of
 * the run_start/run_status pair. Reads a run's step records from the step ledger (`readRun`: KV
 * `TINY_EXEC` on JetStream, shared by every module and replica; node metadata otherwise, where the
 * steps of this module's nodes are seen) and answers whether the run is known, complete or failed,
 * how many emitted hops have no record yet, and each recorded step.
 */
import { defineComponent, fail, formatRfc3339Nano, mark, omitEmpty, readRun, source, target, Type, type RunView } from "tinyhost";

const context = () => mark(Type.Unknown({ $id: "Context" }), { configurable: true, title: "Context" });

const Request = Type.Object(
  {
    context: Type.Optional(context()),
    runID: Type.String({ title: "Run ID", description: "The run id (returned by Start Run & Reply)" }),
  },
  { $id: "Request" },
);

const Step = Type.Object(
  {
    stepKey: Type.Optional(Type.String({ title: "Step Key" })),
    node: Type.Optional(Type.String({ title: "Node" })),
    status: Type.Optional(Type.String({ title: "Status" })),
    error: Type.Optional(Type.String({ title: "Error" })),
    completedAt: Type.Optional(Type.String({ title: "Completed At", format: "date-time" })),
  },
  { $id: "Step" },
);

const Response = Type.Object(
  {
    context: Type.Optional(context()),
    runID: Type.Optional(Type.String({ title: "Run ID" })),
    found: Type.Optional(Type.Boolean({ title: "Found" })),
    complete: Type.Optional(Type.Boolean({ title: "Complete" })),
    failed: Type.Optional(Type.Boolean({ title: "Failed" })),
    pendingSteps: Type.Optional(Type.Integer({ title: "Pending Steps" })),
    steps: Type.Optional(Type.Array(Step, { title: "Steps" })),
  },
  { $id: "Response" },
);

/** The `response` payload for run `runId` as its ledger records it (`view` undefined: no record). */
export function runStatus(runId: string, view: RunView | undefined, context: unknown) {
  const steps = (view?.steps ?? []).map((s) =>
    omitEmpty(
      { stepKey: s.stepKey, node: s.node, status: s.status, error: s.error ?? "", completedAt: formatRfc3339Nano(s.completedAt) },
      { values: ["error"] },
    ),
  );
  const found = view !== undefined;
  const failed = view?.status === "failed";
  const pendingSteps = view?.frontier.length ?? 0;
  return omitEmpty(
    { context, runID: runId, found, complete: found && pendingSteps === 0 && !failed, failed, pendingSteps, steps },
    { interfaces: ["context"], values: ["steps"] },
  );
}

export default defineComponent({
  info: {
    name: "run_status",
    description: "Run Status",
    info: "Checks a run's progress by id: whether the run is known (found), complete, or failed, how many steps are still pending, and the per-step details. Pair with Start Run & Reply behind an HTTP request for instant-reply-then-check.",
    tags: ["run", "status"],
  },
  ports: () => [
    target("request", Request, { label: "Request", position: "left", default: { context: null, runID: "" } }),
    source("response", Response, {
      label: "Response",
      position: "right",
      default: { runID: "", found: false, complete: false, failed: false, pendingSteps: 0 },
    }),
  ],
  async handle(ctx, output, _port, data) {
    if (data.runID === "") return fail(new Error(`runID is required, got ""`));
    let view: RunView | undefined;
    try {
      view = await readRun(ctx, data.runID);
    } catch (err) {
      return fail(new Error(`ledger list: ${err instanceof Error ? err.message : String(err)}`, { cause: err }));
    }
    return output("response", runStatus(data.runID, view, data.context));
  },
});
