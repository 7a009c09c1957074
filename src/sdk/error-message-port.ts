/**
 * The optional `error` port whose payload is Go's `module.ErrorMessage` ({@link ErrorMessageSchema}),
 * as promql_query, logql_query and flow_telemetry offer it: a setting to enable it, the port while
 * enabled, and the routing of a failure — to the port when enabled, else the hop fails.
 */
import { Type } from "typebox";
import { errorPayload } from "../core/errors.ts";
import { source } from "../core/ports.ts";
import { fail, type Result } from "../core/result.ts";
import { omitEmpty } from "../golang/omitempty.ts";
import { ErrorMessageSchema } from "./fields.ts";

/** The `enableErrorPort` setting (optional boolean) with the title and description these components publish. */
export function errorMessagePortSetting() {
  return Type.Optional(Type.Boolean({ title: "Enable Error Port", description: "Emit failures on the error port instead of failing the flow." }));
}

/** The `error` port ("Error", bottom) while `enabled`, else nothing: spread it into the port list. */
export function errorMessagePort(enabled: boolean) {
  return enabled ? [source("error", ErrorMessageSchema, { label: "Error", position: "bottom", default: { error: "", retryable: false } })] : [];
}

/**
 * Routes a failure: with the port `enabled`, emits `{context, error, retryable}` on `error` through
 * `output` (context left out when null or missing, Go `omitempty`); otherwise fails the hop with `err`.
 */
export function emitErrorOrFail(
  enabled: boolean,
  output: (port: "error", data: { context?: unknown; error?: string; retryable?: boolean }) => Promise<Result>,
  err: Error,
  context: unknown,
): Promise<Result> | Result<never> {
  return enabled ? output("error", omitEmpty(errorPayload(err, context), { interfaces: ["context"] })) : fail(err);
}
