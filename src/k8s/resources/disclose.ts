/**
 * disclosePort: take a component's port off the release Service and Ingress (runtime-spec §7.2),
 * removing only what exposePort recorded as its own (ownership.ts; docs/compatibility.md).
 */
import type { Ingress, Service } from "../client/index.ts";
import type { ResourceContext } from "./context.ts";
import { withExposeLock } from "./expose-lock.ts";
import { validatePort } from "./hostnames.ts";
import { discloseOnIngress, revertIngressDisclose } from "./ingress-rules.ts";
import type { HostClaim } from "./ownership.ts";
import { findManagerIngress, findManagerService } from "./release.ts";
import { describeObject, undoEdit, updateIngress, updateService } from "./release-updates.ts";
import { discloseOnService } from "./service-ports.ts";
import { writeBoth } from "./two-writes.ts";

/**
 * disclosePort: removes port N's recorded entries — the Ingress paths, rules and TLS hosts first,
 * then the Service port — and N's ownership claims. Entries recorded `shared` and entries of other
 * writers (even paths routing to `<service>:<N>`) stay. If the Service write fails, the Ingress
 * change is undone. A port with no record changes nothing. Unlike Go, a missing HOSTNAME is an
 * error, not a silent success.
 * @throws InvalidPortError; PodNameUnknownError, ReleaseNotFoundError, ReleaseObjectLookupError
 *   (nothing changed); WouldBeEmptyError — the Service would have no ports or the Ingress no rules
 *   and no default backend, nothing changed; OwnershipRecordError; ExposeLockTimeoutError;
 *   ConflictRetriesExhaustedError, KubeApiError (undone); PartialWriteError.
 */
export async function disclosePort(ctx: ResourceContext, port: number): Promise<void> {
  validatePort(port);
  const release = await ctx.release();
  const [service, ingress] = await Promise.all([findManagerService(ctx.kube, ctx.namespace, release), findManagerIngress(ctx.kube, ctx.namespace, release)]);
  const serviceName = service.metadata.name ?? "";
  const ingressName = ingress.metadata.name ?? "";
  const svcWhat = describeObject("Service", ctx, serviceName);
  const ingWhat = describeObject("Ingress", ctx, ingressName);
  const serviceEdit = (s: Service) => discloseOnService(s, port, svcWhat).next;
  // Read-only check first: a Service that would be left without ports fails before any write.
  if (serviceEdit(service) === undefined && discloseOnIngress(ingress, serviceName, port, ingWhat).next === undefined) return;

  await ctx.lock.run(() =>
    withExposeLock(ctx, serviceName, () => {
      let previous: Record<string, HostClaim> | undefined;
      return writeBoth({
        operation: `disclosePort(${port})`,
        firstObject: ingWhat,
        first: () =>
          updateIngress(ctx, ingressName, (i: Ingress) => {
            const edit = discloseOnIngress(i, serviceName, port, ingWhat);
            previous = edit.previous;
            return edit.next;
          }),
        second: () => updateService(ctx, serviceName, serviceEdit),
        undoFirst: (done) =>
          updateIngress(
            ctx,
            ingressName,
            undoEdit("Ingress", done, (i) => revertIngressDisclose(i, serviceName, port, previous, ingWhat)),
          ),
        log: ctx.log,
      });
    }),
  );
}
