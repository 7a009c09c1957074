/**
 * The {@link ModuleClient} of local mode: nothing to expose on a laptop, the port is already
 * reachable. `exposePort` answers `http://localhost:<port>` — what the Go http_server reports when a
 * cluster has no public hostname (components.md §2.1 "ExposePort"; runtime-spec §7.1).
 */
import { validatePort } from "../k8s/resources/hostnames.ts";
import type { ExposePortRequest, ModuleClient } from "../core/client.ts";

/** Local-mode client. Calls are recorded so the host can print the URLs. */
export class LocalModuleClient implements ModuleClient {
  readonly mode = "local" as const;
  /** Ports currently exposed. */
  readonly exposed = new Set<number>();

  /**
   * @param namespace reported to components (runtime-spec §1.5 ClientAware).
   * @param onExpose called once per newly exposed port with its URL.
   * @param onDisclose called when an exposed port is disclosed.
   */
  constructor(
    readonly namespace: string,
    readonly onExpose: (port: number, url: string) => void = () => {},
    readonly onDisclose: (port: number) => void = () => {},
  ) {}

  /**
   * Resolves to `["http://localhost:<port>"]`; hostnames are ignored (no ingress on a laptop).
   * @throws InvalidPortError (src/k8s/resources, as in a cluster) for a port outside 1–65535.
   */
  async exposePort(request: ExposePortRequest): Promise<string[]> {
    const port = validatePort(request?.port);
    const url = `http://localhost:${port}`;
    if (!this.exposed.has(port)) {
      this.exposed.add(port);
      this.onExpose(port, url);
    }
    return [url];
  }

  /** Forgets `port`. @throws InvalidPortError (as in a cluster) for a port outside 1–65535. */
  async disclosePort(port: number): Promise<void> {
    validatePort(port);
    if (this.exposed.delete(port)) this.onDisclose(port);
  }
}
