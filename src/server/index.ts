/** The health/metrics HTTP server: Hono app, readiness checks, Go-style bind addresses. */
export { healthApp, type HealthAppOptions } from "./app.ts";
export { runChecks, type ReadinessCheck, type ReadinessReport } from "./readiness.ts";
export { parseBindAddress, listen, BindAddressError, type BindAddress, type HttpListener } from "./serve.ts";
