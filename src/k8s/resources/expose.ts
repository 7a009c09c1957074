/**
 * exposePort: publish a component's port through the release Service and Ingress
 * (runtime-spec §7.1). Unlike Go, every input is validated and both objects are found before
 * anything is written; entries of other writers are never reused or re-pointed (a conflict is an
 * error); what tinyhost adds is recorded on the objects (ownership.ts); the two writes are all or
 * nothing (two-writes.ts) and taken in turn by the release's replicas (expose-lock.ts); nothing is
 * written when the port and hosts are already exposed (runtime-spec §16 item 26;
 * docs/compatibility.md).
 */
import { INGRESS_HOSTNAME_SUFFIX_ANNOTATION } from "../../core/api/index.ts";
import type { Ingress, Service } from "../client/index.ts";
import type { ResourceContext } from "./context.ts";
import { InvalidArgumentError, NoHostnamesError } from "./errors.ts";
import { autoHostname, normalizeHostnames, validatePort } from "./hostnames.ts";
import { withExposeLock } from "./expose-lock.ts";
import { exposeOnIngress } from "./ingress-rules.ts";
import { findManagerIngress, findManagerService } from "./release.ts";
import { describeObject, undoEdit, updateIngress, updateService } from "./release-updates.ts";
import { exposeOnService, revertServiceExpose, type ServiceExposeChange } from "./service-ports.ts";
import { writeBoth } from "./two-writes.ts";

/** Arguments of {@link exposePort} (Go `ExposePort(ctx, autoHostName, hostnames, port)`). */
export interface ExposePortRequest {
  /**
   * Prefix of a generated hostname `<autoHostName>-<suffix>`, where the suffix is the release
   * Ingress's `tinysystems.io/ingress-hostname-suffix` annotation.
   */
  autoHostName?: string;
  /** Hostnames to route to the port; normalized (lowercase, no trailing dot) and validated. */
  hostnames?: readonly string[];
  /** Port number the component listens on, 1–65535. */
  port: number;
}

/**
 * Routes hostnames to a port: Service port `{name: "port<N>", port: N, targetPort: N}`, and per
 * hostname the path `/` (Prefix) → `<service>:<N>` (a new rule, or added to the host's rule) and a
 * TLS entry `{hosts: [h], secretName: "<h>-tls"}` when no entry covers the host (runtime-spec §7.1;
 * rules: service-ports.ts, ingress-rules.ts). The Service is written first, then the Ingress; if
 * the Ingress write fails the Service change is undone.
 *
 * @returns the hostnames now routed to the port (given ones, then the auto one), normalized.
 * @throws InvalidPortError, InvalidHostnameError, InvalidArgumentError — bad input, nothing changed;
 *   NoHostnamesError — nothing to expose (none given, no auto hostname or no suffix annotation);
 *   PodNameUnknownError, ReleaseNotFoundError, ReleaseObjectLookupError — lookups, nothing changed;
 *   ExposeConflictError — an entry of another writer (or of another tinyhost port) is in the way,
 *   nothing changed; OwnershipRecordError — an ownership annotation is unreadable, nothing changed;
 *   ExposeLockTimeoutError; ConflictRetriesExhaustedError, KubeApiError — writes (undone);
 *   PartialWriteError — the Ingress write and the undo of the Service write both failed.
 */
export async function exposePort(ctx: ResourceContext, request: ExposePortRequest): Promise<string[]> {
  const port = validatePort(request?.port);
  const given = request.hostnames;
  if (given !== undefined && given !== null && !Array.isArray(given)) {
    throw new InvalidArgumentError("hostnames", `must be an array of strings, got ${JSON.stringify(given)}`);
  }
  const hostnames = normalizeHostnames(given ?? []);
  const auto = request.autoHostName ?? "";
  if (typeof auto !== "string") throw new InvalidArgumentError("autoHostName", `must be a string, got ${JSON.stringify(auto)}`);
  if (hostnames.length === 0 && auto === "") throw new NoHostnamesError("no hostnames were given and no auto hostname was requested");

  const release = await ctx.release();
  const [service, ingress] = await Promise.all([findManagerService(ctx.kube, ctx.namespace, release), findManagerIngress(ctx.kube, ctx.namespace, release)]);
  if (auto !== "") {
    const suffix = ingress.metadata.annotations?.[INGRESS_HOSTNAME_SUFFIX_ANNOTATION] ?? "";
    if (suffix !== "") {
      const host = autoHostname(auto, suffix);
      if (!hostnames.includes(host)) hostnames.push(host);
    } else if (hostnames.length === 0) {
      throw new NoHostnamesError(
        `auto hostname ${JSON.stringify(auto)} was requested, but Ingress ${ctx.namespace}/${ingress.metadata.name} has no ${INGRESS_HOSTNAME_SUFFIX_ANNOTATION} annotation`,
      );
    } else {
      ctx.log.warn(
        { autoHostName: auto, ingress: ingress.metadata.name },
        `auto hostname ignored: the Ingress has no ${INGRESS_HOSTNAME_SUFFIX_ANNOTATION} annotation`,
      );
    }
  }

  const serviceName = service.metadata.name ?? "";
  const ingressName = ingress.metadata.name ?? "";
  const svcWhat = describeObject("Service", ctx, serviceName);
  const ingWhat = describeObject("Ingress", ctx, ingressName);
  const serviceEdit = (s: Service) => exposeOnService(s, port, svcWhat);
  const ingressEdit = (i: Ingress) => exposeOnIngress(i, serviceName, port, hostnames, ingWhat).next;
  // Read-only check on the objects just listed: a conflict fails here, before any write, and a
  // port that is fully exposed already (the 15 s re-assert) takes no lock and writes nothing.
  if (serviceEdit(service).next === undefined && ingressEdit(ingress) === undefined) return hostnames;

  await ctx.lock.run(() =>
    withExposeLock(ctx, serviceName, () => {
      let change: ServiceExposeChange = { added: false, previous: undefined };
      return writeBoth({
        operation: `exposePort(${port})`,
        firstObject: svcWhat,
        first: () =>
          updateService(ctx, serviceName, (s) => {
            const edit = serviceEdit(s);
            change = edit.change;
            return edit.next;
          }),
        second: () => updateIngress(ctx, ingressName, ingressEdit),
        undoFirst: (done) =>
          updateService(
            ctx,
            serviceName,
            undoEdit("Service", done, (s) => revertServiceExpose(s, port, change, svcWhat)),
          ),
        log: ctx.log,
      });
    }),
  );
  return hostnames;
}
