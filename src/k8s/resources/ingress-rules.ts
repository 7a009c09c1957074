/**
 * Pure edits of the release Ingress's rules and TLS entries for exposePort/disclosePort
 * (runtime-spec §7.1 steps 8–9, §7.2). They never mutate their input, keep every field they do
 * not understand, and touch only what belongs to the given port, so entries other writers added
 * survive (runtime-spec §16 item 26; shapes: networking.k8s.io/v1 IngressSpec).
 */
import { tlsSecretName } from "./hostnames.ts";

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

function routesTo(path: HttpIngressPath, service: string, port: number): boolean {
  return path.backend?.service?.name === service && path.backend.service.port?.number === port;
}

function isExposedSlot(path: HttpIngressPath): boolean {
  return path.path === EXPOSED_PATH && path.pathType === EXPOSED_PATH_TYPE;
}

/**
 * Routes each hostname's `/` (Prefix) to `<service>:<port>` and adds a TLS entry
 * `{hosts: [h], secretName: "<h>-tls"}` for each hostname no TLS entry covers yet.
 * A rule that already exists for a host keeps its other paths; only its `/` Prefix path is
 * (re)pointed at the port — Go replaces the rule's whole HTTP section (runtime-spec §7.1 step 8).
 *
 * @param routing - current rules and TLS entries.
 * @param service - the release Service's name.
 * @param port - port number, validated.
 * @param hostnames - normalized hostnames.
 * @returns new lists, deep-equal to the input when every host already routes there.
 */
export function withExposedHosts(routing: IngressRouting, service: string, port: number, hostnames: readonly string[]): IngressRouting {
  const rules = routing.rules.map((r) => ({ ...r }));
  const tls = routing.tls.map((t) => ({ ...t }));
  const wanted = exposedPath(service, port);
  for (const host of hostnames) {
    const index = rules.findIndex((r) => r.host === host);
    const existing = index >= 0 ? rules[index] : undefined;
    if (existing === undefined) {
      rules.push({ host, http: { paths: [wanted] } });
    } else {
      const paths = [...(existing.http?.paths ?? [])];
      const slot = paths.findIndex(isExposedSlot);
      if (slot >= 0) paths[slot] = wanted;
      else paths.push(wanted);
      rules[index] = { ...existing, http: { ...existing.http, paths } };
    }
    if (!tls.some((t) => t.hosts?.includes(host))) tls.push({ hosts: [host], secretName: tlsSecretName(host) });
  }
  return { rules, tls };
}

/**
 * Removes every path that routes to `<service>:<port>`. A rule keeps its remaining paths; a rule
 * left with no paths is removed, and then its host leaves the TLS entries unless another remaining
 * rule still uses that host (a TLS entry left with no hosts is removed). Rules without an HTTP
 * section and all other entries are kept. Go drops HTTP-less rules, duplicates multi-path rules
 * and drops whole multi-host TLS entries (runtime-spec §7.2, §16 item 26).
 *
 * @returns new lists, deep-equal to the input when nothing routed to the port.
 */
export function withoutExposedPort(routing: IngressRouting, service: string, port: number): IngressRouting {
  const rules: IngressRule[] = [];
  const emptied = new Set<string>();
  for (const rule of routing.rules) {
    const paths = rule.http?.paths;
    if (!paths || !paths.some((p) => routesTo(p, service, port))) {
      rules.push(rule);
      continue;
    }
    const kept = paths.filter((p) => !routesTo(p, service, port));
    if (kept.length > 0) rules.push({ ...rule, http: { ...rule.http, paths: kept } });
    else if (rule.host !== undefined) emptied.add(rule.host);
  }
  const stillUsed = new Set(rules.map((r) => r.host));
  const dropped = [...emptied].filter((h) => !stillUsed.has(h));
  const tls: IngressTls[] = [];
  for (const entry of routing.tls) {
    if (!entry.hosts?.some((h) => dropped.includes(h))) {
      tls.push(entry);
      continue;
    }
    const hosts = entry.hosts.filter((h) => !dropped.includes(h));
    if (hosts.length > 0) tls.push({ ...entry, hosts });
  }
  return { rules, tls };
}
