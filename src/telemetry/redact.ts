/**
 * Redaction of credential-looking values in span payloads and log records (runtime-spec §2.8,
 * Go `redactPayload` + pkg/redact). Four rules, applied to a copy:
 *  1. keys whose schema marks them `format: "password"`, `writeOnly: true` or `secret: true` (the
 *     component's port schema — Go's struct tags — and the node's authored `spec.ports[].schema`);
 *  2. keys matching {@link CREDENTIAL_KEY} with a non-empty string value that is not an `{{expression}}`;
 *  3. string values shaped like a known secret ({@link SECRET_VALUE}): JWTs, `bearer <20+ chars>`,
 *     GitHub / AWS / Slack / OpenAI / Anthropic / Google keys.
 *  4. (ours, Go has no such rule) the password of a URL's userinfo anywhere in a string
 *     ({@link URL_PASSWORD}): `postgres://u:secretpw@h/db` → `postgres://u:<redacted>@h/db`; the
 *     user, host and path stay readable, the fixed marker leaks no length.
 *  5. (ours) values that `[[secret:…]]` placeholders resolved to, anywhere in a string
 *     (./secret-values.ts).
 * Rule 2 is the rule the runner's published status uses too (./secret-values.ts), so status
 * configurations, spans and logs agree on what a credential key is.
 */
import { CREDENTIAL_KEY, maskSecretValues, REDACTED } from "./secret-values.ts";
import { messageOf } from "../core/errors.ts";
import { hasPlainPrototype } from "../core/plain-object.ts";

export { CREDENTIAL_KEY, REDACTED };

/**
 * Value shapes that are secrets whatever their key (runtime-spec §2.8 rule 4). A string containing
 * one is replaced whole: a partial mask would still leak the prefix and length.
 */
export const SECRET_VALUE = new RegExp(
  [
    String.raw`eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}`, // JWT (header.payload.signature)
    String.raw`\b[Bb][Ee][Aa][Rr][Ee][Rr]\s+[A-Za-z0-9._~+/=-]{20,}`, // Authorization: Bearer <token>, any case
    String.raw`\bgh[pousr]_[A-Za-z0-9]{36,}`, // GitHub tokens
    String.raw`\bgithub_pat_[A-Za-z0-9_]{22,}`, // GitHub fine-grained PAT
    String.raw`\b(?:AKIA|ASIA)[0-9A-Z]{16}\b`, // AWS access key id
    String.raw`\bxox[abposr]-[A-Za-z0-9-]{10,}`, // Slack tokens
    String.raw`\bsk-ant-[A-Za-z0-9_-]{20,}`, // Anthropic
    String.raw`\bsk-(?:proj-|svcacct-)?[A-Za-z0-9_-]{20,}`, // OpenAI
    String.raw`\bAIza[0-9A-Za-z_-]{35}`, // Google API key
  ].join("|"),
);

/**
 * A URL with a password in its userinfo (`scheme://user:password@`), group 1 = up to the colon,
 * group 2 = the password. The password stops at whitespace, `/`, `?`, `#` or the last `@` before
 * the host (RFC 3986 userinfo has no unescaped `@`, but a pasted one is masked with it).
 */
export const URL_PASSWORD = /\b([A-Za-z][A-Za-z0-9+.-]*:\/\/[^\s:/?#@]*:)([^\s/?#]*?)@(?=[^\s@]*(?:[\s/?#]|$))/g;

/**
 * `text` with the password of each URL's userinfo replaced by `<redacted>` (rule 4); the same
 * string when there is none, or when the password is already the marker or an `{{expression}}`.
 */
export function redactUrlPasswords(text: string): string {
  if (!text.includes("://")) return text;
  return text.replace(URL_PASSWORD, (whole, head: string, password: string) =>
    password === "" || password === REDACTED || password.startsWith("{{") ? whole : `${head}${REDACTED}@`,
  );
}

/** What {@link redactValue} masks besides the key regex and the value shapes. */
export interface RedactOptions {
  /** Keys masked whatever their value (rule 1: schema-marked credential fields). */
  readonly keys?: ReadonlySet<string>;
}

const NO_KEYS: ReadonlySet<string> = new Set();

/** Nesting walked at most (a cyclic or absurdly deep value stops here instead of overflowing the stack). */
const MAX_DEPTH = 64;

/**
 * A copy of `value` with credential-looking values replaced by `"<redacted>"` (runtime-spec §2.8).
 * Recurses into arrays and plain objects only: class instances (Error, Date, Uint8Array) are kept
 * as they are, so log serializers still see them; nesting deeper than 64 levels is not walked.
 * Returns `value` itself when nothing was masked.
 */
export function redactValue(value: unknown, options?: RedactOptions): unknown {
  return walk(value, options?.keys ?? NO_KEYS, 0);
}

function walk(value: unknown, keys: ReadonlySet<string>, depth: number): unknown {
  if (typeof value === "string") return SECRET_VALUE.test(value) ? REDACTED : redactUrlPasswords(maskSecretValues(value));
  if (value === null || typeof value !== "object" || depth > MAX_DEPTH) return value;
  if (Array.isArray(value)) {
    let out: unknown[] | undefined;
    for (let i = 0; i < value.length; i++) {
      const v = walk(value[i], keys, depth + 1);
      if (v !== value[i]) (out ??= value.slice())[i] = v;
    }
    return out ?? value;
  }
  if (!hasPlainPrototype(value)) return value;
  let out: Record<string, unknown> | undefined;
  for (const k of Object.keys(value)) {
    const v = value[k];
    let r: unknown;
    if (keys.has(k) && v !== undefined && v !== null && v !== "") r = REDACTED;
    else if (typeof v === "string" && v !== "" && !v.startsWith("{{") && CREDENTIAL_KEY.test(k)) r = REDACTED;
    else r = walk(v, keys, depth + 1);
    if (r !== v) (out ??= { ...value })[k] = r;
  }
  return out ?? value;
}

/**
 * The JSON text of `value` for a span's `payload` attribute, redacted (runtime-spec §2.8 event
 * `data`). Never throws: an unencodable value (cycle, BigInt) yields a short marker instead.
 */
export function redactedPayload(value: unknown, options?: RedactOptions): string {
  if (value instanceof Uint8Array) {
    const bytes = value;
    try {
      value = JSON.parse(new TextDecoder().decode(bytes));
    } catch {
      return `<${bytes.byteLength} bytes, not JSON>`;
    }
  }
  try {
    return JSON.stringify(redactValue(value, options)) ?? "null";
  } catch (err) {
    return `<unencodable payload: ${messageOf(err)}>`;
  }
}

/**
 * Names of the fields a JSON Schema marks as credentials — `format: "password"`, `writeOnly: true`
 * or `secret: true` — at any depth (properties, items, combinators, `$defs`). Rule 1 of
 * runtime-spec §2.8; Go collects the same names from the node's authored schemas in `SetNode` (§2.6).
 */
export function credentialKeysOfSchema(schema: unknown, into: Set<string> = new Set()): Set<string> {
  collect(schema, into, 0);
  return into;
}

function collect(schema: unknown, into: Set<string>, depth: number): void {
  if (depth > 32 || schema === null || typeof schema !== "object") return;
  if (Array.isArray(schema)) {
    for (const s of schema) collect(s, into, depth + 1);
    return;
  }
  const s = schema as Record<string, unknown>;
  const props = s.properties;
  if (props !== null && typeof props === "object") {
    for (const [name, sub] of Object.entries(props as Record<string, unknown>)) {
      if (sub !== null && typeof sub === "object") {
        const f = sub as Record<string, unknown>;
        if (f.format === "password" || f.writeOnly === true || f.secret === true) into.add(name);
      }
      collect(sub, into, depth + 1);
    }
  }
  for (const k of ["items", "additionalProperties", "allOf", "anyOf", "oneOf", "$defs", "definitions"] as const) {
    const sub = s[k];
    if (k === "$defs" || k === "definitions") {
      if (sub !== null && typeof sub === "object") for (const d of Object.values(sub as object)) collect(d, into, depth + 1);
    } else collect(sub, into, depth + 1);
  }
}
