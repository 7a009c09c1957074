/**
 * Edge data mappings of one node, compiled once (runtime-spec §2.3): `spec.ports[]` entries keyed by
 * `(from, port)`, their base64 JSON configuration decoded and compiled into a template. On a node
 * update only entries whose bytes changed are recompiled.
 */
import type { TinyNodePortConfig } from "../../sdk/node.ts";
import { TinyError } from "../../sdk/errors.ts";
import { compileTemplate, type CompiledTemplate } from "../expression/index.ts";

/** A compiled port config, or the reason it could not be compiled (reported on every hop using it). */
export interface CompiledPortConfig {
  /** The base64 bytes it was compiled from (change detection). */
  readonly source: string;
  readonly template?: CompiledTemplate;
  readonly error?: Error;
}

/** A port config's bytes are not base64 JSON, or its expressions do not parse. code `"PORT_CONFIG"`. */
export class PortConfigError extends TinyError {
  constructor(node: string, from: string, port: string, cause: unknown) {
    const why = cause instanceof Error ? cause.message : String(cause);
    super("PORT_CONFIG", `node ${node}: configuration of port ${port} (from ${JSON.stringify(from)}) is invalid: ${why}`, { cause });
  }
}

/**
 * A node's compiled port configs by `(from, port)`: two map levels, so the lookup every hop makes
 * allocates nothing (no joined key string).
 */
export class PortConfigTable {
  readonly #byFrom = new Map<string, Map<string, CompiledPortConfig>>();

  /** The config for hops from `from` (a `node:port` address, `""` for the node's own) to `port`. */
  get(from: string, port: string): CompiledPortConfig | undefined {
    return this.#byFrom.get(from)?.get(port);
  }

  /** Stores the config for `(from, port)`, replacing any earlier one. */
  set(from: string, port: string, config: CompiledPortConfig): void {
    let byPort = this.#byFrom.get(from);
    if (!byPort) this.#byFrom.set(from, (byPort = new Map()));
    byPort.set(port, config);
  }
}

/**
 * Compiles `configs`, reusing entries of `previous` whose bytes are unchanged. Entries with empty
 * configuration are skipped (runtime-spec §2.2 step 5 needs a non-empty configuration).
 */
export function compilePortConfigs(node: string, configs: readonly TinyNodePortConfig[] | undefined, previous: PortConfigTable): PortConfigTable {
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
    try {
      const text = Buffer.from(b64, "base64").toString("utf8");
      const value: unknown = JSON.parse(text);
      next.set(from, pc.port, { source: b64, template: compileTemplate(value) });
    } catch (err) {
      next.set(from, pc.port, { source: b64, error: new PortConfigError(node, from, pc.port, err) });
    }
  }
  return next;
}
