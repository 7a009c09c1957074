/**
 * Keys of an evaluated port configuration that the port's type does not have. Go's runner finds
 * the same (`findOrphanedKeys`, internal/scheduler/runner/runner.go) and logs them, because the
 * decode drops them silently: a misspelt setting (`period` for the ticker's `delay`) otherwise
 * leaves the real field at its zero value with no word said. The decode is unchanged (Go's).
 */

/** An unknown key and the keys its object does have. */
export interface OrphanedKey {
  /** Dotted path of the key, e.g. `period` or `retry.count`. */
  path: string;
  /** The keys the schema declares at that level, sorted. */
  known: string[];
}

/** Nesting walked at most. */
const MAX_DEPTH = 16;

function declared(schema: unknown): Record<string, unknown> | undefined {
  if (schema === null || typeof schema !== "object") return undefined;
  const s = schema as Record<string, unknown>;
  // A schema that keeps extra keys (a map, or `additionalProperties`) has no orphans.
  if (s.additionalProperties !== undefined && s.additionalProperties !== false) return undefined;
  if (s.patternProperties !== undefined) return undefined;
  const props = s.properties;
  return props !== null && typeof props === "object" && !Array.isArray(props) ? (props as Record<string, unknown>) : undefined;
}

/**
 * The keys of `value` (an evaluated configuration) not declared by `schema` (the port's JSON
 * Schema), at any depth where both are objects, as Go recurses into nested structs.
 * @returns `[]` when the value is not an object or the schema does not list its properties.
 */
export function orphanedKeys(value: unknown, schema: unknown, prefix = "", depth = 0): OrphanedKey[] {
  if (depth > MAX_DEPTH || value === null || typeof value !== "object" || Array.isArray(value)) return [];
  const props = declared(schema);
  if (!props) return [];
  const out: OrphanedKey[] = [];
  let known: string[] | undefined;
  let folded: Map<string, string> | undefined;
  for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
    const path = prefix ? `${prefix}.${k}` : k;
    // The decode matches keys ignoring ASCII case (as Go's), so `Delay` is not dropped; Go's log
    // compares exactly and would name it, ours names only what is really lost.
    const name = Object.hasOwn(props, k) ? k : (folded ??= new Map(Object.keys(props).map((p) => [asciiLower(p), p]))).get(asciiLower(k));
    if (name === undefined) out.push({ path, known: (known ??= Object.keys(props).sort()) });
    else out.push(...orphanedKeys(v, props[name], path, depth + 1));
  }
  return out;
}

function asciiLower(s: string): string {
  return s.replace(/[A-Z]/g, (c) => c.toLowerCase());
}
