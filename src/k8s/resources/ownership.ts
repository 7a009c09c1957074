/**
 * Ownership records: what exposePort added to the release Service and Ingress, kept as an
 * annotation on each object so that it is written in the same compare-and-swap update as the
 * entries it describes, and any replica — or the same one after a restart — knows exactly which
 * entries are tinyhost's (docs/compatibility.md "Resource manager").
 *
 * Why an annotation and not server-side-apply field managers: Ingress `spec.rules` and `spec.tls`
 * are atomic lists for SSA (one manager owns the whole list), so SSA cannot tell tinyhost's rule
 * from a neighbour's; and a Service port with the same number but another protocol is a different
 * SSA key, which SSA would add without a conflict. One record per object covers both.
 *
 * The owner of an entry is the exposed port number: every replica of a module exposes the same
 * port for the same node, so they agree on what is theirs, and `disclosePort(N)` — which names only
 * the port — finds it. Claims:
 * - `own`: tinyhost added the entry; disclosePort removes it (if it is still exactly as written).
 * - `shared`: an entry exactly like tinyhost's was already there (or, for TLS, another entry
 *   already covered the host); tinyhost relies on it and never deletes it.
 */
import type { KubeObject, ObjectMeta } from "../client/index.ts";
import { OwnershipRecordError } from "./errors.ts";

/** Annotation on the release Service: `{"<port>": "own" | "shared"}` for the Service port entry. */
export const SERVICE_RECORD_ANNOTATION = "tinyhost.io/exposed-ports";
/** Annotation on the release Ingress: `{"<port>": {"<host>": {"path", "rule", "tls"}}}`. */
export const INGRESS_RECORD_ANNOTATION = "tinyhost.io/exposed-hosts";

/** Whether tinyhost added an entry (`own`) or found it in place (`shared`). */
export type Claim = "own" | "shared";

/** What one exposed host holds in the Ingress. */
export interface HostClaim {
  /** The path `/` (Prefix) → `<service>:<port>`. */
  path: Claim;
  /** The rule for the host: `own` when tinyhost created it for this path. */
  rule: Claim;
  /** The TLS entry: `own` = `{hosts: [host], secretName: "<host>-tls"}` added by tinyhost; `shared` = another entry covered the host. */
  tls: Claim;
}

/** Service record: port (decimal string) → claim on its Service port entry. */
export type ServiceRecord = Record<string, Claim>;
/** Ingress record: port (decimal string) → host → claims. */
export type IngressRecord = Record<string, Record<string, HostClaim>>;

const isClaim = (v: unknown): v is Claim => v === "own" || v === "shared";
const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);
const isPortKey = (k: string) => /^[1-9][0-9]{0,4}$/.test(k) && Number(k) <= 65535;

function parse(object: KubeObject, what: string, key: string): Record<string, unknown> {
  const raw = object.metadata.annotations?.[key];
  if (raw === undefined || raw === "") return {};
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch (e) {
    throw new OwnershipRecordError(what, key, `not JSON (${(e as Error).message})`);
  }
  if (!isObject(value)) throw new OwnershipRecordError(what, key, "not a JSON object");
  for (const port of Object.keys(value)) if (!isPortKey(port)) throw new OwnershipRecordError(what, key, `key ${JSON.stringify(port)} is not a port number`);
  return value;
}

/**
 * Reads the Service record. An absent or empty annotation is an empty record.
 * @param what - names the object in errors, e.g. `Service ns/name`.
 * @throws OwnershipRecordError when the annotation is not the JSON tinyhost writes.
 */
export function readServiceRecord(service: KubeObject, what: string): ServiceRecord {
  const value = parse(service, what, SERVICE_RECORD_ANNOTATION);
  for (const [port, claim] of Object.entries(value)) {
    if (!isClaim(claim)) throw new OwnershipRecordError(what, SERVICE_RECORD_ANNOTATION, `port ${port}: ${JSON.stringify(claim)} is not "own" or "shared"`);
  }
  return value as ServiceRecord;
}

/**
 * Reads the Ingress record. An absent or empty annotation is an empty record.
 * @throws OwnershipRecordError when the annotation is not the JSON tinyhost writes.
 */
export function readIngressRecord(ingress: KubeObject, what: string): IngressRecord {
  const value = parse(ingress, what, INGRESS_RECORD_ANNOTATION);
  for (const [port, hosts] of Object.entries(value)) {
    if (!isObject(hosts)) throw new OwnershipRecordError(what, INGRESS_RECORD_ANNOTATION, `port ${port}: not an object of hosts`);
    for (const [host, claim] of Object.entries(hosts)) {
      if (!isObject(claim) || !isClaim(claim.path) || !isClaim(claim.rule) || !isClaim(claim.tls)) {
        throw new OwnershipRecordError(what, INGRESS_RECORD_ANNOTATION, `port ${port} host ${host}: needs "path", "rule" and "tls", each "own" or "shared"`);
      }
    }
  }
  return value as IngressRecord;
}

/** JSON with object keys sorted (ports numerically), so equal records are equal strings. */
function canonical(value: unknown): unknown {
  if (!isObject(value)) return value;
  const keys = Object.keys(value).sort((a, b) => (isPortKey(a) && isPortKey(b) ? Number(a) - Number(b) : a < b ? -1 : a > b ? 1 : 0));
  return Object.fromEntries(keys.map((k) => [k, canonical(value[k])]));
}

/**
 * A copy of `object` with annotation `key` set to `value`, or removed when `value` is undefined
 * (an annotation map left empty is removed too); other annotations are kept, the input is not changed.
 */
export function withAnnotation<T extends KubeObject>(object: T, key: string, value: string | undefined): T {
  const annotations = { ...(object.metadata.annotations ?? {}) };
  if (value === undefined) delete annotations[key];
  else annotations[key] = value;
  const metadata: ObjectMeta = { ...object.metadata, annotations };
  if (Object.keys(annotations).length === 0) delete metadata.annotations;
  return { ...object, metadata };
}

/**
 * A copy of `object` whose annotation `key` holds `record` (canonical JSON), or has no such
 * annotation when the record is empty (see {@link withAnnotation}).
 */
export function withRecord<T extends KubeObject>(object: T, key: string, record: ServiceRecord | IngressRecord): T {
  return withAnnotation(object, key, Object.keys(record).length === 0 ? undefined : JSON.stringify(canonical(record)));
}
