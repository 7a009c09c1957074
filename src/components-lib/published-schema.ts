/**
 * Ports whose published schema (what the editor shows) is stricter than what the port accepts.
 *
 * The Go modules decode port data into Go structs: `required`, `enum`, `minItems`, `uniqueItems`
 * and `minimum` tags only shape the editor's form, and a missing field or a `null` decodes to the
 * zero value (components.md §0.3). tinyhost validates every hop against the port's schema
 * (docs/compatibility.md "Runner"), so components that must accept what a Go flow sends declare a
 * lenient validation schema and publish the Go-shaped schema verbatim as the port's `rawSchema`.
 */
import type { TSchema } from "typebox";
import type { PortSpec } from "../sdk/ports.ts";
import { toPlatformSchema } from "../runtime/schema/index.ts";

/**
 * Returns `port` publishing `published` (converted to the platform shape, `$defs` + `path`, with the
 * port's current configuration for inference) instead of the schema it validates with.
 * Rule source: runtime-spec §1.3 `Schema` (explicit port schema), §10.1 (platform shape).
 */
export function publishAs<N extends string, T extends TSchema, S extends boolean>(port: PortSpec<N, T, S>, published: TSchema): PortSpec<N, T, S> {
  return { ...port, rawSchema: toPlatformSchema(published, port.configuration) };
}
