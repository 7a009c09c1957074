/**
 * Pure edits of the release Ingress for exposePort/disclosePort: its rules, TLS entries and the
 * ownership record beside them (ownership.ts). What tinyhost writes per hostname is Go's: a path
 * `/` (Prefix) → `<service>:<N>` and, when no TLS entry covers the host, `{hosts: [h], secretName:
 * "<h>-tls"}` (runtime-spec §7.1 steps 8–9). Unlike Go, a host whose path `/` routes elsewhere is a
 * conflict instead of being re-pointed, an identical path is adopted as `shared`, the rest of an
 * existing rule is kept, and disclosePort removes only what is recorded `own` (Go removes every
 * rule with a path to `<service>:<N>` and every TLS entry naming one of their hosts, runtime-spec
 * §7.2). The functions keep every field they do not understand and never mutate their input
 * (shapes: networking.k8s.io/v1 IngressSpec).
 */
import { isDeepStrictEqual } from "node:util";
import type { Ingress } from "../client/index.ts";
import { ExposeConflictError, WouldBeEmptyError, type ExposeConflict } from "./errors.ts";
import { tlsSecretName } from "./hostnames.ts";
import { INGRESS_RECORD_ANNOTATION, readIngressRecord, withRecord, type HostClaim, type IngressRecord } from "./ownership.ts";

/** networking/v1 IngressServiceBackend. */
export interface IngressServiceBackend {
  name: string;
  port?: { number?: number; name?: string };
}

/** networking/v1 HTTPIngressPath. */
export interface HttpIngressPath {
  path?: string;
  pathType: string;
  backend: { service?: IngressServiceBackend; resource?: Record<string, unknown> };
}

/** networking/v1 IngressRule (host absent = every host). */
export interface IngressRule {
  host?: string;
  http?: { paths: HttpIngressPath[] };
  [field: string]: unknown;
}

/** networking/v1 IngressTLS. */
export interface IngressTls {
  hosts?: string[];
  secretName?: string;
}

/** The part of an IngressSpec that exposePort/disclosePort edit. */
export interface IngressRouting {
  rules: IngressRule[];
  tls: IngressTls[];
}

/** Path every exposed hostname routes (runtime-spec §7.1 step 8). */
export const EXPOSED_PATH = "/";
/** Path type of the exposed path. */
export const EXPOSED_PATH_TYPE = "Prefix";

/**
 * The path exposePort writes for a port: `{path: "/", pathType: Prefix, backend: <service>:<port>}`.
 * runtime-spec §7.1 step 8.
 */
export function exposedPath(service: string, port: number): HttpIngressPath {
  return { path: EXPOSED_PATH, pathType: EXPOSED_PATH_TYPE, backend: { service: { name: service, port: { number: port } } } };
}

/** True when `path` is exactly {@link exposedPath}. */
export function isExposedPath(path: HttpIngressPath, service: string, port: number): boolean {
  return isDeepStrictEqual(path, exposedPath(service, port));
}

/** `/ (Prefix) → svc:80`, for error messages. */
export function describePath(path: HttpIngressPath): string {
  const svc = path.backend?.service;
  const target = svc ? `${svc.name}:${svc.port?.number ?? svc.port?.name ?? "?"}` : `resource ${JSON.stringify(path.backend?.resource ?? {})}`;
  return `${path.path ?? "(no path)"} (${path.pathType}) → ${target}`;
}

/** A path takes the slot tinyhost writes when its path is `/` (any path type; an ImplementationSpecific path without `path` counts as `/`). */
const takesSlot = (p: HttpIngressPath) => (p.path ?? EXPOSED_PATH) === EXPOSED_PATH;

function routingOf(ingress: Ingress): IngressRouting {
  return {
    rules: ((ingress.spec?.rules ?? []) as IngressRule[]).map((r) => ({ ...r })),
    tls: (ingress.spec?.tls ?? []).map((t) => ({ ...t })),
  };
}

function withRouting(ingress: Ingress, routing: IngressRouting, record: IngressRecord): Ingress {
  const next = withRecord(ingress, INGRESS_RECORD_ANNOTATION, record);
  const spec: NonNullable<Ingress["spec"]> = { ...ingress.spec, rules: routing.rules, tls: routing.tls };
  if (routing.rules.length === 0) delete spec.rules;
  if (routing.tls.length === 0) delete spec.tls;
  return { ...next, spec };
}

/** Result of an Ingress edit: the object to write (undefined = nothing changes) and the port's claims before it. */
export interface IngressEdit {
  next: Ingress | undefined;
  /** The record's hosts for the port before the edit (undefined = none recorded). */
  previous: Record<string, HostClaim> | undefined;
}

/** Who holds a host's `/` according to the record: the port that claims the host's path. */
function recordedOwner(record: IngressRecord, host: string): string | undefined {
  return Object.entries(record).find(([, hosts]) => hosts[host] !== undefined)?.[0];
}

/**
 * Ensures one host routes `/` to the port, editing `routing` in place (a working copy).
 * @returns the host's claims, or a conflict.
 */
function ensureHost(routing: IngressRouting, record: IngressRecord, service: string, port: number, host: string, what: string): HostClaim | ExposeConflict {
  const wanted = exposedPath(service, port);
  const previous = record[String(port)]?.[host];
  const indexes = routing.rules.flatMap((r, i) => (r.host === host ? [i] : []));
  let path: HostClaim["path"] | undefined;
  let rule: HostClaim["rule"] = previous?.rule ?? "shared";
  for (const i of indexes) {
    for (const p of routing.rules[i]!.http?.paths ?? []) {
      if (!takesSlot(p)) continue;
      if (isExposedPath(p, service, port)) {
        path ??= previous?.path ?? "shared";
        continue;
      }
      const other = recordedOwner(record, host);
      const owner =
        other !== undefined && other !== String(port)
          ? `tinyhost, for port ${other}`
          : other === String(port)
            ? `another writer, who changed it after tinyhost exposed port ${port}`
            : `another writer (not in tinyhost's ${INGRESS_RECORD_ANNOTATION} record)`;
      return { object: what, entry: `host ${host} path ${p.path ?? EXPOSED_PATH}`, current: describePath(p), owner, wanted: describePath(wanted) };
    }
  }
  if (path === undefined) {
    path = "own";
    const first = indexes[0];
    if (first === undefined) {
      routing.rules.push({ host, http: { paths: [wanted] } });
      rule = "own";
    } else {
      const existing = routing.rules[first]!;
      routing.rules[first] = { ...existing, http: { ...existing.http, paths: [...(existing.http?.paths ?? []), wanted] } };
      if (previous?.rule !== "own") rule = "shared";
    }
  }
  const secretName = tlsSecretName(host);
  let tls: HostClaim["tls"];
  if (previous?.tls === "own" && routing.tls.some((t) => t.secretName === secretName && t.hosts?.includes(host))) tls = "own";
  else if (routing.tls.some((t) => t.hosts?.includes(host))) tls = "shared";
  else {
    routing.tls.push({ hosts: [host], secretName });
    tls = "own";
  }
  return { path, rule, tls };
}

/**
 * Expose port N for hosts: per host, the path `/` (Prefix) → `<service>:<N>` (a new rule, or
 * appended to the host's existing rule, whose other paths are kept) and a TLS entry when none
 * covers the host; each recorded under N with its claims. Hosts already recorded keep their
 * claims; missing entries are put back.
 * @param hosts - normalized hostnames.
 * @param what - names the Ingress in errors.
 * @throws ExposeConflictError for every host whose `/` path routes elsewhere — another writer's
 *   path, or one of tinyhost's other ports (one hostname serves one port, as Go's single `/` rule
 *   does); OwnershipRecordError.
 */
export function exposeOnIngress(ingress: Ingress, service: string, port: number, hosts: readonly string[], what: string): IngressEdit {
  const record = readIngressRecord(ingress, what);
  const previous = record[String(port)];
  const routing = routingOf(ingress);
  const claims: Record<string, HostClaim> = { ...(previous ?? {}) };
  const conflicts: ExposeConflict[] = [];
  for (const host of hosts) {
    const result = ensureHost(routing, record, service, port, host, what);
    if ("object" in result) conflicts.push(result);
    else claims[host] = result;
  }
  if (conflicts.length > 0) throw new ExposeConflictError(port, conflicts);
  const before = routingOf(ingress);
  if (isDeepStrictEqual(before, routing) && isDeepStrictEqual(previous, claims)) return { next: undefined, previous };
  return { next: withRouting(ingress, routing, { ...record, [String(port)]: claims }), previous };
}

/**
 * Disclose port N: per host recorded under N, removes the path `/` → `<service>:<N>` if recorded
 * `own` and still exactly as written; a rule left without paths is removed when tinyhost created
 * it, else it keeps everything but its now empty `http`; an `own` TLS entry loses the host unless
 * another rule still routes paths for that host (and is removed when left without hosts). Then
 * the claims for N are dropped. `shared` entries are never touched. Paths of other writers that
 * route to `<service>:<N>` are theirs and stay.
 * @throws WouldBeEmptyError (`INGRESS_WOULD_HAVE_NO_RULES`) when that would leave no rules and no
 *   defaultBackend; OwnershipRecordError.
 */
export function discloseOnIngress(ingress: Ingress, service: string, port: number, what: string): IngressEdit {
  const record = readIngressRecord(ingress, what);
  const previous = record[String(port)];
  if (previous === undefined) return { next: undefined, previous };
  let { rules, tls } = routingOf(ingress);
  for (const [host, claim] of Object.entries(previous)) {
    if (claim.path === "own") {
      rules = rules.flatMap((r) => {
        const paths = r.http?.paths;
        if (r.host !== host || !paths?.some((p) => isExposedPath(p, service, port))) return [r];
        const kept = paths.filter((p) => !isExposedPath(p, service, port));
        if (kept.length > 0) return [{ ...r, http: { ...r.http, paths: kept } }];
        if (claim.rule === "own") return [];
        const { http: _http, ...rest } = r;
        return [rest];
      });
    }
    if (claim.tls === "own" && !rules.some((r) => r.host === host && (r.http?.paths.length ?? 0) > 0)) {
      const secretName = tlsSecretName(host);
      tls = tls.flatMap((t) => {
        if (t.secretName !== secretName || !t.hosts?.includes(host)) return [t];
        const hosts = t.hosts.filter((h) => h !== host);
        return hosts.length > 0 ? [{ ...t, hosts }] : [];
      });
    }
  }
  if (rules.length === 0 && (ingress.spec?.rules?.length ?? 0) > 0 && ingress.spec?.defaultBackend === undefined) {
    throw new WouldBeEmptyError("Ingress", what, port);
  }
  const rest = { ...record };
  delete rest[String(port)];
  return { next: withRouting(ingress, { rules, tls }, rest), previous };
}

/**
 * Undoes {@link discloseOnIngress} by exposing the port again for the hosts it had (the claims
 * come out the same when nobody changed the Ingress in between).
 * @throws ExposeConflictError when another writer took a host's `/` meanwhile.
 */
export function revertIngressDisclose(
  ingress: Ingress,
  service: string,
  port: number,
  previous: Record<string, HostClaim> | undefined,
  what: string,
): Ingress | undefined {
  if (previous === undefined) return undefined;
  return exposeOnIngress(ingress, service, port, Object.keys(previous), what).next;
}
