/**
 * What a runner publishes in `TinyNode.status` (runtime-spec §2.6 `ReadStatus`): every port except
 * `_reconcile`, `_client`, `_identity`, sorted by name, with base64 JSON schema and configuration;
 * credential-looking configuration values masked; and the component info.
 */
import { LRUCache } from "lru-cache";
import type { ComponentInfo } from "../../core/component.ts";
import type { TinyNodePortStatus } from "../../core/node.ts";
import { POSITION_WIRE, SystemPort, type AnyPort } from "../../core/ports.ts";
import { portPlatformSchema, schemaToBase64 } from "../schema/index.ts";
import { CREDENTIAL_KEY, maskSecretValues, REDACTED } from "../../telemetry/secret-values.ts";

const HIDDEN = new Set<string>([SystemPort.reconcile, SystemPort.client, SystemPort.identity]);

export { REDACTED };

/** True when `value`, held under `key`, is a credential to mask: a non-empty string, not a `{{…}}` expression, under a credential-looking key. */
function isCredential(key: string, value: unknown): boolean {
  return typeof value === "string" && value !== "" && !value.startsWith("{{") && CREDENTIAL_KEY.test(key);
}

/**
 * Copy of `value` with credential-looking string values (non-empty, not `{{…}}`) and resolved
 * secret values (src/telemetry/secret-values.ts) replaced by {@link REDACTED}. A key named `__proto__` (JSON.parse makes it an own key) stays an own key of
 * the copy: it is defined, not assigned, since assigning would set the copy's prototype instead.
 */
export function redact(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(redact);
  if (typeof value === "string") return maskSecretValues(value); // a resolved secret a component put in its ports
  if (value === null || typeof value !== "object") return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) {
    const masked = isCredential(k, v) ? REDACTED : redact(v);
    if (k === "__proto__") Object.defineProperty(out, k, { value: masked, enumerable: true, writable: true, configurable: true });
    else out[k] = masked;
  }
  return out;
}

/**
 * The configuration the published schema is inferred from, with credentials masked as in
 * {@link redact}: an untyped field's observed keys become properties whose `default` is the
 * observed value (runtime-spec §8), which would publish a credential the configuration masks.
 * Only arrays and plain objects are descended — the only values inference reads keys from — and
 * what holds no credential is returned as is (same object), so every other schema is unchanged.
 * Go publishes those defaults in clear (docs/compatibility.md, "Credentials in inferred schema defaults").
 */
export function maskSchemaSource(value: unknown): unknown {
  if (Array.isArray(value)) {
    const items = value.map(maskSchemaSource);
    return items.some((v, i) => v !== value[i]) ? items : value;
  }
  if (value === null || typeof value !== "object") return value;
  const proto = Object.getPrototypeOf(value) as unknown;
  if (proto !== Object.prototype && proto !== null) return value;
  let out: Record<string, unknown> | undefined;
  for (const [k, v] of Object.entries(value)) {
    const masked = isCredential(k, v) ? REDACTED : maskSchemaSource(v);
    if (masked === v) continue;
    out ??= { ...value }; // spread defines keys, so an own `__proto__` key is copied as a key
    out[k] = masked; // every key is already own here: a plain write, even for `__proto__`
  }
  return out ?? value;
}

function b64(text: string): string {
  return Buffer.from(text, "utf8").toString("base64");
}

/** A port's published byte fields: base64 of the platform schema's JSON and of the masked configuration's JSON. */
interface PublishedBytes {
  schema: string;
  configuration: string;
}

/** Published forms kept per schema object (least recently used dropped first). */
export const PUBLISHED_PER_SCHEMA = 256;

/**
 * Published byte fields memoized by the port's schema object (its identity: components declare
 * their TypeBox schemas once, at module level, and never change them) and by the port's name and
 * configuration JSON. Building the platform schema is the costliest part of a status read, and a
 * status is read on every reconcile and every status write, nearly always rebuilding identical
 * schemas (bench/RESULTS.md "Published schema memo"). Weak keys: a schema nobody holds any more frees its entries.
 */
const published = new WeakMap<object, LRUCache<string, PublishedBytes>>();

/**
 * The memo key of a configuration: its JSON, or undefined when the value holds anything JSON
 * does not carry exactly (undefined, a function, a symbol, a bigint, a non-finite number, an
 * object that is not a plain object or array, a `toJSON`), since the schema inferred from such a
 * value can differ between values with the same JSON. Those are built every time, as before.
 */
export function configurationKey(value: unknown): string | undefined {
  let exact = true;
  const text = JSON.stringify(value ?? null, function (this: Record<string, unknown>, key, v: unknown) {
    const original = this[key];
    if (original !== v) exact = false; // toJSON replaced it
    if (v === undefined || typeof v === "function" || typeof v === "symbol" || typeof v === "bigint") {
      exact = false;
      return null;
    }
    if (typeof v === "number" && !Number.isFinite(v)) exact = false;
    if (v !== null && typeof v === "object" && !Array.isArray(v)) {
      const proto = Object.getPrototypeOf(v) as unknown;
      if (proto !== Object.prototype && proto !== null) exact = false;
    }
    return v;
  });
  return exact ? text : undefined;
}

function buildPublished(p: AnyPort): PublishedBytes {
  const source = maskSchemaSource(p.configuration);
  const schema = portPlatformSchema(source === p.configuration ? p : { ...p, configuration: source });
  return { schema: schemaToBase64(schema), configuration: b64(JSON.stringify(redact(p.configuration ?? null))) };
}

/** {@link buildPublished}, memoized (see {@link published}) when the port has a schema object and an exact configuration key. */
function publishedBytes(p: AnyPort): PublishedBytes {
  const owner = (p.rawSchema ?? p.schema) as unknown;
  if (owner === null || typeof owner !== "object") return buildPublished(p);
  const config = configurationKey(p.configuration);
  if (config === undefined) return buildPublished(p);
  let forSchema = published.get(owner);
  if (!forSchema) published.set(owner, (forSchema = new LRUCache<string, PublishedBytes>({ max: PUBLISHED_PER_SCHEMA })));
  const key = `${p.name}\u0000${config}`;
  let out = forSchema.get(key);
  if (!out) forSchema.set(key, (out = buildPublished(p)));
  return out;
}

/**
 * The `status.ports` list for `ports` (runtime-spec §2.6). Never emits null schema/configuration
 * (§16 item 27). The byte fields are memoized ({@link published}); the result is a fresh array of
 * fresh objects each call.
 */
export function statusPorts(ports: readonly AnyPort[]): TinyNodePortStatus[] {
  return ports
    .filter((p) => !HIDDEN.has(p.name))
    .slice()
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
    .map((p) => {
      const bytes = publishedBytes(p);
      return { name: p.name, label: p.label, position: POSITION_WIRE[p.position], source: p.source, schema: bytes.schema, configuration: bytes.configuration };
    });
}

/** `status.component` from component info (runtime-spec §2.6). */
export function statusComponent(info: ComponentInfo): { description: string; info: string; tags: string[] } {
  return { description: info.description, info: info.info, tags: [...(info.tags ?? [])] };
}
