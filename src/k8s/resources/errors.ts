/**
 * Errors of the resource manager. Each has a stable `code`; messages name the offending value or
 * the label selector that matched too little or too much (runtime-spec §7.1, §16 item 26).
 */
import { TinyError, messageOf } from "../../core/errors.ts";

/** Base class of the resource-manager errors (a {@link TinyError}: `code` e.g. `INVALID_HOSTNAME`). */
export class ResourceManagerError extends TinyError {}

/**
 * The current pod's name is unknown: `HOSTNAME` is empty and no `podName` was given. The release
 * name is read from that pod (runtime-spec §7.1 step 1). Code `POD_NAME_UNKNOWN`.
 */
export class PodNameUnknownError extends ResourceManagerError {
  constructor() {
    super(
      "POD_NAME_UNKNOWN",
      "unable to determine the current pod's name: HOSTNAME is empty (the kubelet sets it to the pod name; pass podName when running outside a pod)",
    );
  }
}

/**
 * The Helm release name could not be read from the pod (pod missing, or no
 * `app.kubernetes.io/instance` label). runtime-spec §7.1 step 2. Code `RELEASE_NOT_FOUND`.
 */
export class ReleaseNotFoundError extends ResourceManagerError {
  /** Namespace searched. */
  readonly namespace: string;
  /** Pod whose label was read. */
  readonly podName: string;

  /** @param namespace - manager namespace. @param podName - pod name. @param why - what went wrong. @param cause - underlying error. */
  constructor(namespace: string, podName: string, why: string, cause?: unknown) {
    super("RELEASE_NOT_FOUND", `unable to find release name from pod ${namespace}/${podName}: ${why}`, { cause });
    this.namespace = namespace;
    this.podName = podName;
  }
}

/**
 * No object, or more than one, matched the release's label selector (runtime-spec §7.1 steps 3–4).
 * Codes: `SERVICE_NOT_FOUND`, `SERVICE_AMBIGUOUS`, `INGRESS_NOT_FOUND`, `INGRESS_AMBIGUOUS`.
 * The message reads e.g. `found 2 Services matching app.kubernetes.io/instance=x,…: a, b`.
 */
export class ReleaseObjectLookupError extends ResourceManagerError {
  /** `Service` or `Ingress`. */
  readonly kind: "Service" | "Ingress";
  /** The label selector used, `k=v,k=v`. */
  readonly selector: string;
  /** Names of the objects that matched (0 or ≥ 2). */
  readonly matches: string[];

  /** @param kind - object kind. @param namespace - namespace searched. @param selector - label selector. @param matches - matched names. */
  constructor(kind: "Service" | "Ingress", namespace: string, selector: string, matches: string[]) {
    const what = matches.length === 0 ? "NOT_FOUND" : "AMBIGUOUS";
    const message =
      matches.length === 0
        ? `found no ${kind} matching ${selector} in namespace ${namespace}`
        : `found ${matches.length} ${kind}s matching ${selector} in namespace ${namespace}: ${matches.join(", ")}`;
    super(`${kind.toUpperCase()}_${what}`, message);
    this.kind = kind;
    this.selector = selector;
    this.matches = matches;
  }
}

/** A hostname given to exposePort is not usable as an Ingress host. Code `INVALID_HOSTNAME`. */
export class InvalidHostnameError extends ResourceManagerError {
  /** The hostname as given. */
  readonly hostname: string;

  /** @param hostname - the value as given. @param why - which rule it breaks. */
  constructor(hostname: string, why: string) {
    super("INVALID_HOSTNAME", `invalid hostname ${JSON.stringify(hostname)}: ${why}`);
    this.hostname = hostname;
  }
}

/** A port number is not an integer in 1–65535. Code `INVALID_PORT`. */
export class InvalidPortError extends ResourceManagerError {
  /** The value as given. */
  readonly port: unknown;

  /** @param port - the value as given. */
  constructor(port: unknown) {
    super("INVALID_PORT", `invalid port ${JSON.stringify(port) ?? String(port)}: must be an integer from 1 to 65535`);
    this.port = port;
  }
}

/**
 * exposePort has no hostname to expose: none given and no auto hostname, or an auto hostname
 * without the Ingress's `tinysystems.io/ingress-hostname-suffix` annotation. Code `NO_HOSTNAMES`.
 */
export class NoHostnamesError extends ResourceManagerError {
  /** @param why - which case applies. */
  constructor(why: string) {
    super("NO_HOSTNAMES", `no hostnames to expose: ${why}`);
  }
}

/** An argument of a custom-resource helper is missing or unusable. Code `INVALID_ARGUMENT`. */
export class InvalidArgumentError extends ResourceManagerError {
  /** Name of the argument or field. */
  readonly field: string;

  /** @param field - argument name. @param why - what is wrong with the value. */
  constructor(field: string, why: string) {
    super("INVALID_ARGUMENT", `${field} ${why}`);
    this.field = field;
  }
}

/**
 * The owner of a new object (its TinyFlow or TinyProject) could not be read, so no owner reference
 * can be set (runtime-spec §7.3, Go "failed to get flow for owner reference"). Code `OWNER_NOT_FOUND`.
 */
export class OwnerLookupError extends ResourceManagerError {
  /** @param kind - owner kind. @param namespace - namespace. @param name - owner name. @param cause - the API error. */
  constructor(kind: string, namespace: string, name: string, cause: unknown) {
    const why = messageOf(cause);
    super("OWNER_NOT_FOUND", `failed to get ${kind} ${namespace}/${name} for the owner reference: ${why}`, { cause });
  }
}

/** One entry that stops exposePort: what is there now, who owns it, and what tinyhost would write. */
export interface ExposeConflict {
  /** The object, e.g. `Service ns/shop-manager-service`. */
  object: string;
  /** The entry, e.g. `port 80` or `host shop.example.com path /`. */
  entry: string;
  /** Its current value, e.g. `tcp-80 (80/TCP → 8080)`. */
  current: string;
  /** Who owns it, e.g. `another writer (field managers: helm)` or `tinyhost, for port 8080`. */
  owner: string;
  /** What exposePort would have written there. */
  wanted: string;
}

/**
 * exposePort would have to reuse, re-point or overwrite an entry it does not own: a Service port
 * with the same number (or the name `port<N>`) that is not exactly `{port<N>, N/TCP → N}`, or an
 * existing path `/` for the same host that routes elsewhere (another writer's, or another of
 * tinyhost's own ports). Nothing was changed. Code `EXPOSE_CONFLICT`. Go instead reuses the port
 * silently and re-points the path (runtime-spec §7.1 steps 5, 8; docs/compatibility.md).
 */
export class ExposeConflictError extends ResourceManagerError {
  /** Every conflicting entry, in the order found. */
  readonly conflicts: readonly ExposeConflict[];

  /** @param port - the port being exposed. @param conflicts - at least one. */
  constructor(port: number, conflicts: readonly ExposeConflict[]) {
    const lines = conflicts.map((c) => `${c.object} ${c.entry} is ${c.current}, owned by ${c.owner}; exposePort(${port}) would write ${c.wanted}`);
    super("EXPOSE_CONFLICT", `cannot expose port ${port}, nothing was changed: ${lines.join("; ")}`);
    this.conflicts = conflicts;
  }
}

/**
 * disclosePort would leave the Service without ports (the apiserver rejects that with
 * `422 spec.ports: Required value` unless the Service is headless or ExternalName), or the Ingress
 * without rules and default backend (`either defaultBackend or rules must be specified`). Nothing
 * was changed. Codes `SERVICE_WOULD_HAVE_NO_PORTS`, `INGRESS_WOULD_HAVE_NO_RULES`.
 * Rule: Kubernetes `ValidateService`, `ValidateIngressSpec` (pkg/apis/{core,networking}/validation).
 */
export class WouldBeEmptyError extends ResourceManagerError {
  /** The object, e.g. `Service ns/name`. */
  readonly object: string;

  /** @param kind - which object. @param object - its description. @param port - the port being disclosed. */
  constructor(kind: "Service" | "Ingress", object: string, port: number) {
    const why =
      kind === "Service"
        ? `port${port} is its only port, and a ClusterIP Service needs at least one; add another port to it or delete the Service`
        : `its rules for port ${port} are its only rules and it has no defaultBackend, which the apiserver rejects; add a defaultBackend or another rule`;
    super(
      kind === "Service" ? "SERVICE_WOULD_HAVE_NO_PORTS" : "INGRESS_WOULD_HAVE_NO_RULES",
      `cannot disclose port ${port}, nothing was changed: ${object} ${why}`,
    );
    this.object = object;
  }
}

/**
 * A tinyhost ownership annotation on the release Service or Ingress cannot be read (edited by
 * hand into something that is not the JSON tinyhost writes). Nothing was changed; delete or fix
 * the annotation. Code `OWNERSHIP_RECORD_INVALID`.
 */
export class OwnershipRecordError extends ResourceManagerError {
  /** @param object - e.g. `Ingress ns/name`. @param annotation - the key. @param why - what is wrong. */
  constructor(object: string, annotation: string, why: string) {
    super("OWNERSHIP_RECORD_INVALID", `${object} annotation ${annotation} is not a tinyhost ownership record: ${why}`);
  }
}

/**
 * The second of exposePort's/disclosePort's two writes failed and undoing the first failed too,
 * so one object keeps the first change. That change is recorded in its ownership annotation, so
 * the next exposePort or disclosePort of the port completes or removes it. Code `PARTIAL_WRITE`;
 * `cause` is the failure of the second write, `undoError` the failure of the undo.
 */
export class PartialWriteError extends ResourceManagerError {
  /** Why the undo failed. */
  readonly undoError: unknown;

  /** @param operation - e.g. `exposePort(8080)`. @param first - the object written first. @param cause - second-write failure. @param undoError - undo failure. */
  constructor(operation: string, first: string, cause: unknown, undoError: unknown) {
    super(
      "PARTIAL_WRITE",
      `${operation} failed half-way: ${messageOf(cause)}; undoing its change of ${first} failed too: ${messageOf(undoError)}. ${first} keeps that change, recorded in its tinyhost ownership annotation; calling exposePort or disclosePort for the port again settles it`,
      { cause },
    );
    this.undoError = undoError;
  }
}

/**
 * Another tinyhost replica of the release held the expose lock (an annotation on the release
 * Service) for longer than its time-to-live plus a grace period. Nothing was changed. Code
 * `EXPOSE_LOCK_TIMEOUT`.
 */
export class ExposeLockTimeoutError extends ResourceManagerError {
  /** @param object - the Service. @param holder - the holder's identity. @param waitedMs - how long we waited, ms. */
  constructor(object: string, holder: string, waitedMs: number) {
    super("EXPOSE_LOCK_TIMEOUT", `${object}: the expose lock is still held by ${holder} after waiting ${Math.round(waitedMs)} ms; nothing was changed`);
  }
}
