/**
 * Go's error-port conformance check (cli/validate.go `validateErrorPorts`, SDK v0.13.125): a source
 * port named `error` must declare the canonical ErrorMessage fields `context`, `error` and
 * `retryable` somewhere in its schema, so the retry component and the platform can supervise it.
 * `tools components-info` prints one warning per port that does not; nothing fails.
 */
import type { ComponentDefinition } from "../core/component.ts";
import { ERROR_PORT } from "../core/ports.ts";

/** Every key under any `properties` object anywhere in `schema` (Go `schemaPropertyNames`). */
function propertyNames(schema: unknown, into = new Set<string>(), depth = 0): Set<string> {
  if (schema === null || typeof schema !== "object" || depth > 64) return into;
  if (Array.isArray(schema)) {
    for (const s of schema) propertyNames(s, into, depth + 1);
    return into;
  }
  const props = (schema as Record<string, unknown>).properties;
  if (props !== null && typeof props === "object" && !Array.isArray(props)) for (const k of Object.keys(props)) into.add(k);
  for (const v of Object.values(schema)) propertyNames(v, into, depth + 1);
  return into;
}

/**
 * The warnings for `defs`, in component and port order, worded as Go's.
 * @throws whatever a component's `ports()` throws.
 */
export function errorPortWarnings(defs: readonly ComponentDefinition[]): string[] {
  const out: string[] = [];
  for (const def of defs) {
    for (const p of def.ports()) {
      if (p.name !== ERROR_PORT || !p.source || p.schema === undefined) continue;
      const props = propertyNames(p.rawSchema ?? p.schema);
      const missing = ["context", "error", "retryable"].filter((k) => !props.has(k));
      if (missing.length > 0) {
        out.push(
          `component ${JSON.stringify(def.info.name)} error port is missing [${missing.join(" ")}] — emit module.NewError(ctx, err) (module.ErrorMessage) so the retry component and the platform can supervise it; wrap transient failures with module.Retryable`,
        );
      }
    }
  }
  return out;
}
