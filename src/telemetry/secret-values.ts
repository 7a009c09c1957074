/**
 * The values `[[secret:name/key]]` placeholders resolved to in this process
 * (src/runtime/secrets): every redaction point — span payloads, log lines, the local console and
 * terminal, `send` answers, published status — replaces them with `<redacted>` wherever they
 * appear in a string, since no key or shape rule can know them. Kept per placeholder: the current
 * value and the one before (a rotation's in-flight hops may still carry the old one).
 */

/** The mask written instead of a credential value (runtime-spec §2.6), everywhere tinyhost masks one. */
export const REDACTED = "<redacted>";

/** Keys whose string values are masked in published configurations (runtime-spec §2.8 redaction rule 3). */
export const CREDENTIAL_KEY = /(api[_-]?key|secret|token|passw|authorization|bearer|credential|private[_-]?key|access[_-]?key)/i;

/** Values shorter than this are masked only as a whole string, never inside a longer one (a 2-character secret would mask half the log). */
export const MIN_SUBSTRING_LENGTH = 4;

/** Values kept per placeholder (current and previous). */
const KEPT = 2;

const byPlaceholder = new Map<string, string[]>();
/** Every kept value, longest first (a value that contains another is replaced first). */
let values: string[] = [];

/** True while no value is known (the fast path of every redaction point). */
export function noSecretValues(): boolean {
  return values.length === 0;
}

/** Remembers `value`, resolved from `placeholder`, for masking. Empty values are not kept. */
export function rememberSecretValue(placeholder: string, value: string): void {
  if (value === "") return;
  const list = byPlaceholder.get(placeholder) ?? [];
  if (list[0] === value) return;
  byPlaceholder.set(placeholder, [value, ...list.filter((v) => v !== value)].slice(0, KEPT));
  values = [...new Set([...byPlaceholder.values()].flat())].sort((a, b) => b.length - a.length);
}

/** Forgets every value (tests). */
export function forgetSecretValues(): void {
  byPlaceholder.clear();
  values = [];
}

/**
 * `text` with every known value replaced by `<redacted>`: anywhere in the string for values of
 * {@link MIN_SUBSTRING_LENGTH}+ characters, only when the whole string equals a shorter one. The
 * same string when nothing matched.
 */
export function maskSecretValues(text: string): string {
  if (values.length === 0 || text === "") return text;
  let out = text;
  for (const v of values) {
    if (v.length < MIN_SUBSTRING_LENGTH) {
      if (out === v) return REDACTED;
      continue;
    }
    if (out.includes(v)) out = out.split(v).join(REDACTED);
  }
  return out;
}

/**
 * `error` itself when its message holds no known value, else an Error of the same name (and
 * `code`) whose message and stack are masked — for the places that show an error's text.
 */
export function maskedError<E extends Error>(error: E): E | Error {
  if (values.length === 0) return error;
  const message = maskSecretValues(error.message);
  if (message === error.message) return error;
  const out = new Error(message);
  Object.defineProperty(out, "name", { value: error.name, enumerable: false, writable: true, configurable: true });
  out.stack = error.stack === undefined ? undefined : maskSecretValues(error.stack);
  const code = (error as { code?: unknown }).code;
  if (code !== undefined) Object.assign(out, { code });
  return out;
}
