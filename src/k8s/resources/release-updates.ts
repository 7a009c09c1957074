/**
 * Compare-and-swap edits of the release Service and Ingress: each reads the newest object, applies
 * a pure edit (service-ports.ts, ingress-rules.ts, expose-lock.ts), writes only when the edit
 * returns a change, and on Conflict reads again and recomputes (`retryOnConflict`). The edit may
 * throw (a conflict with another writer's entry); that ends the update with nothing written.
 */
import { isDeepStrictEqual } from "node:util";
import { ingresses, retryOnConflict, services, type Ingress, type KubeObject, type Service } from "../client/index.ts";
import type { ResourceContext } from "./context.ts";
import { INGRESS_RECORD_ANNOTATION, SERVICE_RECORD_ANNOTATION, withAnnotation } from "./ownership.ts";

/** Field manager recorded in managedFields for the writes of exposePort/disclosePort. */
export const EXPOSE_FIELD_MANAGER = "tinyhost-expose";

/** Result of {@link updateService} / {@link updateIngress}. */
export interface ReleaseUpdate<T> {
  /** Whether a write happened. */
  changed: boolean;
  /** The object as read by the successful attempt (before the edit). */
  before: T;
  /** The object as stored afterwards. */
  after: T;
}

/** `Service ns/name` / `Ingress ns/name`, for messages. */
export function describeObject(kind: "Service" | "Ingress", ctx: ResourceContext, name: string): string {
  return `${kind} ${ctx.namespace}/${name}`;
}

async function update<T extends KubeObject>(
  ctx: ResourceContext,
  what: string,
  read: () => Promise<T>,
  write: (next: T) => Promise<T>,
  edit: (current: T) => T | undefined,
): Promise<ReleaseUpdate<T>> {
  let before: T | undefined;
  const result = await retryOnConflict<T>({
    what,
    read,
    write: (current) => {
      before = current;
      const next = edit(current);
      return next === undefined ? undefined : write(next);
    },
  });
  return { changed: result.written, before: before ?? result.object, after: result.object };
}

/**
 * Read-modify-write of the release Service.
 * @param edit - pure edit; undefined = nothing to write. Throwing ends the update unwritten.
 * @throws what `edit` throws; ConflictRetriesExhaustedError; KubeApiError.
 */
export function updateService(ctx: ResourceContext, name: string, edit: (current: Service) => Service | undefined): Promise<ReleaseUpdate<Service>> {
  return update<Service>(
    ctx,
    describeObject("Service", ctx, name),
    () => ctx.kube.get(services, name, ctx.namespace),
    (next) => ctx.kube.update(services, next, { namespace: ctx.namespace, fieldManager: EXPOSE_FIELD_MANAGER }),
    edit,
  );
}

/**
 * Read-modify-write of the release Ingress.
 * @param edit - pure edit; undefined = nothing to write. Throwing ends the update unwritten.
 * @throws what `edit` throws; ConflictRetriesExhaustedError; KubeApiError.
 */
export function updateIngress(ctx: ResourceContext, name: string, edit: (current: Ingress) => Ingress | undefined): Promise<ReleaseUpdate<Ingress>> {
  return update<Ingress>(
    ctx,
    describeObject("Ingress", ctx, name),
    () => ctx.kube.get(ingresses, name, ctx.namespace),
    (next) => ctx.kube.update(ingresses, next, { namespace: ctx.namespace, fieldManager: EXPOSE_FIELD_MANAGER }),
    edit,
  );
}

/** The parts of the Service that exposePort/disclosePort own: its ports and its ownership record. */
function serviceParts(s: Service): unknown {
  return [s.spec?.ports ?? [], s.metadata.annotations?.[SERVICE_RECORD_ANNOTATION]];
}

/** The parts of the Ingress that exposePort/disclosePort own: rules, TLS and the ownership record. */
function ingressParts(i: Ingress): unknown {
  return [i.spec?.rules ?? [], i.spec?.tls ?? [], i.metadata.annotations?.[INGRESS_RECORD_ANNOTATION]];
}

/**
 * An undo edit for a write made by {@link updateService}/{@link updateIngress}: when the object's
 * ports/rules/TLS and record are still exactly what that write stored, they are put back exactly
 * as read before it (same order); otherwise someone changed the object since, and `targeted`
 * removes only this call's own change from the newest object.
 */
export function undoEdit<T extends Service | Ingress>(
  kind: "Service" | "Ingress",
  done: ReleaseUpdate<T>,
  targeted: (current: T) => T | undefined,
): (current: T) => T | undefined {
  const parts = (kind === "Service" ? serviceParts : ingressParts) as (o: T) => unknown;
  return (current) => {
    if (!isDeepStrictEqual(parts(current), parts(done.after))) return targeted(current);
    const key = kind === "Service" ? SERVICE_RECORD_ANNOTATION : INGRESS_RECORD_ANNOTATION;
    const restored = withAnnotation(current, key, done.before.metadata.annotations?.[key]);
    const spec = { ...current.spec } as Record<string, unknown>;
    const fields = kind === "Service" ? ["ports"] : ["rules", "tls"];
    for (const f of fields) {
      const value = (done.before.spec as Record<string, unknown> | undefined)?.[f];
      if (value === undefined) delete spec[f];
      else spec[f] = value;
    }
    return { ...restored, spec } as T;
  };
}
