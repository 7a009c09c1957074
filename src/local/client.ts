/**
 * The {@link ModuleClient} of local mode: nothing to expose on a laptop, the port is already
 * reachable. `exposePort` answers `http://localhost:<port>` — what the Go http_server reports when a
 * cluster has no public hostname (components.md §2.1 "ExposePort"; runtime-spec §7.1).
 */
import type { ExposePortRequest, ModuleClient } from "../sdk/client.ts";
import { TinyError } from "../sdk/errors.ts";

/** An invalid `port` passed to exposePort/disclosePort. code `"INVALID_PORT"`. */
export class InvalidPortError extends TinyError {
  constructor(method: string, port: unknown) {
    super("INVALID_PORT", `${method}: port must be an integer 1–65535, got ${JSON.stringify(port)}`);
  }
}

function checkPort(method: string, port: unknown): number {
  if (typeof port !== "number" || !Number.isInteger(port) || port < 1 || port > 65535) throw new InvalidPortError(method, port);
  return port;
}

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
   * @throws InvalidPortError for a port outside 1–65535.
   */
  async exposePort(request: ExposePortRequest): Promise<string[]> {
    const port = checkPort("exposePort", request?.port);
    const url = `http://localhost:${port}`;
    if (!this.exposed.has(port)) {
      this.exposed.add(port);
      this.onExpose(port, url);
    }
    return [url];
  }

  /** Forgets `port`. @throws InvalidPortError for a port outside 1–65535. */
  async disclosePort(port: number): Promise<void> {
    checkPort("disclosePort", port);
    if (this.exposed.delete(port)) this.onDisclose(port);
  }
}
