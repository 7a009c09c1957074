/**
 * `promql_query` — "PromQL Query" (http-module promql, components.md §2.4): runs a PromQL
 * expression against any Prometheus-compatible query API (Prometheus, Thanos, Mimir, Grafana
 * Cloud, VictoriaMetrics) and emits the matching series with their labels on `result`.
 *
 * `request` → POST (form-encoded) `<baseURL>/api/v1/query`, or `/api/v1/query_range` when
 * `rangeMinutes` > 0 (step: `stepSeconds`, else one that keeps ≤ 500 points, at least 15 s) — the
 * Prometheus HTTP API (prometheus.io/docs/prometheus/latest/querying/api/). Auth per request:
 * `username` + `token` → Basic, `token` alone → Bearer; settings add `X-Scope-OrgID` and extra
 * headers. At most 500 series and 500 points per series; `truncated` says when more matched.
 * A 429, a 5xx or a transport failure is retryable; a bad query (4xx), a body that is not the
 * API's JSON or an error envelope is not. With `enableErrorPort` failures go to `error` as
 * `{context, error, retryable}`, else they fail the hop.
 *
 * Differences from Go (docs/compatibility.md): a scalar or string result is one series (Go fails
 * with "not JSON"); NaN and ±Inf samples are null (Go cannot encode its own result); the body is
 * capped at 64 MiB (Go reads any size). Tested against a real VictoriaMetrics
 * (test/integration/promql-logql.test.ts).
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

const MAX_SERIES = 500;
const MAX_POINTS = 500;
/** Cap on the response body, bytes (a careless query can match a lot). */
const MAX_BODY_BYTES = 64 * 1024 * 1024;

const Settings = queryApiSettingsSchema({
  baseURL:
    "Root of the metrics API, e.g. http://prometheus-server.monitoring.svc.cluster.local or https://prometheus-prod-01.grafana.net/api/prom. The /api/v1 path is appended.",
  orgID: "Tenant header for multi-tenant backends (Mimir, Grafana Cloud, Cortex). Leave empty for a single-tenant Prometheus.",
});

const Request = Type.Object(
  {
    context: Type.Optional(contextField("Passed through to the result unchanged.")),
    query: Type.String({
      title: "PromQL",
      format: "textarea",
      description: "PromQL expression, e.g. sum(rate(container_cpu_usage_seconds_total[5m])) by (pod).",
    }),
    rangeMinutes: Type.Optional(
      Type.Integer({ title: "Range (minutes)", description: "Query over a window instead of at an instant. Empty or 0 evaluates once, now." }),
    ),
    stepSeconds: Type.Optional(
      Type.Integer({ title: "Step (seconds)", description: "Resolution of a range query. Defaults to a step that keeps the series under 500 points." }),
    ),
    ...queryApiCredentialFields(),
  },
  { $id: "Request" },
);

const Point = Type.Object(
  {
    at: Type.Optional(Type.String({ title: "At", description: "RFC3339." })),
    value: Type.Optional(Type.Union([Type.Number(), Type.Null()], { title: "Value" })),
  },
  { $id: "Point" },
);

const Series = Type.Object(
  {
    labels: Type.Optional(Type.Record(Type.String(), Type.String(), { title: "Labels" })),
    value: Type.Optional(
      Type.Union([Type.Number(), Type.Null()], { title: "Value", description: "Latest sample. For a range query this is the most recent point." }),
    ),
    points: Type.Optional(Type.Array(Point, { title: "Points", description: "Samples over the window, oldest first. Empty for an instant query." })),
  },
  { $id: "Series" },
);

const Result = Type.Object(
  {
    context: Type.Optional(mark(Type.Unknown({ $id: "Context" }), { title: "Context" })),
    series: Type.Optional(Type.Array(Series, { title: "Series", description: "Matching metric streams." })),
    count: Type.Optional(Type.Integer({ title: "Count", description: "Series returned." })),
    truncated: Type.Optional(Type.Boolean({ title: "Truncated", description: "True when the query matched more series than were returned." })),
  },
  { $id: "Result" },
);

/** One series of `result` (`value` null for a NaN or ±Inf sample). */
export interface SeriesOut {
  labels: Record<string, string>;
  value: number | null;
  points?: { at: string; value: number | null }[];
}

/** A sample value as the API encodes it (a string, to carry NaN and ±Inf); non-finite → null, unreadable → 0 (Go). */
function sampleValue(v: unknown): number | null {
  if (typeof v === "number") return Number.isFinite(v) ? v : null;
  if (typeof v !== "string") return 0;
  if (/^[+-]?(inf|infinity|nan)$/i.test(v.trim())) return null;
  const n = Number(v);
  return v.trim() === "" || Number.isNaN(n) ? 0 : n;
}

/** A sample time (unix seconds, number or string) as RFC 3339 in UTC, whole seconds (Go `sampleTime`). */
function sampleTime(v: unknown): string {
  const t = typeof v === "number" ? v : typeof v === "string" ? Number(v) : Number.NaN;
  return Number.isFinite(t) ? formatRfc3339(new Date(Math.trunc(t) * 1000), "utc") : "";
}

type PromResult = { metric?: Record<string, string> | null; value?: unknown[]; values?: unknown[][] };

/**
 * The series of a query API body (Go `parse`), at most 500 with at most 500 points each.
 * @throws a permanent error for a body that is not the API's JSON or an error envelope.
 */
export function parseSeries(body: string): { series: SeriesOut[]; truncated: boolean } {
  let doc: { status?: unknown; error?: unknown; data?: { resultType?: unknown; result?: unknown } };
  try {
    doc = JSON.parse(body) as typeof doc;
  } catch (err) {
    throw permanent(new Error(`metrics API returned a body that is not JSON: ${(err as Error).message}`));
  }
  // The API answers 200 with status "error" for some failures: the HTTP code alone is not enough.
  if (doc?.status !== undefined && doc.status !== "" && doc.status !== "success")
    throw permanent(new Error(`metrics API error: ${typeof doc.error === "string" ? doc.error : ""}`));
  const data = doc?.data ?? {};
  if (data.resultType === "scalar" || data.resultType === "string") {
    return { series: [{ labels: {}, value: Array.isArray(data.result) ? sampleValue(data.result[1]) : 0 }], truncated: false };
  }
  const results = (Array.isArray(data.result) ? data.result : []) as PromResult[];
  let truncated = results.length > MAX_SERIES;
  const series = results.slice(0, MAX_SERIES).map((r) => {
    const s: SeriesOut = { labels: r.metric ?? {}, value: 0 };
    if (Array.isArray(r.value) && r.value.length === 2) s.value = sampleValue(r.value[1]);
    const points: { at: string; value: number | null }[] = [];
    for (const v of Array.isArray(r.values) ? r.values : []) {
      if (!Array.isArray(v) || v.length !== 2) continue;
      if (points.length >= MAX_POINTS) {
        truncated = true;
        break;
      }
      points.push({ at: sampleTime(v[0]), value: sampleValue(v[1]) });
    }
    // A range query's newest point is the current reading a threshold check wants.
    if (points.length > 0) {
      s.points = points;
      s.value = points[points.length - 1]!.value;
    }
    return s;
  });
  return { series, truncated };
}

/** The endpoint and form of a request (Go `buildQuery`): instant, or a range ending now. */
export function buildQuery(
  baseURL: string,
  req: { query: string; rangeMinutes: number; stepSeconds: number },
  now: number,
): { url: string; form: URLSearchParams } {
  const base = baseURL.endsWith("/") ? baseURL.slice(0, -1) : baseURL;
  const form = new URLSearchParams({ query: req.query });
  if (req.rangeMinutes <= 0) return { url: `${base}/api/v1/query`, form };
  const end = Math.floor(now / 1000);
  const start = Math.floor((now - req.rangeMinutes * 60_000) / 1000);
  const step = req.stepSeconds > 0 ? req.stepSeconds : Math.max(15, Math.floor((req.rangeMinutes * 60) / MAX_POINTS));
  form.set("start", String(start));
  form.set("end", String(end));
  form.set("step", String(step));
  return { url: `${base}/api/v1/query_range`, form };
}

export default defineComponent({
  info: {
    name: "promql_query",
    description: "PromQL Query",
    info:
      "Runs a PromQL query against any Prometheus-compatible API and returns the matching series with their labels. Set rangeMinutes to query a window instead of an instant — that is what shows a trend rather than a single number. " +
      "Addressed by URL, so it works with an in-cluster Prometheus as well as Grafana Cloud, Amazon Managed Prometheus, Thanos, Mimir or VictoriaMetrics; set the tenant header for the multi-tenant ones. " +
      "Give the credential per request from the trigger widget rather than storing it in the flow. A malformed query is permanent and will not be retried; an unreachable or overloaded backend is retryable.",
    tags: ["Observability", "Metrics", "Agent"],
  },
  state: (): { settings: QueryApiSettings } => ({ settings: defaultQueryApiSettings() }),
  ports: (self) => [
    target("_settings", Settings, { label: "Settings", position: "top", default: queryApiSettingsDefault(self.settings) }),
    target("request", Request, { label: "Request", position: "left", default: { query: "" } }),
    // A concrete example, so an edge reading $.series[0].value checks when the flow is built.
    source("result", Result, {
      label: "Result",
      position: "right",
      default: { series: [{ labels: { pod: "example-pod" }, value: 0.42, points: [{ at: "2026-07-30T00:00:00Z", value: 0.42 }] }], count: 1, truncated: false },
    }),
    ...errorMessagePort(self.settings.enableErrorPort),
  ],
  onSettings(ctx, s) {
    ctx.self.settings = checkQueryApiSettings(s);
  },
  async handle(ctx, output, _port, data) {
    const set = ctx.self.settings;
    const failWith = (err: Error) => emitErrorOrFail(set.enableErrorPort, output, err, data.context);
    const problem = queryApiRequestProblem(data.query, set);
    if (problem) return failWith(problem);
    const { url, form } = buildQuery(set.baseURL, { query: data.query, rangeMinutes: data.rangeMinutes ?? 0, stepSeconds: data.stepSeconds ?? 0 }, Date.now());
    let parsed: ReturnType<typeof parseSeries>;
    try {
      // POST: a real expression easily outgrows what some proxies allow in a URL; the API takes both.
      const call = {
        method: "POST",
        url,
        form,
        token: data.token ?? "",
        username: data.username ?? "",
        backend: "metrics API",
        transportPrefix: `query ${url}`,
        maxBodyBytes: MAX_BODY_BYTES,
      } as const;
      parsed = parseSeries(await callQueryApi(set, call, ctx.signal));
    } catch (err) {
      return failWith(err as Error);
    }
    return output(
      "result",
      omitEmpty({ context: data.context, series: parsed.series, count: parsed.series.length, truncated: parsed.truncated }, { interfaces: ["context"] }),
    );
  },
});
