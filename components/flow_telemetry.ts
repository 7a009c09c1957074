/**
 * `flow_telemetry` — "Flow Telemetry" (common-module flowtelemetry, components.md §1.23): lets a
 * flow read the platform's own execution traces from the trace collector the platform installs
 * (`tinysystems-otel-collector:2345` in the module's namespace; `TraceStatsClient`).
 *
 * Without `traceId` it lists the project's (or one flow's) runs in the last `lookbackMinutes`
 * (default 60), newest first as the collector pages them: `{id, spans, errors, durationMs,
 * startedAt}`, `errorsOnly` keeping the failed ones. The scan pages through the window (at most 100
 * pages, 5,000 traces scanned, 200 returned); `scanned`, `total` and `truncated` say whether the
 * whole window was read. With `traceId` it returns that run's hops, each span's `from`/`to` port.
 * A collector that cannot be reached is retryable; a request without `project` is not. With
 * `enableErrorPort` failures go to `error` as `{context, error, retryable}`.
 */
import {
  contextField,
  defineComponent,
  emitErrorOrFail,
  errorMessagePort,
  errorMessagePortSetting,
  formatRfc3339,
  mark,
  omitEmpty,
  permanent,
  retryable,
  source,
  target,
  type TraceSpan,
  TraceStatsClient,
  type TraceSummary,
  Type,
} from "tinyhost";

const DEFAULT_LOOKBACK_MINUTES = 60;
/** Traces returned at most: a busy project holds thousands per hour, and the list is one message. */
export const MAX_TRACES = 200;
/** Traces examined at most while looking for matches (errorsOnly reads past its results). */
export const MAX_SCAN = 5000;
/** Pages read at most: a backstop against a collector that keeps answering the same page. */
export const MAX_PAGES = 100;
/** Deadline of one collector call, ms. */
const CALL_DEADLINE_MS = 30_000;

const Settings = Type.Object(
  {
    otelService: Type.String({ title: "Collector Service", description: "Kubernetes service name of the otel-collector holding the traces." }),
    otelPort: Type.Integer({ title: "Collector Port", description: "Port of the collector's statistics service." }),
    namespace: Type.Optional(Type.String({ title: "Namespace", description: "Namespace the collector runs in. Defaults to this module's own namespace." })),
    enableErrorPort: errorMessagePortSetting(),
  },
  { $id: "Settings" },
);

const Request = Type.Object(
  {
    context: Type.Optional(contextField("Passed through to the result unchanged.")),
    project: Type.String({ title: "Project", description: "Project whose traces to read — the resource name, e.g. the one list_projects reports." }),
    flow: Type.Optional(Type.String({ title: "Flow", description: "Limit to one flow. Empty reads every flow in the project." })),
    traceId: Type.Optional(
      Type.String({ title: "Trace ID", description: "Fetch this single trace's spans instead of a list. Use an id from a previous list result." }),
    ),
    lookbackMinutes: Type.Optional(Type.Integer({ title: "Lookback (minutes)", description: "How far back to look when listing. Defaults to 60." })),
    errorsOnly: Type.Optional(Type.Boolean({ title: "Errors Only", description: "List only traces that recorded at least one error." })),
  },
  { $id: "Request" },
);

const Trace = Type.Object(
  {
    id: Type.Optional(Type.String({ title: "Trace ID" })),
    spans: Type.Optional(Type.Integer({ title: "Spans", description: "Hops the run made." })),
    errors: Type.Optional(Type.Integer({ title: "Errors" })),
    durationMs: Type.Optional(Type.Integer({ title: "Duration (ms)" })),
    startedAt: Type.Optional(Type.String({ title: "Started At", description: "RFC3339." })),
  },
  { $id: "Trace" },
);

const Span = Type.Object(
  {
    id: Type.Optional(Type.String({ title: "Span ID" })),
    name: Type.Optional(Type.String({ title: "Name" })),
    from: Type.Optional(Type.String({ title: "From", description: "Source node and port." })),
    to: Type.Optional(Type.String({ title: "To", description: "Target node and port." })),
    durationMs: Type.Optional(Type.Integer({ title: "Duration (ms)" })),
  },
  { $id: "Span" },
);

const Result = Type.Object(
  {
    context: Type.Optional(mark(Type.Unknown({ $id: "Context" }), { title: "Context" })),
    traces: Type.Optional(Type.Array(Trace, { title: "Traces", description: "Matching runs, newest first. Empty when a single trace was requested." })),
    spans: Type.Optional(Type.Array(Span, { title: "Spans", description: "Hops of the requested trace. Empty when listing." })),
    total: Type.Optional(Type.Integer({ title: "Total", description: "Traces the collector holds for the window, before any filtering." })),
    errorTraces: Type.Optional(Type.Integer({ title: "Error Traces", description: "Traces with at least one error among those scanned." })),
    scanned: Type.Optional(Type.Integer({ title: "Scanned", description: "Traces examined. Below total when the scan stopped early." })),
    truncated: Type.Optional(
      Type.Boolean({
        title: "Truncated",
        description: "True when the scan stopped before the end of the window — treat an empty result as inconclusive, and narrow the window or the flow.",
      }),
    ),
  },
  { $id: "Result" },
);

interface TelemetrySettings {
  otelService: string;
  otelPort: number;
  namespace: string;
  enableErrorPort: boolean;
}

/** Per-node instance state. */
export interface TelemetrySelf {
  settings: TelemetrySettings;
  /** The module's namespace, from the module client (Go `OnClient`). */
  moduleNamespace: string;
  /** Where the collector's statistics service is for these settings (a seam for tests). */
  address: (settings: TelemetrySettings, namespace: string) => string;
}

/** Where to look for the collector: the setting, the module's namespace, POD_NAMESPACE, then `tinysystems`. */
function resolveNamespace(self: TelemetrySelf): string {
  return self.settings.namespace || self.moduleNamespace || process.env.POD_NAMESPACE || "tinysystems";
}

/** The list scan over the window (Go `list`), page by page; see the file comment for its bounds. */
export async function scanTraces(
  page: (offset: number) => Promise<{ traces: TraceSummary[]; total: number }>,
  errorsOnly: boolean,
): Promise<{
  traces: { id: string; spans: number; errors: number; durationMs: number; startedAt: string }[];
  total: number;
  errorTraces: number;
  scanned: number;
  truncated: boolean;
}> {
  const traces: { id: string; spans: number; errors: number; durationMs: number; startedAt: string }[] = [];
  const seen = new Set<string>();
  let errorTraces = 0;
  let scanned = 0;
  let total = 0;
  let offset = 0;
  let truncated = false;
  for (let n = 0; n < MAX_PAGES; n++) {
    const res = await page(offset);
    total = res.total;
    if (res.traces.length === 0) break;
    for (const t of res.traces) {
      if (seen.has(t.id)) continue; // a collector that ignores the offset would repeat a page
      seen.add(t.id);
      scanned++;
      if (errorsOnly && t.errors === 0) continue;
      if (t.errors > 0) errorTraces++;
      if (traces.length >= MAX_TRACES) continue;
      traces.push({
        id: t.id,
        spans: t.spans,
        errors: t.errors,
        durationMs: Math.trunc(t.durationNs / 1e6),
        startedAt: formatRfc3339(new Date(Math.trunc(t.startUs / 1000)), "utc"),
      });
    }
    offset += res.traces.length;
    if (traces.length >= MAX_TRACES) {
      truncated = total > 0 && offset < total; // only complete when nothing is left
      break;
    }
    if (scanned >= MAX_SCAN) {
      truncated = true;
      break;
    }
    if (total > 0 && offset >= total) break;
  }
  return { traces, total, errorTraces, scanned, truncated };
}

export default defineComponent({
  info: {
    name: "flow_telemetry",
    description: "Flow Telemetry",
    info:
      "Reads the platform's own execution traces, so a flow can inspect how flows are running. Without a traceId it lists runs in the window (id, span count, error count, duration) — set errorsOnly to find failures. With a traceId it returns that run's hops, each naming the source and target port, which is how you find WHERE a run broke. " +
      "Needs the project's resource name. Works on any install: the traces come from the otel-collector the operator already deploys, with no Prometheus or external backend involved. " +
      "Pair it with an LLM to diagnose a failing automation, or with a cron to report what broke overnight.",
    tags: ["SDK", "Observability", "Agent"],
  },
  state: (): TelemetrySelf => ({
    settings: { otelService: "tinysystems-otel-collector", otelPort: 2345, namespace: "", enableErrorPort: false },
    moduleNamespace: "",
    // In-cluster the collector is reached at its Service address directly (no port-forward).
    address: (s, ns) => `${s.otelService}.${ns}.svc.cluster.local:${s.otelPort}`,
  }),
  ports: (self) => [
    target("_settings", Settings, { label: "Settings", position: "top", default: omitEmpty(self.settings, { values: ["namespace"] }) as TelemetrySettings }),
    target("request", Request, { label: "Request", position: "left", default: { project: "" } }),
    // Concrete examples, so an edge reading $.traces[0].id or $.spans[0].from checks when the flow is built.
    source("result", Result, {
      label: "Result",
      position: "right",
      default: {
        traces: [{ id: "abc123", spans: 4, errors: 1, durationMs: 120, startedAt: "2026-07-30T00:00:00Z" }],
        spans: [{ id: "s1", name: "hop", from: "node-a:out", to: "node-b:in", durationMs: 12 }],
        total: 0,
        errorTraces: 0,
        scanned: 0,
        truncated: false,
      },
    }),
    ...errorMessagePort(self.settings.enableErrorPort),
  ],
  onClient(ctx, client) {
    ctx.self.moduleNamespace = client.namespace;
  },
  onSettings(ctx, s) {
    if (s.otelService.trim() === "") throw new Error('collector service is required: settings field "otelService" is empty');
    if (s.otelPort <= 0) throw new Error(`collector port must be positive: settings field "otelPort" is ${s.otelPort}`);
    ctx.self.settings = { otelService: s.otelService, otelPort: s.otelPort, namespace: s.namespace ?? "", enableErrorPort: s.enableErrorPort ?? false };
  },
  async handle(ctx, output, _port, data) {
    const self = ctx.self;
    const onError = (err: Error) => emitErrorOrFail(self.settings.enableErrorPort, output, err, data.context);
    if (data.project.trim() === "") return onError(permanent(new Error('project is required: field "project" is empty')));
    const client = new TraceStatsClient(self.address(self.settings, resolveNamespace(self)));
    try {
      if (data.traceId) {
        let spans: TraceSpan[];
        try {
          spans = await client.getTrace({ project: data.project, traceId: data.traceId }, CALL_DEADLINE_MS, ctx.signal);
        } catch (err) {
          return onError(retryable(new Error(`get trace ${data.traceId}: ${(err as Error).message}`, { cause: err })));
        }
        return output(
          "result",
          omitEmpty(
            { context: data.context, traces: [], spans: hops(spans), total: 0, errorTraces: 0, scanned: 0, truncated: false },
            { interfaces: ["context"], values: ["spans"] },
          ),
        );
      }
      const lookback = (data.lookbackMinutes ?? 0) > 0 ? data.lookbackMinutes! : DEFAULT_LOOKBACK_MINUTES;
      const end = new Date();
      const start = new Date(end.getTime() - lookback * 60_000);
      let scan: Awaited<ReturnType<typeof scanTraces>>;
      try {
        scan = await scanTraces(
          (offset) => client.getTraces({ project: data.project, flow: data.flow ?? "", start, end, offset }, CALL_DEADLINE_MS, ctx.signal),
          data.errorsOnly ?? false,
        );
      } catch (err) {
        // An unreachable or busy collector is transient: a retry may well succeed.
        return onError(retryable(new Error(`list traces: ${(err as Error).message}`, { cause: err })));
      }
      return output("result", omitEmpty({ context: data.context, ...scan }, { interfaces: ["context"] }));
    } finally {
      await client.close();
    }
  },
});

/** One run's hops (Go `detail`): which port sent each, which received it (span attributes `from`, `to`). */
function hops(spans: readonly TraceSpan[]) {
  return spans.map((s) =>
    omitEmpty(
      { id: s.spanId, name: s.name, from: s.attributes.from ?? "", to: s.attributes.to ?? "", durationMs: Number((s.endNs - s.startNs) / 1_000_000n) },
      { values: ["from", "to"] },
    ),
  );
}
