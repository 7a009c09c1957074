/**
 * Compare-and-swap edits of the release Service's ports and the release Ingress's rules/TLS: each
 * reads the newest object, applies a pure edit, writes only when the result differs, and retries
 * on Conflict (read-modify-write.ts). Used by exposePort and disclosePort.
 */
import { isDeepStrictEqual } from "node:util";
import { ingresses, services, type Ingress, type Service, type ServicePort } from "../client/index.ts";
import type { ResourceContext } from "./context.ts";
import type { IngressRouting } from "./ingress-rules.ts";
import { readModifyWrite } from "./read-modify-write.ts";

/**
 * Read-modify-write of the Service's `spec.ports`; no write when the edit changes nothing.
 * @param name - Service name in the manager namespace. @param edit - pure edit (service-ports.ts).
 * @throws ConflictRetriesExhaustedError, KubeApiError.
 */
export function updateServicePorts(
  ctx: ResourceContext,
  name: string,
  edit: (ports: ServicePort[]) => ServicePort[],
): Promise<unknown> {
  return readModifyWrite<Service>({
    what: `Service ${ctx.namespace}/${name}`,
    read: () => ctx.kube.get(services, name, ctx.namespace),
    modify: (current) => {
      const before = current.spec?.ports ?? [];
      const after = edit(before);
      if (isDeepStrictEqual(before, after)) return undefined;
      return { ...current, spec: { ...current.spec, ports: after } };
    },
    write: (next) => ctx.kube.update(services, next, { namespace: ctx.namespace }),
  });
}

/**
 * Read-modify-write of the Ingress's `spec.rules` and `spec.tls`; no write when nothing changes.
 * Lists left empty are omitted from the spec. @param edit - pure edit (ingress-rules.ts).
 * @throws ConflictRetriesExhaustedError, KubeApiError.
 */
export function updateIngressRouting(ctx: ResourceContext, name: string, edit: (routing: IngressRouting) => IngressRouting): Promise<unknown> {
  return readModifyWrite<Ingress>({
    what: `Ingress ${ctx.namespace}/${name}`,
    read: () => ctx.kube.get(ingresses, name, ctx.namespace),
    modify: (current) => {
      const before: IngressRouting = {
        rules: (current.spec?.rules ?? []) as IngressRouting["rules"],
        tls: current.spec?.tls ?? [],
      };
      const after = edit(before);
      if (isDeepStrictEqual(before, after)) return undefined;
      const spec: NonNullable<Ingress["spec"]> = { ...current.spec, rules: after.rules, tls: after.tls };
      if (after.rules.length === 0) delete spec.rules;
      if (after.tls.length === 0) delete spec.tls;
      return { ...current, spec };
    },
    write: (next) => ctx.kube.update(ingresses, next, { namespace: ctx.namespace }),
  });
}
