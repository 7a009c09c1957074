/**
 * `logql_query` — "LogQL Query" (http-module logql, components.md §2.4): searches Loki for log
 * lines across every pod at once and emits them, newest first, each with its stream labels.
 *
 * `request` → GET `<baseURL>/loki/api/v1/query_range?direction=backward&end=…&limit=…&query=…&start=…`
 * (nanosecond times; window `rangeMinutes`, default 60; `limit` ≤ 500, default 500) — Loki's HTTP
 * API (grafana.com/docs/loki/latest/reference/loki-http-api/#query-logs-within-a-range-of-time).
 * Auth and errors as promql_query: `username` + `token` → Basic, `token` → Bearer, `X-Scope-OrgID`
 * and extra headers from the settings; 429/5xx/transport retryable, other 4xx and bodies that are
 * not Loki's JSON permanent; `enableErrorPort` sends failures to `error` as `{context, error,
 * retryable}`. `truncated` is true when the window held at least `limit` lines.
 *
 * Differences from Go (docs/compatibility.md): lines of several streams are merged newest first
 * (Go lists stream after stream), an error envelope (`status: "error"`) and a metric query's
 * matrix/vector result fail with a message saying so (Go: "not JSON" or an empty result), a stream
 * without labels has `{}`, and the body is capped at 64 MiB. No Loki-compatible server can be built
 * here (Loki is AGPL; VictoriaLogs serves no LogQL query API): the integration test replays the
 * documented API responses from a recorded fixture (test/integration/promql-logql.test.ts).
 */
import {
  callQueryApi,
  checkQueryApiSettings,
  contextField,
  defaultQueryApiSettings,
  defineComponent,
  emitErrorOrFail,
  errorMessagePort,
  formatRfc3339,
  mark,
  omitEmpty,
  permanent,
  queryApiCredentialFields,
  queryApiRequestProblem,
  type QueryApiSettings,
  queryApiSettingsDefault,
  queryApiSettingsSchema,
  source,
  target,
  Type,
} from "tinyhost";

const MAX_ENTRIES = 500;
const DEFAULT_RANGE_MINUTES = 60;
/** Cap on the response body, bytes. */
const MAX_BODY_BYTES = 64 * 1024 * 1024;

const Settings = queryApiSettingsSchema({
  baseURL: "Root of the Loki API, e.g. http://loki.monitoring.svc.cluster.local:3100 or https://logs-prod-01.grafana.net. The /loki/api/v1 path is appended.",
  orgID: "Tenant header for multi-tenant Loki. Leave empty for single-tenant.",
});

const Request = Type.Object(
  {
    context: Type.Optional(contextField("Passed through to the result unchanged.")),
    query: Type.String({
      title: "LogQL",
      format: "textarea",
      description: 'LogQL selector, e.g. {namespace="prod"} |= "error". A stream selector in braces is mandatory — Loki rejects a bare search.',
    }),
    rangeMinutes: Type.Optional(Type.Integer({ title: "Range (minutes)", description: "Window to search. Defaults to 60." })),
    limit: Type.Optional(Type.Integer({ title: "Limit", description: "Maximum log lines. Capped at 500." })),
    ...queryApiCredentialFields(),
  },
  { $id: "Request" },
);

const Entry = Type.Object(
  {
    at: Type.Optional(Type.String({ title: "At", description: "RFC3339." })),
    line: Type.Optional(Type.String({ title: "Line" })),
    labels: Type.Optional(Type.Record(Type.String(), Type.String(), { title: "Labels", description: "Stream labels — namespace, pod, container." })),
  },
  { $id: "Entry" },
);

const Result = Type.Object(
  {
    context: Type.Optional(mark(Type.Unknown({ $id: "Context" }), { title: "Context" })),
    entries: Type.Optional(Type.Array(Entry, { title: "Entries", description: "Matching lines, newest first." })),
    count: Type.Optional(Type.Integer({ title: "Count" })),
    truncated: Type.Optional(
      Type.Boolean({
        title: "Truncated",
        description:
          "True when the query matched more lines than were returned — narrow the window or the selector before concluding anything from the sample.",
      }),
    ),
  },
  { $id: "Result" },
);

/** One line of `result`. */
export interface EntryOut {
  at: string;
  line: string;
  labels: Record<string, string>;
}

/** Nanoseconds since the epoch (decimal text) as RFC 3339 in UTC, whole seconds (Go `nanosToRFC3339`). */
function nanosToRfc3339(ns: string): string {
  if (!/^-?\d+$/.test(ns)) return "";
  return formatRfc3339(new Date(Number(BigInt(ns) / 1_000_000n)), "utc");
}

/**
 * The lines of a Loki `query_range` body, newest first across streams, at most 500.
 * @throws a permanent error for a body that is not Loki's JSON, an error envelope, or a metric result.
 */
export function parseEntries(body: string): EntryOut[] {
  let doc: { status?: unknown; error?: unknown; data?: { resultType?: unknown; result?: unknown } };
  try {
    doc = JSON.parse(body) as typeof doc;
  } catch (err) {
    throw permanent(new Error(`loki returned a body that is not JSON: ${(err as Error).message}`));
  }
  if (doc?.status !== undefined && doc.status !== "" && doc.status !== "success")
    throw permanent(new Error(`loki error: ${typeof doc.error === "string" ? doc.error : JSON.stringify(doc.status)}`));
  const type = doc?.data?.resultType;
  if (type === "matrix" || type === "vector" || type === "scalar") {
    throw permanent(
      new Error(
        `loki returned a ${type} result: this is a metric query; logql_query reads log lines (a stream selector with filters), promql_query reads metrics`,
      ),
    );
  }
  const lines: { ns: bigint; entry: EntryOut }[] = [];
  for (const stream of (Array.isArray(doc?.data?.result) ? doc.data.result : []) as { stream?: Record<string, string> | null; values?: unknown }[]) {
    for (const v of Array.isArray(stream?.values) ? stream.values : []) {
      if (!Array.isArray(v) || v.length !== 2 || typeof v[0] !== "string" || typeof v[1] !== "string") continue;
      lines.push({ ns: /^-?\d+$/.test(v[0]) ? BigInt(v[0]) : 0n, entry: { at: nanosToRfc3339(v[0]), line: v[1], labels: stream.stream ?? {} } });
    }
  }
  // Newest first across streams (a stable sort keeps Loki's order for equal times).
  lines.sort((a, b) => (a.ns === b.ns ? 0 : a.ns > b.ns ? -1 : 1));
  return lines.slice(0, MAX_ENTRIES).map((l) => l.entry);
}

/** The `query_range` URL for a request ending at `nowMs` (keys in Go's `url.Values.Encode` order). */
export function queryRangeUrl(baseURL: string, query: string, rangeMinutes: number, limit: number, nowMs: number): string {
  const base = baseURL.endsWith("/") ? baseURL.slice(0, -1) : baseURL;
  const endNs = BigInt(nowMs) * 1_000_000n;
  const startNs = endNs - BigInt(rangeMinutes) * 60_000_000_000n;
  // Newest first: an agent asking what just broke reads the top of the list.
  const q = new URLSearchParams([
    ["direction", "backward"],
    ["end", String(endNs)],
    ["limit", String(limit)],
    ["query", query],
    ["start", String(startNs)],
  ]);
  return `${base}/loki/api/v1/query_range?${q.toString()}`;
}

export default defineComponent({
  info: {
    name: "logql_query",
    description: "LogQL Query",
    info:
      "Searches Loki for log lines across every pod at once, which is what pod_logs_get cannot do — it needs an exact pod name. Returns each line with its stream labels, so an agent can say which pod and namespace produced it. " +
      'The query needs a stream selector in braces: {namespace="prod"} |= "error". Addressed by URL, so an in-cluster Loki and Grafana Cloud work the same way; set the tenant header for multi-tenant installs. ' +
      "Give the credential per request from the trigger widget rather than storing it in the flow. Check truncated before concluding anything — a capped sample is not the whole picture.",
    tags: ["Observability", "Logs", "Agent"],
  },
  state: (): { settings: QueryApiSettings } => ({ settings: defaultQueryApiSettings() }),
  ports: (self) => [
    target("_settings", Settings, { label: "Settings", position: "top", default: queryApiSettingsDefault(self.settings) }),
    target("request", Request, { label: "Request", position: "left", default: { query: "" } }),
    // A concrete example, so an edge reading $.entries[0].line checks when the flow is built.
    source("result", Result, {
      label: "Result",
      position: "right",
      default: {
        entries: [{ at: "2026-07-30T00:00:00Z", line: "example log line", labels: { namespace: "prod", pod: "example-pod" } }],
        count: 1,
        truncated: false,
      },
    }),
    ...errorMessagePort(self.settings.enableErrorPort),
  ],
  onSettings(ctx, s) {
    ctx.self.settings = checkQueryApiSettings(s);
  },
  async handle(ctx, output, _port, data) {
    const set = ctx.self.settings;
    const toErrorPort = (err: Error) => emitErrorOrFail(set.enableErrorPort, output, err, data.context);
    const problem = queryApiRequestProblem(data.query, set);
    if (problem) return toErrorPort(problem);
    const limit = (data.limit ?? 0) <= 0 || data.limit! > MAX_ENTRIES ? MAX_ENTRIES : data.limit!;
    const range = (data.rangeMinutes ?? 0) > 0 ? data.rangeMinutes! : DEFAULT_RANGE_MINUTES;
    const url = queryRangeUrl(set.baseURL, data.query, range, limit, Date.now());
    let entries: EntryOut[];
    try {
      entries = parseEntries(
        await callQueryApi(
          set,
          {
            method: "GET",
            url,
            token: data.token ?? "",
            username: data.username ?? "",
            backend: "loki",
            transportPrefix: "query loki",
            maxBodyBytes: MAX_BODY_BYTES,
          },
          ctx.signal,
        ),
      );
    } catch (err) {
      return toErrorPort(err as Error);
    }
    // Reaching the limit means the window may hold more: the sample is not the whole picture.
    return output(
      "result",
      omitEmpty({ context: data.context, entries, count: entries.length, truncated: entries.length >= limit }, { interfaces: ["context"] }),
    );
  },
});
