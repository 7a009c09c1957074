/**
 * disclosePort: take a component's port off the release Service and Ingress (runtime-spec §7.2),
 * keeping everything that belongs to other ports (runtime-spec §16 item 26; docs/compatibility.md).
 */
import type { ResourceContext } from "./context.ts";
import { validatePort } from "./hostnames.ts";
import { withoutExposedPort } from "./ingress-rules.ts";
import { findManagerIngress, findManagerService } from "./release.ts";
import { updateIngressRouting, updateServicePorts } from "./release-updates.ts";
import { withoutServicePort } from "./service-ports.ts";

/**
 * disclosePort: removes port N's Service entry and every Ingress path routing to `<service>:<N>`,
 * with the rules and TLS hosts only that port used (runtime-spec §7.2; rules: ingress-rules.ts).
 * Unlike Go, a missing HOSTNAME is an error, not a silent success.
 * @throws InvalidPortError; PodNameUnknownError, ReleaseNotFoundError, ReleaseObjectLookupError
 *   (nothing changed); ConflictRetriesExhaustedError, KubeApiError.
 */
export async function disclosePort(ctx: ResourceContext, port: number): Promise<void> {
  validatePort(port);
  const release = await ctx.release();
  const [service, ingress] = await Promise.all([
    findManagerService(ctx.kube, ctx.namespace, release),
    findManagerIngress(ctx.kube, ctx.namespace, release),
  ]);
  const serviceName = service.metadata.name ?? "";
  await ctx.lock.run(async () => {
    await updateServicePorts(ctx, serviceName, (ports) => withoutServicePort(ports, port));
    await updateIngressRouting(ctx, ingress.metadata.name ?? "", (routing) => withoutExposedPort(routing, serviceName, port));
  });
}
