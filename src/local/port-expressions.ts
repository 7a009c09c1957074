/**
 * Static check of the `{{expressions}}` in a TinyNode's port configurations (runtime-spec §2.2 step
 * 5, §2.11). A syntax error is known as soon as the manifest is read: the runner compiles the same
 * configuration (src/runtime/runner/port-config.ts) and would fail every hop that uses it, so local
 * mode reports it at load, naming the port entry and the field.
 */
import { decodeBase64Json } from "../core/api/bytes.ts";
import type { TinyNodePortConfig } from "../core/api/v1alpha1.ts";
import { compileTemplate, fieldMatcher } from "../runtime/expression/index.ts";

/** One configuration whose expressions do not compile. */
export interface PortExpressionProblem {
  /** Index in `spec.ports`. */
  index: number;
  /** What is wrong: `spec.ports[2] (port "in" from <from>): expression "{{…}}": … (in field "x")`. */
  problem: string;
}

/**
 * Compiles every non-empty `configuration` of `ports` the way the runner does.
 * @param ports `spec.ports` of a node whose byte fields already decode (undecodable entries are
 *   skipped: the manifest check reports those).
 * @param templateText the component's template-text fields of a port (ComponentSpec
 *   `templateText`), kept as written; unknown before the components load.
 * @returns one problem per configuration that does not compile, in `ports` order.
 */
export function portExpressionProblems(
  ports: readonly TinyNodePortConfig[] | undefined,
  templateText?: (port: string) => readonly string[] | undefined,
): PortExpressionProblem[] {
  const out: PortExpressionProblem[] = [];
  (ports ?? []).forEach((p, index) => {
    if (!p.configuration) return;
    let value: unknown;
    try {
      value = decodeBase64Json(p.configuration, `spec.ports[${index}].configuration`);
    } catch {
      return;
    }
    try {
      const verbatim = templateText?.(p.port);
      compileTemplate(value, verbatim?.length ? { verbatim: fieldMatcher(verbatim) } : {});
    } catch (err) {
      const where = p.from ? `port ${JSON.stringify(p.port)} from ${p.from}` : `port ${JSON.stringify(p.port)}`;
      out.push({ index, problem: `spec.ports[${index}] (${where}): ${(err as Error).message}` });
    }
  });
  return out;
}
