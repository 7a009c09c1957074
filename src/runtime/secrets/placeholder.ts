/**
 * `[[secret:<name>/<key>]]` placeholders in node settings (Go pkg/secret, SDK v0.13.125): a string
 * that is exactly one placeholder names key `<key>` of Secret `<name>` in the module's namespace.
 * Both parts match `[A-Za-z0-9._-]+`; anything else (a placeholder inside a longer string, a
 * missing slash) is an ordinary string, as Go leaves it.
 */
import { hasPlainPrototype } from "../../core/plain-object.ts";

/** A whole-string placeholder; group 1 = Secret name, group 2 = key (Go's `placeholderRe`). */
export const SECRET_PLACEHOLDER = /^\[\[secret:([A-Za-z0-9._-]+)\/([A-Za-z0-9._-]+)\]\]$/;

/** One placeholder: the Secret and key it names, and its text. */
export interface SecretRef {
  readonly name: string;
  readonly key: string;
  /** The placeholder as written, e.g. `[[secret:api/token]]`. */
  readonly text: string;
}

/** The reference `s` names, or undefined when `s` is not exactly one placeholder. */
export function parsePlaceholder(s: string): SecretRef | undefined {
  const m = SECRET_PLACEHOLDER.exec(s);
  return m ? { name: m[1]!, key: m[2]!, text: s } : undefined;
}

/** Nesting walked at most (the decoded settings are JSON; deeper values are left alone). */
const MAX_DEPTH = 64;

/** True when a string anywhere in `value` (arrays, plain objects) is a placeholder (Go `ContainsPlaceholder`). */
export function containsPlaceholder(value: unknown, depth = 0): boolean {
  if (typeof value === "string") return value.startsWith("[[secret:") && SECRET_PLACEHOLDER.test(value);
  if (value === null || typeof value !== "object" || depth > MAX_DEPTH) return false;
  if (Array.isArray(value)) return value.some((v) => containsPlaceholder(v, depth + 1));
  if (!hasPlainPrototype(value)) return false;
  for (const k in value) if (containsPlaceholder(value[k], depth + 1)) return true;
  return false;
}

/** Reads one Secret key; rejects with a SecretError (./source.ts) naming the placeholder. */
export type SecretLookup = (ref: SecretRef) => Promise<string>;

/** What {@link resolvePlaceholders} resolved. */
export interface Resolved {
  /** A copy of the input with every placeholder replaced by its value (the input is not changed). */
  readonly value: unknown;
  /** The values read, for redaction (src/telemetry/secret-values.ts). */
  readonly secrets: { ref: SecretRef; value: string }[];
}

/**
 * Replaces every placeholder in `value` with what `lookup` reads (Go `secret.Resolve`, which walks
 * struct fields, slices and maps alike); each distinct placeholder is read once.
 * @throws the first lookup's rejection (a SecretError naming the placeholder).
 */
export async function resolvePlaceholders(value: unknown, lookup: SecretLookup): Promise<Resolved> {
  const refs = new Map<string, SecretRef>();
  collect(value, refs, 0);
  const read = new Map<string, string>();
  for (const [text, ref] of refs) read.set(text, await lookup(ref));
  return { value: replace(value, read, 0), secrets: [...refs.values()].map((ref) => ({ ref, value: read.get(ref.text)! })) };
}

function collect(value: unknown, into: Map<string, SecretRef>, depth: number): void {
  if (typeof value === "string") {
    const ref = value.startsWith("[[secret:") ? parsePlaceholder(value) : undefined;
    if (ref) into.set(ref.text, ref);
    return;
  }
  if (value === null || typeof value !== "object" || depth > MAX_DEPTH) return;
  if (Array.isArray(value)) for (const v of value) collect(v, into, depth + 1);
  else if (hasPlainPrototype(value)) for (const k in value) collect(value[k], into, depth + 1);
}

function replace(value: unknown, read: ReadonlyMap<string, string>, depth: number): unknown {
  if (typeof value === "string") return read.get(value) ?? value;
  if (value === null || typeof value !== "object" || depth > MAX_DEPTH) return value;
  if (Array.isArray(value)) return value.map((v) => replace(v, read, depth + 1));
  if (!hasPlainPrototype(value)) return value;
  const out: Record<string, unknown> = {};
  for (const k in value) out[k] = replace(value[k], read, depth + 1);
  return out;
}
