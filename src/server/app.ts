/**
 * The module's health and metrics HTTP app (Hono): `/healthz` (the process answers), `/readyz`
 * (200 only when every readiness check passes, else 503 with a JSON body naming the failing
 * checks) and `/metrics` (Prometheus text). Paths and probe semantics follow the chart's probes
 * (runtime-spec §12: liveness GET /healthz, readiness GET /readyz on :8081).
 */
import { Hono } from "hono";
import { PROMETHEUS_CONTENT_TYPE, type MetricsRegistry } from "../telemetry/metrics.ts";
import { runChecks, type ReadinessCheck } from "./readiness.ts";

/** What the app serves. */
export interface HealthAppOptions {
  /** Checks behind /readyz, by name (e.g. `node-cache`, `transport`, `leader`). */
  readiness?: ReadonlyMap<string, ReadinessCheck> | Record<string, ReadinessCheck>;
  /** Registry rendered at /metrics; absent → /metrics answers 404. */
  metrics?: MetricsRegistry;
  /** Serve /healthz and /readyz (default true); false for a metrics-only listener. */
  probes?: boolean;
}

/**
 * Builds the Hono app.
 * - `GET /healthz` → 200 `ok` (text) while the process serves requests.
 * - `GET /readyz` → 200 `{"status":"ok","checks":{…}}` or 503 `{"status":"not ready","checks":{name: reason}}`.
 * - `GET /metrics` → 200 text format 0.0.4.
 */
export function healthApp(options: HealthAppOptions): Hono {
  const app = new Hono();
  if (options.probes ?? true) {
    app.get("/healthz", (c) => c.text("ok"));
    app.get("/readyz", (c) => {
      const report = runChecks(options.readiness ?? {});
      return c.json({ status: report.ready ? "ok" : "not ready", checks: report.checks }, report.ready ? 200 : 503);
    });
  }
  const metrics = options.metrics;
  if (metrics) {
    app.get("/metrics", (c) => c.body(metrics.render(), 200, { "Content-Type": PROMETHEUS_CONTENT_TYPE }));
  }
  return app;
}
