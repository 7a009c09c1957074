/**
 * Edge data mappings of one node, compiled once (runtime-spec §2.3): `spec.ports[]` entries keyed by
 * `(from, port)`, their base64 JSON configuration decoded and compiled into a template. On a node
 * update only entries whose bytes changed are recompiled.
 *
 * As in the Go runner (internal/scheduler/runner/runner.go, the evaluator callback): an expression
 * that does not compile makes only its own field null (or keeps its `{{…}}` text inside a string)
 * and the hop goes on; the compile error is kept as a problem of the node (its status, a log line)
 * and reported on every hop through that edge. An evaluated value JSON cannot carry (NaN,
 * ±Infinity) fails the hop, as in Go.
 */
import { LRUCache } from "lru-cache";
import type { TinyNodePortConfig } from "../../core/node.ts";
import { TinyError, messageOf } from "../../core/errors.ts";
import {
  compileTemplate,
  fieldMatcher,
  decodePayloadJson,
  type CompiledTemplate,
  type ExpressionErrorHandler,
  NonFiniteNumberError,
} from "../expression/index.ts";

/** A compiled port config, or the reason it fails every hop. */
export interface CompiledPortConfig {
  /** The base64 bytes it was compiled from (change detection). */
  readonly source: string;
  /** The template; absent when {@link error} is set. */
  readonly template?: CompiledTemplate;
  /** Fails every hop: the bytes are not base64 JSON, or hold a number beyond float64. */
  readonly error?: Error;
  /** Expressions that do not compile (their fields evaluate to null); for the node's status and logs. */
  readonly problems: readonly PortConfigError[];
  readonly node: string;
  readonly from: string;
  readonly port: string;
}

/**
 * A port config's bytes are not base64 JSON, or one of its expressions does not parse (then only
 * that field is null). code `"PORT_CONFIG"`.
 */
export class PortConfigError extends TinyError {
  constructor(node: string, from: string, port: string, cause: unknown) {
    const why = messageOf(cause);
    super("PORT_CONFIG", `node ${node}: configuration of port ${port} (from ${JSON.stringify(from)}) is invalid: ${why}`, { cause });
  }
}

/**
 * A configuration evaluated to a value JSON cannot carry (NaN, ±Infinity, e.g. `{{sqrt(-1)}}`):
 * Go fails the hop when it encodes the configuration for the port. code `"PORT_DATA"`.
 */
export class PortDataError extends TinyError {
  constructor(node: string, from: string, port: string, cause: Error) {
    super("PORT_DATA", `node ${node}: configuration of port ${port} (from ${JSON.stringify(from)}) cannot be sent: ${cause.message}`, { cause });
  }
}

/**
 * A node's compiled port configs by `(from, port)`: two map levels, so the lookup every hop makes
 * allocates nothing (no joined key string).
 */
export class PortConfigTable {
  readonly #byFrom = new Map<string, Map<string, CompiledPortConfig>>();
  #problem: Error | undefined;

  /** The config for hops from `from` (a `node:port` address, `""` for the node's own) to `port`. */
  get(from: string, port: string): CompiledPortConfig | undefined {
    return this.#byFrom.get(from)?.get(port);
  }

  /** Stores the config for `(from, port)`, replacing any earlier one. */
  set(from: string, port: string, config: CompiledPortConfig): void {
    let byPort = this.#byFrom.get(from);
    if (!byPort) this.#byFrom.set(from, (byPort = new Map()));
    byPort.set(port, config);
    this.#problem ??= config.error ?? config.problems[0];
  }

  /** The first configuration problem of the node (for its status), or undefined. */
  get problem(): Error | undefined {
    return this.#problem;
  }
}

/**
 * Compiles `configs`, reusing entries of `previous` whose bytes are unchanged. Entries with empty
 * configuration are skipped (runtime-spec §2.2 step 5 needs a non-empty configuration).
 *
 * @param onProblem called once for each problem of a newly compiled entry (a log line at load)
 * @param templateText the fields of `port` holding the component's own template text, kept as
 *   written (ComponentSpec `templateText`)
 */
export function compilePortConfigs(
  node: string,
  configs: readonly TinyNodePortConfig[] | undefined,
  previous: PortConfigTable,
  onProblem?: (err: PortConfigError) => void,
  templateText?: (port: string) => readonly string[] | undefined,
): PortConfigTable {
  const next = new PortConfigTable();
  for (const pc of configs ?? []) {
    const b64 = pc.configuration ?? "";
    if (b64 === "") continue;
    const from = pc.from ?? "";
    const prev = previous.get(from, pc.port);
    if (prev && prev.source === b64) {
      next.set(from, pc.port, prev);
      continue;
    }
    const compiled = compileOne(node, from, pc.port, b64, templateText?.(pc.port));
    if (onProblem) for (const p of compiled.error ? [compiled.error as PortConfigError] : compiled.problems) onProblem(p);
    next.set(from, pc.port, compiled);
  }
  return next;
}

/** Compiled templates kept by configuration bytes (least recently used dropped first). */
export const TEMPLATES_KEPT = 4_096;

/**
 * Templates by their base64 configuration bytes, shared by every node with the same mapping: a
 * compiled template holds no per-node or per-hop state (`evaluate` returns fresh containers), and
 * a flow copied many times, or one component placed in many flows, repeats the same mappings
 * (bench/RESULTS.md "Shared template cache").
 */
const templates = new LRUCache<string, CompiledTemplate>({ max: TEMPLATES_KEPT });

function compileOne(node: string, from: string, port: string, b64: string, verbatim: readonly string[] | undefined): CompiledPortConfig {
  const base = { source: b64, node, from, port };
  // Template-text fields change what compiles: such templates are kept under their own key.
  const key = verbatim?.length ? `${verbatim.join("\u0000")}\u0000${b64}` : b64;
  try {
    let template = templates.get(key);
    if (!template) {
      const text = Buffer.from(b64, "base64").toString("utf8");
      // Go's evaluator also refuses a configuration that is not an object ("node is not an object");
      // we evaluate any JSON value (docs/compatibility.md, superset): `"{{$}}"` passes the payload on.
      const value: unknown = JSON.parse(text);
      template = compileTemplate(value, { tolerant: true, ...(verbatim?.length ? { verbatim: fieldMatcher(verbatim) } : {}) });
      templates.set(key, template);
    }
    if (template.unreadableConstant !== undefined) throw new Error(template.unreadableConstant);
    return { ...base, template, problems: template.syntaxErrors.map((e) => new PortConfigError(node, from, port, e)) };
  } catch (err) {
    return { ...base, error: new PortConfigError(node, from, port, err), problems: [] };
  }
}

/**
 * Decodes a hop's payload for an edge configuration as Go's runner does (`ajson.Unmarshal`):
 * see src/runtime/expression/payload.ts.
 * @throws SyntaxError when it is not JSON
 */
export function decodeConfiguredPayload(data: unknown): unknown {
  return decodePayloadJson(data);
}

/**
 * Evaluates a compiled port config against a decoded payload: the port's input for this hop.
 * Expression errors (and fields that do not compile) go to `onError` and leave their field null.
 *
 * @throws PortConfigError when the configuration fails every hop ({@link CompiledPortConfig.error})
 * @throws PortDataError when a field evaluates to NaN or ±Infinity
 */
export function evaluatePortConfig(pc: CompiledPortConfig, payload: unknown, onError?: ExpressionErrorHandler): unknown {
  if (pc.error) throw pc.error;
  try {
    return pc.template!.evaluate(payload, onError);
  } catch (err) {
    if (err instanceof NonFiniteNumberError) throw new PortDataError(pc.node, pc.from, pc.port, err);
    throw err;
  }
}
