/**
 * exposePort: publish a component's port through the release Service and Ingress
 * (runtime-spec §7.1). Unlike Go, every input is validated and both objects are found before
 * anything is written; writes are compare-and-swap with retry on Conflict; nothing is written when
 * the port and hosts are already exposed (runtime-spec §16 item 26; docs/compatibility.md).
 */
import { INGRESS_HOSTNAME_SUFFIX_ANNOTATION } from "../api/index.ts";
import type { ResourceContext } from "./context.ts";
import { InvalidArgumentError, NoHostnamesError } from "./errors.ts";
import { autoHostname, normalizeHostnames, validatePort } from "./hostnames.ts";
import { withExposedHosts } from "./ingress-rules.ts";
import { findManagerIngress, findManagerService } from "./release.ts";
import { updateIngressRouting, updateServicePorts } from "./release-updates.ts";
import { withServicePort } from "./service-ports.ts";

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
 * Routes hostnames to a port: adds Service port `{name: "port<N>", port: N, targetPort: N}` (if no
 * port N exists), and per hostname an Ingress rule `/` (Prefix) → `<service>:<N>` and a TLS entry
 * `{hosts: [h], secretName: "<h>-tls"}` (if the host has none). runtime-spec §7.1.
 *
 * @returns the hostnames now routed to the port (given ones, then the auto one), normalized.
 * @throws InvalidPortError, InvalidHostnameError, InvalidArgumentError — bad input, nothing changed;
 *   NoHostnamesError — nothing to expose (none given, no auto hostname or no suffix annotation);
 *   PodNameUnknownError, ReleaseNotFoundError, ReleaseObjectLookupError — lookups, nothing changed;
 *   ConflictRetriesExhaustedError, KubeApiError — writes.
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
  const [service, ingress] = await Promise.all([
    findManagerService(ctx.kube, ctx.namespace, release),
    findManagerIngress(ctx.kube, ctx.namespace, release),
  ]);
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
      ctx.log.warn({ autoHostName: auto, ingress: ingress.metadata.name }, `auto hostname ignored: the Ingress has no ${INGRESS_HOSTNAME_SUFFIX_ANNOTATION} annotation`);
    }
  }

  const serviceName = service.metadata.name ?? "";
  await ctx.lock.run(async () => {
    await updateServicePorts(ctx, serviceName, (ports) => withServicePort(ports, port));
    await updateIngressRouting(ctx, ingress.metadata.name ?? "", (routing) => withExposedHosts(routing, serviceName, port, hostnames));
  });
  return hostnames;
}
