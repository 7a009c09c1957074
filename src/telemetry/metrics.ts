/**
 * A tiny metrics registry rendered in the Prometheus text exposition format 0.0.4
 * (https://prometheus.io/docs/instrumenting/exposition_formats/): counters and gauges with labels,
 * plus collectors that read live values (queue depth, watcher counters) at scrape time. Written here
 * instead of prom-client because /metrics needs a few dozen series and one kind of histogram.
 */
import { TinyError } from "../core/errors.ts";

/** Label names → values of one series. Values are escaped on output. */
export type Labels = Readonly<Record<string, string>>;

/** The metric types this registry renders. */
export type MetricType = "counter" | "gauge" | "histogram";

/** One sample a collector reports. */
export interface Sample {
  /** Series labels; `{}` for none. */
  labels: Labels;
  /** The value (counters: monotonic, ≥ 0). */
  value: number;
}

/** A bad metric or label name (must match `[a-zA-Z_:][a-zA-Z0-9_:]*` / `[a-zA-Z_][a-zA-Z0-9_]*`). */
export class MetricNameError extends TinyError<"METRIC_NAME"> {
  /** @param what - `metric` or `label`. @param name - the rejected name. */
  constructor(what: "metric" | "label", name: string) {
    super("METRIC_NAME", `${what} name ${JSON.stringify(name)} is not a valid Prometheus ${what} name`);
    this.name = "MetricNameError";
  }
}

const METRIC_NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;
const LABEL_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*$/;

/** Escapes a label value: `\` → `\\`, `"` → `\"`, newline → `\n` (exposition format rules). */
export function escapeLabelValue(v: string): string {
  return v.replace(/\\/g, "\\\\").replace(/"/g, '\\"').replace(/\n/g, "\\n");
}

/** Escapes HELP text: `\` → `\\`, newline → `\n`. */
export function escapeHelp(v: string): string {
  return v.replace(/\\/g, "\\\\").replace(/\n/g, "\\n");
}

/** Formats a value as Prometheus does: `+Inf`, `-Inf`, `NaN`, or the shortest decimal form. */
export function formatValue(v: number): string {
  if (Number.isNaN(v)) return "NaN";
  if (v === Infinity) return "+Inf";
  if (v === -Infinity) return "-Inf";
  return String(v);
}

function labelKey(labels: Labels): string {
  return JSON.stringify(
    Object.keys(labels)
      .sort()
      .map((k) => [k, labels[k]]),
  );
}

function renderLabels(labels: Labels): string {
  const keys = Object.keys(labels);
  if (keys.length === 0) return "";
  return `{${keys.map((k) => `${k}="${escapeLabelValue(labels[k] ?? "")}"`).join(",")}}`;
}

function checkLabels(labels: Labels): void {
  for (const k of Object.keys(labels)) if (!LABEL_NAME.test(k) || k.startsWith("__")) throw new MetricNameError("label", k);
}

interface Family {
  name: string;
  help: string;
  type: MetricType;
  /** Stored series (counters/gauges set through the API). */
  series: Map<string, Sample>;
  /** Live series read at scrape time. */
  collectors: (() => Sample[])[];
  /** Histogram families: their bounds and series. */
  histogram?: { bounds: readonly number[]; series: Map<string, HistogramSeries> };
}

/** A counter family: `inc` only. */
export interface Counter {
  /** Adds `by` (default 1, must be ≥ 0) to the series with `labels`. */
  inc(labels?: Labels, by?: number): void;
  /** Current value of one series (0 when never incremented). */
  get(labels?: Labels): number;
}

/** A gauge family: `set`, `inc`, `dec`. */
export interface Gauge {
  /** Sets the series with `labels` to `value`. */
  set(labels: Labels, value: number): void;
  /** Adds `by` (default 1). */
  inc(labels?: Labels, by?: number): void;
  /** Subtracts `by` (default 1). */
  dec(labels?: Labels, by?: number): void;
  /** Current value of one series (0 when never set). */
  get(labels?: Labels): number;
}

/** A histogram family: cumulative `_bucket{le}`, `_sum` and `_count` per label set (exposition format "Histogram"). */
export interface Histogram {
  /** Records one observation `value` (e.g. seconds) in the series with `labels`. */
  observe(labels: Labels, value: number): void;
  /** Observations so far of one series (0 when none). */
  count(labels?: Labels): number;
}

/** Bucket upper bounds of hop handler durations, seconds (1 ms … 60 s). */
export const DURATION_BUCKETS_SECONDS: readonly number[] = [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];

interface HistogramSeries {
  labels: Labels;
  /** Non-cumulative counts per bucket; the last slot is +Inf. */
  counts: number[];
  sum: number;
  count: number;
}

/** A set of metric families rendered together by {@link MetricsRegistry.render}. */
export class MetricsRegistry {
  readonly #families = new Map<string, Family>();

  #family(name: string, help: string, type: MetricType): Family {
    if (!METRIC_NAME.test(name)) throw new MetricNameError("metric", name);
    const existing = this.#families.get(name);
    if (existing) {
      if (existing.type !== type) throw new MetricNameError("metric", `${name} (already registered as a ${existing.type})`);
      return existing;
    }
    const f: Family = { name, help, type, series: new Map(), collectors: [] };
    this.#families.set(name, f);
    return f;
  }

  #add(f: Family, labels: Labels, by: number): void {
    checkLabels(labels);
    const key = labelKey(labels);
    const s = f.series.get(key);
    if (s) s.value += by;
    else f.series.set(key, { labels: { ...labels }, value: by });
  }

  /**
   * Registers (or returns) a counter family.
   * @throws MetricNameError for an invalid name or one registered with another type.
   */
  counter(name: string, help: string): Counter {
    const f = this.#family(name, help, "counter");
    return {
      inc: (labels = {}, by = 1) => {
        if (!(by >= 0)) throw new RangeError(`counter ${name}: increment ${by} must be >= 0`);
        this.#add(f, labels, by);
      },
      get: (labels = {}) => f.series.get(labelKey(labels))?.value ?? 0,
    };
  }

  /**
   * Registers (or returns) a gauge family.
   * @throws MetricNameError as {@link counter}.
   */
  gauge(name: string, help: string): Gauge {
    const f = this.#family(name, help, "gauge");
    return {
      set: (labels, value) => {
        checkLabels(labels);
        f.series.set(labelKey(labels), { labels: { ...labels }, value });
      },
      inc: (labels = {}, by = 1) => this.#add(f, labels, by),
      dec: (labels = {}, by = 1) => this.#add(f, labels, -by),
      get: (labels = {}) => f.series.get(labelKey(labels))?.value ?? 0,
    };
  }

  /**
   * Registers (or returns) a histogram family with bucket upper bounds `bounds` (ascending; +Inf is implied).
   * @throws MetricNameError as {@link counter}; RangeError when the bounds are not ascending.
   */
  histogram(name: string, help: string, bounds: readonly number[] = DURATION_BUCKETS_SECONDS): Histogram {
    for (let i = 1; i < bounds.length; i++)
      if (!(bounds[i]! > bounds[i - 1]!)) throw new RangeError(`histogram ${name}: bucket bounds must ascend, got ${bounds.join(", ")}`);
    const f = this.#family(name, help, "histogram");
    f.histogram ??= { bounds: [...bounds], series: new Map() };
    const h = f.histogram;
    return {
      observe: (labels, value) => {
        checkLabels(labels);
        const key = labelKey(labels);
        let s = h.series.get(key);
        if (!s) {
          s = { labels: { ...labels }, counts: new Array<number>(h.bounds.length + 1).fill(0), sum: 0, count: 0 };
          h.series.set(key, s);
        }
        let i = h.bounds.findIndex((b) => value <= b);
        if (i < 0) i = h.bounds.length;
        s.counts[i]!++;
        s.sum += value;
        s.count++;
      },
      count: (labels = {}) => h.series.get(labelKey(labels))?.count ?? 0,
    };
  }

  /**
   * Registers a collector: `read` is called on every scrape and its samples are rendered under
   * `name` (after any stored series). Use it for values another object already counts.
   * @throws MetricNameError as {@link counter}.
   */
  collect(name: string, help: string, type: MetricType, read: () => Sample[]): void {
    this.#family(name, help, type).collectors.push(read);
  }

  /**
   * The whole registry in text format 0.0.4: per family `# HELP`, `# TYPE`, then one line per
   * series, families in registration order. A collector that throws contributes no samples.
   */
  render(): string {
    const out: string[] = [];
    for (const f of this.#families.values()) {
      const samples = [...f.series.values()];
      for (const read of f.collectors) {
        try {
          for (const s of read()) {
            checkLabels(s.labels);
            samples.push(s);
          }
        } catch {
          // a broken collector must not take /metrics down
        }
      }
      out.push(`# HELP ${f.name} ${escapeHelp(f.help)}`, `# TYPE ${f.name} ${f.type}`);
      for (const s of samples) out.push(`${f.name}${renderLabels(s.labels)} ${formatValue(s.value)}`);
      if (f.histogram) {
        const { bounds } = f.histogram;
        for (const h of f.histogram.series.values()) {
          let cumulative = 0;
          for (let i = 0; i <= bounds.length; i++) {
            cumulative += h.counts[i]!;
            const le = i < bounds.length ? formatValue(bounds[i]!) : "+Inf";
            out.push(`${f.name}_bucket${renderLabels({ ...h.labels, le })} ${cumulative}`);
          }
          out.push(`${f.name}_sum${renderLabels(h.labels)} ${formatValue(h.sum)}`, `${f.name}_count${renderLabels(h.labels)} ${h.count}`);
        }
      }
    }
    return out.length === 0 ? "" : `${out.join("\n")}\n`;
  }
}

/** `Content-Type` of {@link MetricsRegistry.render}'s output. */
export const PROMETHEUS_CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8";
