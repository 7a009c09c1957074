/**
 * Pure edits of the release Service for exposePort/disclosePort: its `spec.ports` and the
 * ownership record beside them (ownership.ts). The entry tinyhost writes is Go's
 * `{name: "port<N>", port: N, targetPort: N}` (protocol defaulted to TCP by the apiserver;
 * runtime-spec §7.1 step 5). Unlike Go, an existing entry with the same number is reused only when
 * it is exactly that entry (then recorded `shared`); anything else with that number, or another
 * port already called `port<N>`, is a conflict. disclosePort removes only an entry recorded `own`
 * (Go removes every entry with the number, runtime-spec §7.2). The functions never mutate input.
 */
import type { Service, ServicePort } from "../client/index.ts";
import { ExposeConflictError, WouldBeEmptyError, type ExposeConflict } from "./errors.ts";
import { servicePortManagers } from "./field-managers.ts";
import { readServiceRecord, SERVICE_RECORD_ANNOTATION, withRecord, type Claim } from "./ownership.ts";

/**
 * The name exposePort gives a Service port: `port<N>` (runtime-spec §7.1 step 5).
 * @param port - port number.
 */
export function servicePortName(port: number): string {
  return `port${port}`;
}

/** The Service port entry exposePort writes for port N, as Go writes it (no protocol: the apiserver sets TCP). */
export function exposedServicePort(port: number): ServicePort {
  return { name: servicePortName(port), port, targetPort: port };
}

/** Fields an entry may carry and still be exactly tinyhost's: `nodePort` is allocated by the apiserver for NodePort/LoadBalancer Services. */
const OWN_FIELDS = new Set(["name", "port", "targetPort", "protocol", "nodePort"]);

/** True when `entry` is exactly what exposePort writes for `port` (after apiserver defaulting). */
export function isExposedServicePort(entry: ServicePort, port: number): boolean {
  return (
    entry.port === port &&
    entry.name === servicePortName(port) &&
    (entry.protocol ?? "TCP") === "TCP" &&
    entry.targetPort === port &&
    Object.keys(entry).every((k) => OWN_FIELDS.has(k))
  );
}

/** `name (port/protocol → targetPort)`, e.g. `tcp-80 (80/TCP → 8080)`. */
export function describeServicePort(entry: ServicePort): string {
  const extra = Object.keys(entry).filter((k) => !OWN_FIELDS.has(k));
  const more = extra.length > 0 ? ` with ${extra.join(", ")}` : "";
  return `${entry.name ?? "(unnamed)"} (${entry.port}/${entry.protocol ?? "TCP"} → ${entry.targetPort ?? entry.port})${more}`;
}

/** What exposeOnService changed, so the change can be undone exactly. */
export interface ServiceExposeChange {
  /** Whether the entry was added by this edit. */
  added: boolean;
  /** The record's claim on the port before the edit (undefined = none). */
  previous: Claim | undefined;
}

/** Result of a Service edit: the object to write (undefined = nothing changes) and what changed. */
export interface ServiceEdit<C> {
  next: Service | undefined;
  change: C;
}

function withPortsAndClaim(service: Service, ports: ServicePort[], port: number, claim: Claim | undefined): Service {
  const record = { ...readServiceRecord(service, "") };
  if (claim === undefined) delete record[String(port)];
  else record[String(port)] = claim;
  const next = withRecord(service, SERVICE_RECORD_ANNOTATION, record);
  return { ...next, spec: { ...service.spec, ports } };
}

/**
 * Expose port N on the Service: adds {@link exposedServicePort} and records it `own`; adopts an
 * identical entry as `shared`; leaves both alone when already recorded.
 * @param what - names the Service in errors, e.g. `Service ns/name`.
 * @throws ExposeConflictError naming every entry with number N that is not exactly tinyhost's, and
 *   any other entry called `port<N>`, with its current value and owners (tinyhost's record or the
 *   managedFields managers); OwnershipRecordError.
 */
export function exposeOnService(service: Service, port: number, what: string): ServiceEdit<ServiceExposeChange> {
  const record = readServiceRecord(service, what);
  const previous = record[String(port)];
  const ports = service.spec?.ports ?? [];
  const wanted = describeServicePort({ ...exposedServicePort(port), protocol: "TCP" });
  const conflicts: ExposeConflict[] = [];
  for (const entry of ports) {
    const sameNumber = entry.port === port;
    const sameName = entry.name === servicePortName(port);
    if (!(sameNumber || sameName) || isExposedServicePort(entry, port)) continue;
    const managers = servicePortManagers(service.metadata.managedFields, entry.port, entry.protocol ?? "TCP");
    const writers = managers.length > 0 ? ` (field managers: ${managers.join(", ")})` : "";
    const owner =
      sameNumber && previous !== undefined && (entry.protocol ?? "TCP") === "TCP"
        ? `another writer, who changed it after tinyhost exposed port ${port}${writers}`
        : `another writer${writers}`;
    conflicts.push({
      object: what,
      entry: sameNumber ? `port ${port}` : `port name ${servicePortName(port)}`,
      current: describeServicePort(entry),
      owner,
      wanted,
    });
  }
  if (conflicts.length > 0) throw new ExposeConflictError(port, conflicts);

  const present = ports.some((p) => isExposedServicePort(p, port));
  if (present) {
    const claim: Claim = previous ?? "shared";
    if (previous === claim) return { next: undefined, change: { added: false, previous } };
    return { next: withPortsAndClaim(service, [...ports], port, claim), change: { added: false, previous } };
  }
  return { next: withPortsAndClaim(service, [...ports, exposedServicePort(port)], port, "own"), change: { added: true, previous } };
}

/** What discloseOnService changed. */
export interface ServiceDiscloseChange {
  /** The record's claim before the edit (undefined = port N was not recorded: nothing changed). */
  previous: Claim | undefined;
}

function isPortless(service: Service): boolean {
  return service.spec?.type === "ExternalName" || service.spec?.clusterIP === "None";
}

/**
 * Disclose port N on the Service: an entry recorded `own` is removed if it is still exactly as
 * written (changed by someone else = theirs now, kept); a `shared` one is kept; the claim is
 * dropped. No record for N = no change.
 * @throws WouldBeEmptyError (`SERVICE_WOULD_HAVE_NO_PORTS`) when that would leave a ClusterIP,
 *   NodePort or LoadBalancer Service without ports; OwnershipRecordError.
 */
export function discloseOnService(service: Service, port: number, what: string): ServiceEdit<ServiceDiscloseChange> {
  const record = readServiceRecord(service, what);
  const previous = record[String(port)];
  if (previous === undefined) return { next: undefined, change: { previous } };
  const before = service.spec?.ports ?? [];
  const ports = previous === "own" ? before.filter((p) => !isExposedServicePort(p, port)) : [...before];
  if (ports.length === 0 && before.length > 0 && !isPortless(service)) throw new WouldBeEmptyError("Service", what, port);
  return { next: withPortsAndClaim(service, ports, port, undefined), change: { previous } };
}

/**
 * Undoes {@link exposeOnService}: removes the entry it added (if still exactly tinyhost's) and
 * puts the claim back as it was.
 * @returns the object to write, or undefined when nothing is left to undo.
 */
export function revertServiceExpose(service: Service, port: number, change: ServiceExposeChange, what: string): Service | undefined {
  const record = readServiceRecord(service, what);
  const ports = service.spec?.ports ?? [];
  const kept = change.added ? ports.filter((p) => !isExposedServicePort(p, port)) : [...ports];
  if (kept.length === ports.length && record[String(port)] === change.previous) return undefined;
  return withPortsAndClaim(service, kept, port, change.previous);
}
